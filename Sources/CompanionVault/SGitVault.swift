import CompanionCore
import Foundation

/// Where a vault lives: its id and the server that holds it.
public struct VaultAddress: Sendable, Hashable {
    /// The vault id.
    public let vaultId: String
    /// The server's base URL; `https://dev.send.sgraph.ai` unless given.
    public let server: URL

    /// Creates an address; the server defaults to `HTTPVaultSource.defaultServer`.
    public init(vaultId: String, server: URL = HTTPVaultSource.defaultServer) {
        self.vaultId = vaultId
        self.server = server
    }
}

/// One commit, with its message decrypted.
public struct VaultCommit: Sendable, Hashable, Identifiable {
    /// The commit's object id.
    public let id: String
    /// Its root tree.
    public let treeID: String
    /// Its parents: none for the first commit, two for a merge.
    public let parents: [String]
    /// When it was made, in milliseconds since 1970.
    public let timestampMs: Int64
    /// The decrypted message (empty when the commit has none).
    public let message: String
    /// The branch that wrote it (metadata only).
    public let branchID: String?

    /// When it was made.
    public var date: Date { Date(timeIntervalSince1970: Double(timestampMs) / 1_000) }
}

/// One file in a commit.
public struct VaultFile: Sendable, Hashable, Identifiable {
    /// The path inside the vault, `/`-separated.
    public let path: String
    /// The plaintext size in bytes.
    public let size: Int
    /// The blob's object id.
    public let blobID: String
    /// The MIME type the writer recorded (`application/octet-stream` when none).
    public let contentType: String
    /// The first 12 hex digits of sha256(plaintext), as recorded.
    public let contentHash: String
    /// Whether the writer flagged the blob as large (over 4 MiB encrypted).
    public let isLarge: Bool

    /// The path.
    public var id: String { path }
}

/// A named branch of the vault.
public struct VaultBranch: Sendable, Hashable {
    /// The branch name, e.g. `current`.
    public let name: String
    /// The ref's file id.
    public let refFileID: String
}

/// How far a pull has come, for a progress line.
public struct VaultPullProgress: Sendable, Hashable {
    /// Objects fetched so far (loose objects and pack members).
    public let objects: Int
    /// Bytes fetched so far.
    public let bytes: Int
    /// Seconds since the pull started.
    public let elapsed: Double

    /// Creates a progress value.
    public init(objects: Int, bytes: Int, elapsed: Double) {
        self.objects = objects
        self.bytes = bytes
        self.elapsed = elapsed
    }
}

