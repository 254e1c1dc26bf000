import CompanionCore
import Foundation

extension SGitVault {
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

    func pull(
        branch: String?, progress: (@Sendable (VaultPullProgress) -> Void)?,
        delivery: (@Sendable (VaultFile, Data) async -> Void)?
    ) async throws(VaultError) -> VaultCommit {
        let started = ContinuousClock.now
        let (refID, resolvedIndex) = try await resolveRef(branch: branch)
        var index = resolvedIndex
        // With nothing complete cached for this ref, the pull will walk, which needs the branch index: it is
        // fetched alongside the ref instead of one round trip after it. A pull that may find the head cached
        // still asks for the ref alone.
        let cold = state.heads[refID].map { !state.complete.contains($0) } ?? true
        let prefetch: Task<Result<VaultFormat.BranchIndex?, VaultError>, Never>? =
            index == nil && cold ? Task { await fetchIndexResult() } : nil
        defer { prefetch?.cancel() }

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
        if index == nil {
            let fetched = if let prefetch { await prefetch.value } else { await fetchIndexResult() }
            index = try fetched.get()
        }
        if let index, index.features.contains("packs") { try await readPacks(into: &pull) }
        try await walkCommits(from: headID, into: &pull)
        try await walkTrees(into: &pull)
        // 5. Blobs: verified and staged; when files are wanted, each is decrypted and handed over as it arrives.
        let missingBlobs = pull.blobIDs.filter { !writer.contains($0) }
        var arrived: (@Sendable (String, Data) async throws(VaultError) -> Void)?
        var filesTask: Task<Result<[String: [VaultFile]], VaultError>, Never>?
        if let delivery {
            guard let root = pull.commitRecords[headID]?.treeID else { throw .objectMissing(id: headID) }
            // The files (each entry's name, size and hashes decrypted) are worked out on this actor while the first
            // blob batches download, not before they are asked for: the blob ids are known from the walk.
            let files = Task { self.filesByBlob(root: root) }
            filesTask = files
            let key = self.key
            let log = self.log
            arrived = { (id, stored) throws(VaultError) in
                guard let files = try await files.value.get()[id] else { return }
                try await Self.deliver(files, stored: stored, key: key, log: log, to: delivery)
            }
        }
        _ = try await objects(missingBlobs, writer: writer, counter: pull.counter, keep: false, arrived: arrived)
        if let delivery, let filesTask {
            var byBlob = try await filesTask.value.get()
            for id in missingBlobs { byBlob[id] = nil }
            try await deliverLocal(byBlob, writer: writer, delivery: delivery)
        }
        try promote(pull, refID: refID, headID: headID)
        return try commit(headID)
    }

    /// The files under the tree `root` grouped by blob, as a result (for a task started ahead of its use).
    func filesByBlob(root: String) -> Result<[String: [VaultFile]], VaultError> {
        do throws(VaultError) {
            var files: [VaultFile] = []
            try flatten(tree: root, prefix: "", into: &files, depth: 0)
            return .success(Self.filesByBlob(files))
        } catch {
            return .failure(error)
        }
    }

    /// The files of a commit grouped by blob (one blob can back several paths).
    static func filesByBlob(_ files: [VaultFile]) -> [String: [VaultFile]] {
        var byBlob: [String: [VaultFile]] = [:]
        for file in files { byBlob[file.blobID, default: []].append(file) }
        return byBlob
    }

    /// Hands over files whose blobs are already local (cached, or in this pull's pack), several at once.
    func deliverLocal(
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
    static func deliver(
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
    struct PullStaging {
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
    func resolveRef(branch: String?) async throws(VaultError) -> (String, VaultFormat.BranchIndex?) {
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
    func readPacks(into pull: inout PullStaging) async throws(VaultError) {
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
    func walkCommits(from headID: String, into pull: inout PullStaging) async throws(VaultError) {
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
    func walkTrees(into pull: inout PullStaging) async throws(VaultError) {
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
        let key = self.key
        let log = self.log
        while !frontier.isEmpty {
            // Each fetched tree is decrypted and parsed as soon as its answer is in, by the task staging it (on any
            // core, while the level's other batches still download), not one after another once all have come.
            let parsed = ParsedTrees()
            let fetched = try await objects(
                frontier, writer: pull.writer, counter: pull.counter,
                arrived: { (id, stored) throws(VaultError) in
                    parsed.keep(
                        id,
                        try VaultFormat.parseTree(
                            Self.decrypt(stored, path: "bare/data/" + id, key: key, log: log), path: id))
                })
            var next: [String] = []
            for id in frontier {
                guard let stored = fetched[id] else { throw .objectMissing(id: id) }
                pull.staged[id] = stored
                pull.treeOrder.append(id)
                // A tree this pull did not fetch (staged or cached before) is parsed here.
                let entries: [VaultFormat.TreeEntryRecord]
                if let ready = parsed.entries(id) {
                    entries = ready
                } else {
                    entries = try VaultFormat.parseTree(decrypt(stored, path: "bare/data/" + id), path: id)
                }
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
    func promote(_ pull: PullStaging, refID: String, headID: String) throws(VaultError) {
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
}

/// Trees parsed by the tasks that staged them, by id.
final class ParsedTrees: Sendable {
    private let trees = Locked<[String: [VaultFormat.TreeEntryRecord]]>([:])

    func keep(_ id: String, _ entries: [VaultFormat.TreeEntryRecord]) { trees.withLock { $0[id] = entries } }

    func entries(_ id: String) -> [VaultFormat.TreeEntryRecord]? { trees.withLock { $0[id] } }
}