/// A native, read-only sgit vault reader.
///
/// - `pull()` fetches the ref (never cached), then only objects not already in the local cache, each checked
///   against its content address before it is decrypted or cached. Pack vaults are read through their zips.
/// - `files()`, `read(_:)` and `history(limit:)` work from the cache after a pull, offline.
///
/// All traffic is recorded in the `VaultTrafficLog`; no key ever reaches it.
public actor SGitVault {
    /// The key's vault id.
    public nonisolated let vaultID: String
    /// How many objects are fetched at once.
    public let maxConcurrentFetches: Int

    private let key: VaultKey
    private let source: any VaultSource
    private let cache: VaultCache
    private let log: VaultTrafficLog
    private var state: VaultCache.State
    private var treeMemo: [String: [VaultFormat.TreeEntryRecord]] = [:]
    private var filesMemo: (head: String, files: [VaultFile], index: [String: VaultFile])?

    /// Opens a vault on `source`, caching under `cache` (one folder per vault).
    public init(
        key: VaultKey, source: any VaultSource, cache: URL, log: VaultTrafficLog, maxConcurrentFetches: Int = 8
    ) throws(VaultError) {
        self.key = key
        self.vaultID = key.vaultID
        self.source = source
        self.cache = try VaultCache(root: cache)
        self.log = log
        self.maxConcurrentFetches = max(1, maxConcurrentFetches)
        var state = try self.cache.loadState(vaultID: key.vaultID)
        if !self.cache.droppedPacks.isEmpty {
            // Their objects are gone: no cached history is known whole any more, and cached trees may lack blobs.
            state.complete = []
            state.packs = []
            state.rewalk = true
            try self.cache.saveState(state)
        }
        self.state = state
    }

    /// Opens a vault on an SG/Send server, given its server URL.
    public init(address: VaultAddress, readKey: VaultKey, cache: URL, log: VaultTrafficLog) throws(VaultError) {
        guard address.vaultId == readKey.vaultID else { throw .malformedKey(.invalidVaultID) }
        try self.init(key: readKey, source: HTTPVaultSource(server: address.server), cache: cache, log: log)
    }

    /// The head commit id of the last successful pull, if any.
    public var head: String? { state.lastRef.flatMap { state.heads[$0] } }

    /// The ids of every object in the local cache: what pulls and reads stored, for tools that inspect the cache.
    public nonisolated func cachedObjectIDs() -> Set<String> { cache.objectIDs() }

    /// The stored (still encrypted) bytes of the cached object `id`, checked against its content address; `nil`
    /// when the cache lacks it or its copy fails the check (that copy is then dropped, as on `read`).
    public nonisolated func cachedObject(_ id: String) -> Data? {
        guard VaultFormat.isObjectID(id), let stored = cache.object(id) else { return nil }
        guard (try? VaultFormat.verifyContentAddress(id: id, stored: stored)) != nil else {
            cache.discard(id)
            return nil
        }
        return stored
    }

    // MARK: Pull

    /// Fetches `branch` (the named branch `current` by default) and every object not yet cached.
    ///
    /// - Returns: the head commit.
    /// - Throws: `vaultNotFound` when the ref answers 404 (unknown vault, never pushed, or a wrong key); a
    ///   verification, decryption or schema error when an object is bad. The cache is then unchanged.
    @discardableResult
    public func pull(
        branch: String? = nil, progress: (@Sendable (VaultPullProgress) -> Void)? = nil
    ) async throws(VaultError) -> VaultCommit {
        try await pull(branch: branch, progress: progress, delivery: nil)
    }

    /// Pulls like `pull(branch:progress:)` and hands every file of the pulled head to `eachFile`, with its exact
    /// bytes checked like `read(_:)` (content address, authenticated decryption, recorded size and content hash).
    ///
    /// This is the fast way to read a whole vault: a file is decrypted and handed over as soon as its blob has
    /// arrived, on several cores, while later batches still download, and its bytes are never read back from the
    /// cache. Files whose blobs were cached before are read from the cache. Each file is handed over once, in no
    /// particular order, and several calls may run at once.
    ///
    /// - Returns: the head commit.
    /// - Throws: as `pull(branch:progress:)`. Files handed over before an error are each complete and checked; the
    ///   cache is then unchanged.
    @discardableResult
    public func pull(
        branch: String? = nil, progress: (@Sendable (VaultPullProgress) -> Void)? = nil,
        eachFile: @escaping @Sendable (VaultFile, Data) async -> Void
    ) async throws(VaultError) -> VaultCommit {
        try await pull(branch: branch, progress: progress, delivery: eachFile)
    }

    private func pull(
        branch: String?, progress: (@Sendable (VaultPullProgress) -> Void)?,
        delivery: (@Sendable (VaultFile, Data) async -> Void)?
    ) async throws(VaultError) -> VaultCommit {
        let started = ContinuousClock.now
        let (refID, resolvedIndex) = try await resolveRef(branch: branch)
        var index = resolvedIndex

        // 1. The ref: never from the cache.
        guard let refStored = try await fetchRaw(refID) else {
            log.record(
                .error, path: refID, status: 404, detail: "ref not found: unknown vault, never pushed, or wrong key")
            throw .vaultNotFound(vaultID: vaultID)
        }
        let headID = try VaultFormat.parseRef(decrypt(refStored, path: refID), path: refID)

        if state.heads[refID] == headID, state.complete.contains(headID) {
            if state.lastRef != refID {
                state.lastRef = refID
                try cache.saveState(state)
            }
            if let delivery {
                let files = try filesIndex(headID).files
                try await deliverLocal(Self.filesByBlob(files), writer: nil, delivery: delivery)
            }
            return try commit(headID)
        }

        let writer = try PackWriter(cache: cache)
        defer { writer.abandon() }
        var pull = PullStaging(writer: writer, counter: ProgressCounter(started: started, progress: progress))
        if index == nil { index = try await fetchIndex() }
        if let index, index.features.contains("packs") { try await readPacks(into: &pull) }
        try await walkCommits(from: headID, into: &pull)
        try await walkTrees(into: &pull)
        // 5. Blobs: verified and staged; when files are wanted, each is decrypted and handed over as it arrives.
        let missingBlobs = pull.blobIDs.filter { !writer.contains($0) }
        var arrived: (@Sendable (String, Data) async throws(VaultError) -> Void)?
        var byBlob: [String: [VaultFile]] = [:]
        if let delivery {
            guard let root = pull.commitRecords[headID]?.treeID else { throw .objectMissing(id: headID) }
            var files: [VaultFile] = []
            try flatten(tree: root, prefix: "", into: &files, depth: 0)
            byBlob = Self.filesByBlob(files)
            let wanted = byBlob
            let key = self.key
            let log = self.log
            arrived = { (id, stored) throws(VaultError) in
                guard let files = wanted[id] else { return }
                try await Self.deliver(files, stored: stored, key: key, log: log, to: delivery)
            }
        }
        _ = try await objects(missingBlobs, writer: writer, counter: pull.counter, keep: false, arrived: arrived)
        if let delivery {
            for id in missingBlobs { byBlob[id] = nil }
            try await deliverLocal(byBlob, writer: writer, delivery: delivery)
        }
        try promote(pull, refID: refID, headID: headID)
        return try commit(headID)
    }

    /// The files of a commit grouped by blob (one blob can back several paths).
    private static func filesByBlob(_ files: [VaultFile]) -> [String: [VaultFile]] {
        var byBlob: [String: [VaultFile]] = [:]
        for file in files { byBlob[file.blobID, default: []].append(file) }
        return byBlob
    }

    /// Hands over files whose blobs are already local (cached, or in this pull's pack), several at once.
    private func deliverLocal(
        _ byBlob: [String: [VaultFile]], writer: PackWriter?,
        delivery: @escaping @Sendable (VaultFile, Data) async -> Void
    ) async throws(VaultError) {
        guard !byBlob.isEmpty else { return }
        let key = self.key
        let log = self.log
        let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let outcome: VaultError? = await withTaskGroup(of: VaultError?.self) { group in
            var pending = byBlob.makeIterator()
            func addNext() {
                guard let (id, files) = pending.next() else { return }
                group.addTask {
                    do throws(VaultError) {
                        let stored: Data
                        if let writer, writer.contains(id) {
                            guard let data = writer.object(id) else {
                                throw VaultError.cache(reason: "a staged object vanished")
                            }
                            try Self.verify(id, data, log: log)
                            stored = data
                        } else {
                            stored = try await self.blob(id, of: files.first?.path ?? "")
                        }
                        try await Self.deliver(files, stored: stored, key: key, log: log, to: delivery)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            for _ in 0..<width { addNext() }
            while let next = await group.next() {
                if let error = next {
                    group.cancelAll()
                    return error
                }
                addNext()
            }
            return nil
        }
        if let outcome { throw outcome }
    }

    /// Decrypts one verified blob once and hands it over for each of its files, after checking each file's size
    /// and content hash.
    private static func deliver(
        _ files: [VaultFile], stored: Data, key: VaultKey, log: VaultTrafficLog,
        to delivery: @Sendable (VaultFile, Data) async -> Void
    ) async throws(VaultError) {
        guard let first = files.first else { return }
        let limit = (files.map(\.size).max() ?? first.size) + 1
        let plain = try decrypt(stored, path: "bare/data/" + first.blobID, key: key, log: log, inflateLimit: limit)
        for file in files {
            try check(plain, of: file, log: log)
            await delivery(file, plain)
        }
    }

    /// What one pull has fetched and verified so far, before anything is promoted into the cache.
    private struct PullStaging {
        /// This pull's pack: every object it fetched and verified (pack members, blobs), appended as it arrives.
        let writer: PackWriter
        /// Progress reporting.
        let counter: ProgressCounter
        /// Decrypted-walk objects held in memory (commits and trees only).
        var staged: [String: Data] = [:]
        /// Pack zips read in this pull.
        var newPacks: Set<String> = []
        /// New commits, newest first.
        var newCommits: [String] = []
        /// Their parsed records.
        var commitRecords: [String: VaultFormat.CommitRecord] = [:]
        /// New trees, parents before children.
        var treeOrder: [String] = []
        /// Blobs the new trees name that are not cached.
        var blobIDs: [String] = []
    }

    /// The ref file to read: the default branch's (derived from the key), or a named branch's from the index.
    private func resolveRef(branch: String?) async throws(VaultError) -> (String, VaultFormat.BranchIndex?) {
        guard let branch, branch != "current" else {
            log.record(.keyDerivation, path: key.refFileID, detail: "ref file id = HMAC-SHA256(read key, ref domain)")
            return (key.refFileID, nil)
        }
        let index = try await fetchIndex()
        guard let found = index?.branches.first(where: { $0.isNamed && $0.name == branch }) else {
            throw .branchNotFound(name: branch)
        }
        guard LocalFolderVaultSource.isSafeFileID(found.headRefID), found.headRefID.hasPrefix("ref-") else {
            throw .invalidIdentifier("ref id in branch index")
        }
        return ("bare/refs/" + found.headRefID, index)
    }

    /// 2. Pack vaults: reads the zips not read before; their members become staged objects.
    private func readPacks(into pull: inout PullStaging) async throws(VaultError) {
        for prefix in ["bare/packs/snapshots/", "bare/packs/commits/"] {
            let names = try await listed(prefix)
            for name in names where !state.packs.contains(name) && name.hasSuffix(".zip") {
                guard let zip = try await fetchRaw(name) else { throw .objectMissing(id: name) }
                pull.counter.add(objects: 1, bytes: zip.count)
                for member in try VaultPack.members(of: zip, name: name) where !cache.contains(member.objectID) {
                    try verify(member.objectID, member.stored)
                    try pull.writer.append(member.objectID, member.stored)
                }
                pull.newPacks.insert(name)
            }
        }
    }

    /// 3. Commits, across all parents, stopping at commits whose history is cached.
    private func walkCommits(from headID: String, into pull: inout PullStaging) async throws(VaultError) {
        var frontier = [headID]
        var seen: Set<String> = [headID]
        while !frontier.isEmpty {
            let fetched = try await objects(frontier, writer: pull.writer, counter: pull.counter)
            var next: [String] = []
            for id in frontier {
                guard let stored = fetched[id] else { throw .objectMissing(id: id) }
                pull.staged[id] = stored
                let record = try VaultFormat.parseCommit(decrypt(stored, path: "bare/data/" + id), path: id)
                pull.commitRecords[id] = record
                pull.newCommits.append(id)
                for parent in record.parents where !seen.contains(parent) && !state.complete.contains(parent) {
                    seen.insert(parent)
                    next.append(parent)
                }
            }
            frontier = next
        }
    }

    /// 4. Trees of the new commits, skipping sub-trees already cached (their closure is cached too), unless a
    ///    damaged pack was dropped since the last pull (`rewalk`): then cached trees are walked too.
    private func walkTrees(into pull: inout PullStaging) async throws(VaultError) {
        let rewalk = state.rewalk == true
        var seenTrees: Set<String> = []
        var seenBlobs: Set<String> = []
        var frontier: [String] = []
        for id in pull.newCommits {
            if let tree = pull.commitRecords[id]?.treeID, rewalk || !cache.contains(tree),
                seenTrees.insert(tree).inserted
            {
                frontier.append(tree)
            }
        }
        while !frontier.isEmpty {
            let fetched = try await objects(frontier, writer: pull.writer, counter: pull.counter)
            var next: [String] = []
            for id in frontier {
                guard let stored = fetched[id] else { throw .objectMissing(id: id) }
                pull.staged[id] = stored
                pull.treeOrder.append(id)
                let entries = try VaultFormat.parseTree(decrypt(stored, path: "bare/data/" + id), path: id)
                treeMemo[id] = entries
                for entry in entries {
                    switch entry.kind {
                    case .folder(let tree):
                        if rewalk || !cache.contains(tree), seenTrees.insert(tree).inserted { next.append(tree) }
                    case .file(let blob, _, _, _, _):
                        if !cache.contains(blob), seenBlobs.insert(blob).inserted { pull.blobIDs.append(blob) }
                    }
                }
            }
            frontier = next
        }
    }

    /// 6. Appends the new commits and trees to the pull's pack, commits the pack (its index is written last, so
    ///    the pack joins the cache whole or not at all), then saves the state.
    private func promote(_ pull: PullStaging, refID: String, headID: String) throws(VaultError) {
        for (id, data) in pull.staged where !cache.contains(id) { try pull.writer.append(id, data) }
        try cache.commit(pull.writer)
        var updated = state
        updated.rewalk = nil
        updated.heads[refID] = headID
        updated.lastRef = refID
        updated.complete.formUnion(pull.newCommits)
        updated.packs.formUnion(pull.newPacks)
        try cache.saveState(updated)
        state = updated
        filesMemo = nil
        pull.counter.finish()
    }

    /// The named branches listed in the vault's branch index (fetched, never cached).
    public func branches() async throws(VaultError) -> [VaultBranch] {
        guard let index = try await fetchIndex() else {
            return [VaultBranch(name: "current", refFileID: key.refFileID)]
        }
        return index.branches.filter(\.isNamed).map {
            VaultBranch(name: $0.name, refFileID: "bare/refs/" + $0.headRefID)
        }
    }

    // MARK: Reading the pulled commit

    /// Every file of the pulled head, sorted by path.
    public func files() async throws(VaultError) -> [VaultFile] {
        guard let head else { throw .notPulled }
        return try filesIndex(head).files
    }

    /// Every file of an older commit (one `history` returned), sorted by path.
    public func files(at commitID: String) async throws(VaultError) -> [VaultFile] {
        guard head != nil else { throw .notPulled }
        guard VaultFormat.isObjectID(commitID) else { throw .invalidIdentifier("commit id") }
        return try filesIndex(commitID).files
    }

    /// The exact bytes of the file at `path` in the pulled head, after checking its size and content hash.
    public func read(_ path: String) async throws(VaultError) -> Data {
        guard let head else { throw .notPulled }
        guard let file = try filesIndex(head).index[path] else { throw .pathNotFound(path: path) }
        return try await read(file)
    }

    /// The bytes of the file at `path` in an older commit, checked like `read(_:)`.
    public func read(_ path: String, at commitID: String) async throws(VaultError) -> Data {
        guard head != nil else { throw .notPulled }
        guard VaultFormat.isObjectID(commitID) else { throw .invalidIdentifier("commit id") }
        guard let file = try filesIndex(commitID).index[path] else { throw .pathNotFound(path: path) }
        return try await read(file)
    }

    /// The bytes of `file` (from `files()`), checked against its recorded size and content hash.
    ///
    /// It runs off the actor, so several files can be read at once. A cached blob that fails its content address
    /// is dropped from the cache (the error is thrown), so the next read fetches it again.
    public nonisolated func read(_ file: VaultFile) async throws(VaultError) -> Data {
        let stored = try await blob(file.blobID, of: file.path)
        let plain = try Self.decrypt(
            stored, path: "bare/data/" + file.blobID, key: key, log: log, inflateLimit: file.size + 1)
        try Self.check(plain, of: file, log: log)
        return plain
    }

    /// A blob's stored bytes, checked against its content address: from the cache, or fetched (and cached) when the
    /// cache lacks it. A cached copy that fails the check is dropped before the error is thrown, so the next read
    /// or pull fetches it again.
    private nonisolated func blob(_ id: String, of path: String) async throws(VaultError) -> Data {
        let objectPath = "bare/data/" + id
        if cache.contains(id), let cached = cache.object(id) {
            log.record(.cacheHit, path: objectPath, bytes: cached.count, detail: "blob of \(path)")
            do throws(VaultError) {
                try Self.verify(id, cached, log: log)
            } catch {
                cache.discard(id)
                throw error
            }
            return cached
        }
        guard let fetched = try await fetchRaw(objectPath) else { throw .objectMissing(id: id) }
        try Self.verify(id, fetched, log: log)
        try cache.store(id, fetched)
        return fetched
    }

    /// Checks decrypted bytes against the size and content hash `file` records.
    private static func check(_ plain: Data, of file: VaultFile, log: VaultTrafficLog) throws(VaultError) {
        let started = ContinuousClock.now
        guard plain.count == file.size else {
            log.record(.error, path: file.path, bytes: plain.count, detail: "size mismatch")
            throw .integrity(path: file.path, reason: "size \(plain.count), recorded \(file.size)")
        }
        let hash = VaultHex.encode(VaultCrypto.sha256(plain))
        guard !file.contentHash.isEmpty, hash.hasPrefix(file.contentHash.lowercased()) else {
            log.record(.error, path: file.path, bytes: plain.count, detail: "content hash mismatch")
            throw .integrity(path: file.path, reason: "content hash differs from the recorded one")
        }
        log.record(
            .verify, path: file.path, bytes: plain.count, durationMs: VaultKey.milliseconds(since: started),
            detail: "size and content hash match")
    }

    /// The first-parent chain from the pulled head, newest first, at most `limit` commits, messages decrypted.
    public func history(limit: Int = .max) async throws(VaultError) -> [VaultCommit] {
        guard let head else { throw .notPulled }
        var result: [VaultCommit] = []
        var next: String? = head
        var seen: Set<String> = []
        while let id = next, result.count < limit, seen.insert(id).inserted {
            let commit = try commit(id)
            result.append(commit)
            next = commit.parents.first
        }
        return result
    }

    // MARK: Internals

    private func filesIndex(_ commitID: String) throws(VaultError) -> (files: [VaultFile], index: [String: VaultFile]) {
        if let memo = filesMemo, memo.head == commitID { return (memo.files, memo.index) }
        let root = try commitRecord(commitID).treeID
        var files: [VaultFile] = []
        try flatten(tree: root, prefix: "", into: &files, depth: 0)
        files.sort { $0.path < $1.path }
        var index: [String: VaultFile] = [:]
        for file in files { index[file.path] = file }
        if commitID == head { filesMemo = (commitID, files, index) }
        return (files, index)
    }

    private func flatten(tree: String, prefix: String, into files: inout [VaultFile], depth: Int) throws(VaultError) {
        guard depth < 256 else { throw .malformedObject(path: tree, reason: "trees nested too deep") }
        for entry in try treeEntries(tree) {
            switch entry.kind {
            case .folder(let sub):
                try flatten(
                    tree: sub, prefix: entryPath(entry, in: tree, prefix: prefix), into: &files, depth: depth + 1)
            case .file:
                files.append(try vaultFile(entry, in: tree, prefix: prefix))
            }
        }
    }

    /// The path of `entry` of `tree` in a folder at `prefix` (`""` at the root), its name checked.
    private func entryPath(
        _ entry: VaultFormat.TreeEntryRecord, in tree: String, prefix: String
    ) throws(VaultError) -> String {
        let name = try VaultFormat.openField(entry.nameEnc, key: key.readKey, path: "bare/data/" + tree)
        guard VaultFormat.isSafeName(name) else { throw .invalidIdentifier("entry name in tree") }
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// The file a file entry of `tree` describes, in a folder at `prefix`.
    private func vaultFile(
        _ entry: VaultFormat.TreeEntryRecord, in tree: String, prefix: String
    ) throws(VaultError) -> VaultFile {
        let treePath = "bare/data/" + tree
        guard case .file(let blob, let sizeEnc, let hashEnc, let typeEnc, let large) = entry.kind else {
            throw .malformedObject(path: treePath, reason: "a folder where a file was expected")
        }
        let path = try entryPath(entry, in: tree, prefix: prefix)
        let sizeText = try VaultFormat.openField(sizeEnc, key: key.readKey, path: treePath)
        guard let size = Int(sizeText), size >= 0 else {
            throw .malformedObject(path: treePath, reason: "size is not a number")
        }
        let hash = try hashEnc.map { (value) throws(VaultError) in
            try VaultFormat.openField(value, key: key.readKey, path: treePath)
        }
        let type = try typeEnc.map { (value) throws(VaultError) in
            try VaultFormat.openField(value, key: key.readKey, path: treePath)
        }
        return VaultFile(
            path: path, size: size, blobID: blob, contentType: type ?? "application/octet-stream",
            contentHash: hash ?? "", isLarge: large)
    }

    private func treeEntries(_ id: String) throws(VaultError) -> [VaultFormat.TreeEntryRecord] {
        if let memo = treeMemo[id] { return memo }
        let path = "bare/data/" + id
        guard let stored = cache.object(id) else { throw .objectMissing(id: id) }
        log.record(.cacheHit, path: path, bytes: stored.count, detail: "tree")
        try verify(id, stored)
        let entries = try VaultFormat.parseTree(decrypt(stored, path: path), path: id)
        treeMemo[id] = entries
        return entries
    }

    private func commitRecord(_ id: String) throws(VaultError) -> VaultFormat.CommitRecord {
        let path = "bare/data/" + id
        guard let stored = cache.object(id) else { throw .objectMissing(id: id) }
        log.record(.cacheHit, path: path, bytes: stored.count, detail: "commit")
        try verify(id, stored)
        return try VaultFormat.parseCommit(decrypt(stored, path: path), path: id)
    }

    private func commit(_ id: String) throws(VaultError) -> VaultCommit {
        let record = try commitRecord(id)
        var message = record.plainMessage ?? ""
        if let encrypted = record.messageEnc {
            message = try VaultFormat.openField(encrypted, key: key.readKey, path: "bare/data/" + id)
        }
        return VaultCommit(
            id: id, treeID: record.treeID, parents: record.parents, timestampMs: record.timestampMs,
            message: message, branchID: record.branchID)
    }

    private func fetchIndex() async throws(VaultError) -> VaultFormat.BranchIndex? {
        let path = key.branchIndexFileID
        guard let stored = try await fetchRaw(path) else { return nil }
        return try VaultFormat.parseBranchIndex(decrypt(stored, path: path), path: path)
    }

    private func listed(_ prefix: String) async throws(VaultError) -> [String] {
        let started = ContinuousClock.now
        do throws(VaultError) {
            let names = try await source.list(vaultID: vaultID, prefix: prefix)
            log.record(
                .request, path: prefix, durationMs: VaultKey.milliseconds(since: started), status: 200,
                detail: "list, \(names.count) files")
            for name in names where !LocalFolderVaultSource.isSafeFileID(name) {
                throw VaultError.invalidIdentifier("listed file id")
            }
            return names
        } catch {
            log.record(
                .error, path: prefix, durationMs: VaultKey.milliseconds(since: started), status: error.httpStatus,
                detail: "list failed")
            throw error
        }
    }

    /// One GET through the source, logged; `nil` on 404.
    private nonisolated func fetchRaw(_ fileID: String) async throws(VaultError) -> Data? {
        try await Self.fetch(fileID, vaultID: vaultID, source: source, log: log)
    }

    private static func fetch(
        _ fileID: String, vaultID: String, source: any VaultSource, log: VaultTrafficLog
    ) async throws(VaultError) -> Data? {
        let started = ContinuousClock.now
        let response: VaultResponse
        do {
            response = try await source.read(vaultID: vaultID, fileID: fileID)
        } catch {
            var status: Int?
            if case .httpStatus(_, let code) = error { status = code }
            log.record(
                .error, path: fileID, durationMs: VaultKey.milliseconds(since: started), status: status,
                detail: "request failed")
            throw error
        }
        log.record(
            .request, path: fileID, bytes: response.body?.count ?? 0,
            durationMs: VaultKey.milliseconds(since: started), status: response.status, detail: "GET \(source.label)")
        return response.body
    }

    /// Fetches `ids` (object ids) through the source: one GET each, or one batch when the source batches.
    private static func fetchObjects(
        _ ids: [String], vaultID: String, source: any VaultSource, log: VaultTrafficLog
    ) async throws(VaultError) -> [String: Data] {
        if ids.count == 1, let id = ids.first {
            guard let data = try await fetch("bare/data/" + id, vaultID: vaultID, source: source, log: log) else {
                return [:]
            }
            return [id: data]
        }
        let started = ContinuousClock.now
        let fileIDs = ids.map { "bare/data/" + $0 }
        let responses: [String: VaultResponse]
        do {
            responses = try await source.readBatch(vaultID: vaultID, fileIDs: fileIDs)
        } catch {
            log.record(
                .error, path: "batch of \(ids.count)", durationMs: VaultKey.milliseconds(since: started),
                status: error.httpStatus, detail: "batch request failed")
            throw error
        }
        var result: [String: Data] = [:]
        var bytes = 0
        for id in ids {
            if let body = responses["bare/data/" + id]?.body {
                result[id] = body
                bytes += body.count
            }
        }
        log.record(
            .request, path: "bare/data/ (batch of \(ids.count))", bytes: bytes,
            durationMs: VaultKey.milliseconds(since: started), status: 200, detail: "batch \(source.label)")
        return result
    }

    /// One step of `objects`: a batch has arrived, or a share of one was verified and staged.
    private enum FetchStep: Sendable {
        case fetched([String: Data], ids: [String])
        case staged([(String, Data)])
    }

    /// How many arrived objects one staging task verifies, writes and hands on: small enough that a batch is spread
    /// over every core, large enough that a task is worth its scheduling.
    private static let stagingShare = 25

    /// Fetches the objects in `ids` concurrently (cache and this pull's pack first), verifying each fetched one and
    /// appending it to the pack, then passing it to `arrived`. Returns the stored bytes when `keep` is true.
    ///
    /// Requests and the work on what they bring run as separate tasks, so the next request goes out the moment one
    /// answer is in, and the server is never left waiting on the verification, writing or decryption of the last.
    private func objects(
        _ ids: [String], writer: PackWriter, counter: ProgressCounter, keep: Bool = true,
        arrived: (@Sendable (String, Data) async throws(VaultError) -> Void)? = nil
    ) async throws(VaultError) -> [String: Data] {
        var result: [String: Data] = [:]
        var toFetch: [String] = []
        for id in ids {
            guard VaultFormat.isObjectID(id) else { throw .invalidIdentifier("object id") }
            if cache.contains(id), let cached = cache.object(id) {
                log.record(.cacheHit, path: "bare/data/" + id, bytes: cached.count)
                if keep { result[id] = cached }
            } else if writer.contains(id) {
                if keep {
                    guard let data = writer.object(id) else {
                        throw .cache(reason: "a staged object vanished")
                    }
                    result[id] = data
                }
            } else {
                toFetch.append(id)
            }
        }
        guard !toFetch.isEmpty else { return result }
        let source = self.source
        let log = self.log
        let vaultID = self.vaultID
        let batch = max(1, source.batchSize)
        // Batches: 4 requests in flight, so the server always has the next one queued while earlier answers are
        // verified, written and decrypted.
        let width = batch > 1 ? min(maxConcurrentFetches, 4) : maxConcurrentFetches
        var chunks: [[String]] = []
        var start = 0
        while start < toFetch.count {
            chunks.append(Array(toFetch[start..<min(start + batch, toFetch.count)]))
            start += batch
        }
        let fetched: Result<[String: Data], VaultError> = await withTaskGroup(
            of: Result<FetchStep, VaultError>.self
        ) { group in
            var iterator = chunks.makeIterator()
            func fetchNext() {
                guard let chunk = iterator.next() else { return }
                group.addTask {
                    do throws(VaultError) {
                        let stored = try await Self.fetchObjects(chunk, vaultID: vaultID, source: source, log: log)
                        return .success(.fetched(stored, ids: chunk))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            func stage(_ share: [String], from stored: [String: Data]) {
                var items: [(String, Data)] = []
                for id in share { items.append((id, stored[id] ?? Data())) }
                let missing = share.filter { stored[$0] == nil }
                group.addTask {
                    do throws(VaultError) {
                        if let id = missing.first {
                            log.record(.error, path: "bare/data/" + id, status: 404, detail: "object missing")
                            throw VaultError.objectMissing(id: id)
                        }
                        for (id, data) in items {
                            try Self.verify(id, data, log: log)
                            try writer.append(id, data)
                            counter.add(objects: 1, bytes: data.count)
                            if let arrived { try await arrived(id, data) }
                        }
                        return .success(.staged(keep ? items : []))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<width { fetchNext() }
            var collected: [String: Data] = [:]
            while let next = await group.next() {
                switch next {
                case .success(.fetched(let stored, let ids)):
                    fetchNext()
                    var index = 0
                    while index < ids.count {
                        stage(Array(ids[index..<min(index + Self.stagingShare, ids.count)]), from: stored)
                        index += Self.stagingShare
                    }
                case .success(.staged(let items)):
                    for (id, data) in items { collected[id] = data }
                case .failure(let error):
                    group.cancelAll()
                    return .failure(error)
                }
            }
            return .success(collected)
        }
        switch fetched {
        case .success(let more): result.merge(more) { first, _ in first }
        case .failure(let error): throw error
        }
        return result
    }

    private func verify(_ id: String, _ stored: Data) throws(VaultError) {
        try Self.verify(id, stored, log: log)
    }

    private static func verify(_ id: String, _ stored: Data, log: VaultTrafficLog) throws(VaultError) {
        let started = ContinuousClock.now
        do {
            try VaultFormat.verifyContentAddress(id: id, stored: stored)
        } catch {
            log.record(.error, path: "bare/data/" + id, bytes: stored.count, detail: "content address mismatch")
            throw error
        }
        log.record(
            .verify, path: "bare/data/" + id, bytes: stored.count, durationMs: VaultKey.milliseconds(since: started),
            detail: "SHA-256 content address")
    }

    private func decrypt(_ stored: Data, path: String) throws(VaultError) -> Data {
        try Self.decrypt(stored, path: path, key: key, log: log)
    }

    private static func decrypt(
        _ stored: Data, path: String, key: VaultKey, log: VaultTrafficLog,
        inflateLimit: Int = VaultFormat.defaultInflateLimit
    ) throws(VaultError) -> Data {
        let started = ContinuousClock.now
        do {
            let (plain, compressed) = try VaultFormat.open(
                stored, key: key.readKey, path: path, inflateLimit: inflateLimit)
            log.record(
                .decrypt, path: path, bytes: plain.count, durationMs: VaultKey.milliseconds(since: started),
                detail: "AES-256-GCM\(compressed ? " + zlib" : ""), read key, \(stored.count) B → \(plain.count) B")
            return plain
        } catch {
            log.record(.error, path: path, bytes: stored.count, detail: "decrypt failed")
            throw error
        }
    }
}

/// Counts fetched objects and bytes across concurrent fetches and reports progress at most 10 times a second.
final class ProgressCounter: Sendable {
    private struct Counts {
        var objects = 0
        var bytes = 0
        var lastReport: ContinuousClock.Instant?
    }
    private let counts = Locked(Counts())
    private let started: ContinuousClock.Instant
    private let progress: (@Sendable (VaultPullProgress) -> Void)?

    init(started: ContinuousClock.Instant, progress: (@Sendable (VaultPullProgress) -> Void)?) {
        self.started = started
        self.progress = progress
    }

    func add(objects: Int, bytes: Int) {
        let now = ContinuousClock.now
        let report: VaultPullProgress? = counts.withLock { counts in
            counts.objects += objects
            counts.bytes += bytes
            if let last = counts.lastReport, now - last < .milliseconds(100) { return nil }
            counts.lastReport = now
            return VaultPullProgress(objects: counts.objects, bytes: counts.bytes, elapsed: (now - started).seconds)
        }
        if let report { progress?(report) }
    }

    func finish() {
        let now = ContinuousClock.now
        let report = counts.withLock {
            VaultPullProgress(objects: $0.objects, bytes: $0.bytes, elapsed: (now - started).seconds)
        }
        progress?(report)
    }
}
