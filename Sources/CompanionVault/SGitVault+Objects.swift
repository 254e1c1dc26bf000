import CompanionCore
import Foundation

extension SGitVault {
    // MARK: Internals

    func filesIndex(_ commitID: String) throws(VaultError) -> (files: [VaultFile], index: [String: VaultFile]) {
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

    func flatten(tree: String, prefix: String, into files: inout [VaultFile], depth: Int) throws(VaultError) {
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
    func entryPath(
        _ entry: VaultFormat.TreeEntryRecord, in tree: String, prefix: String
    ) throws(VaultError) -> String {
        let name = try VaultFormat.openField(entry.nameEnc, key: key.readKey, path: "bare/data/" + tree)
        guard VaultFormat.isSafeName(name) else { throw .invalidIdentifier("entry name in tree") }
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// The file a file entry of `tree` describes, in a folder at `prefix`.
    func vaultFile(
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

    func treeEntries(_ id: String) throws(VaultError) -> [VaultFormat.TreeEntryRecord] {
        if let memo = treeMemo[id] { return memo }
        let path = "bare/data/" + id
        guard let stored = cache.object(id) else { throw .objectMissing(id: id) }
        log.record(.cacheHit, path: path, bytes: stored.count, detail: "tree")
        try verify(id, stored)
        let entries = try VaultFormat.parseTree(decrypt(stored, path: path), path: id)
        treeMemo[id] = entries
        return entries
    }

    func commitRecord(_ id: String) throws(VaultError) -> VaultFormat.CommitRecord {
        let path = "bare/data/" + id
        guard let stored = cache.object(id) else { throw .objectMissing(id: id) }
        log.record(.cacheHit, path: path, bytes: stored.count, detail: "commit")
        try verify(id, stored)
        return try VaultFormat.parseCommit(decrypt(stored, path: path), path: id)
    }

    func commit(_ id: String) throws(VaultError) -> VaultCommit {
        let record = try commitRecord(id)
        var message = record.plainMessage ?? ""
        if let encrypted = record.messageEnc {
            message = try VaultFormat.openField(encrypted, key: key.readKey, path: "bare/data/" + id)
        }
        return VaultCommit(
            id: id, treeID: record.treeID, parents: record.parents, timestampMs: record.timestampMs,
            message: message, branchID: record.branchID)
    }

    func fetchIndex() async throws(VaultError) -> VaultFormat.BranchIndex? {
        let path = key.branchIndexFileID
        guard let stored = try await fetchRaw(path) else { return nil }
        return try VaultFormat.parseBranchIndex(decrypt(stored, path: path), path: path)
    }

    /// `fetchIndex()` as a result, for a fetch started ahead of the moment it is needed.
    func fetchIndexResult() async -> Result<VaultFormat.BranchIndex?, VaultError> {
        do throws(VaultError) {
            return .success(try await fetchIndex())
        } catch {
            return .failure(error)
        }
    }

    func listed(_ prefix: String) async throws(VaultError) -> [String] {
        let started = ContinuousClock.now
        do throws(VaultError) {
            let listing = try await source.listing(vaultID: vaultID, prefix: prefix)
            log.record(
                .request, path: prefix, durationMs: VaultKey.milliseconds(since: started), status: listing.status,
                detail: "list, \(listing.files.count) files")
            for name in listing.files where !LocalFolderVaultSource.isSafeFileID(name) {
                throw VaultError.invalidIdentifier("listed file id")
            }
            return listing.files
        } catch {
            log.record(
                .error, path: prefix, durationMs: VaultKey.milliseconds(since: started), status: error.httpStatus,
                detail: "list failed")
            throw error
        }
    }

    /// One GET through the source, logged; `nil` on 404.
    nonisolated func fetchRaw(_ fileID: String) async throws(VaultError) -> Data? {
        try await Self.fetch(fileID, vaultID: vaultID, source: source, log: log)
    }

    static func fetch(
        _ fileID: String, vaultID: String, source: any VaultSource, log: VaultTrafficLog
    ) async throws(VaultError) -> Data? {
        let started = ContinuousClock.now
        let response: VaultResponse
        do {
            response = try await source.read(vaultID: vaultID, fileID: fileID)
        } catch {
            // A fetch the pull abandoned (the branch index fetched beside a ref that answered 404) did not fail:
            // only a real failure is an error event (P-VLOG-6).
            if !Task.isCancelled {
                log.record(
                    .error, path: fileID, durationMs: VaultKey.milliseconds(since: started), status: error.httpStatus,
                    detail: "request failed")
            }
            throw error
        }
        log.record(
            .request, path: fileID, bytes: response.body?.count ?? 0,
            durationMs: VaultKey.milliseconds(since: started), status: response.status, detail: "GET \(source.label)")
        return response.body
    }

    /// Fetches `ids` (object ids) through the source: one GET each, or one batch when the source batches.
    static func fetchObjects(
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
        let reply: VaultBatchReply
        do {
            reply = try await source.fetchBatch(vaultID: vaultID, fileIDs: fileIDs)
        } catch {
            log.record(
                .error, path: "batch of \(ids.count)", durationMs: VaultKey.milliseconds(since: started),
                status: error.httpStatus, detail: "batch request failed")
            throw error
        }
        var result: [String: Data] = [:]
        for id in ids {
            if let body = reply.responses["bare/data/" + id]?.body { result[id] = body }
        }
        // One request event per exchange, each with the status the server sent (P-VLOG-2); the time is the batch's.
        let durationMs = VaultKey.milliseconds(since: started)
        for exchange in reply.exchanges {
            log.record(
                .request, path: exchange.path, bytes: exchange.bytes, durationMs: durationMs, status: exchange.status,
                detail: "\(exchange.detail) \(source.label)")
        }
        return result
    }

    /// One step of `objects`: a batch has arrived, or a share of one was verified and staged.
    enum FetchStep: Sendable {
        case fetched([String: Data], ids: [String])
        case staged([(String, Data)])
    }

    /// How many arrived objects one staging task verifies, writes and hands on: small enough that a batch is spread
    /// over every core, large enough that a task is worth its scheduling.
    static let stagingShare = 25

    /// Fetches the objects in `ids` concurrently (cache and this pull's pack first), verifying each fetched one and
    /// appending it to the pack, then passing it to `arrived`. Returns the stored bytes when `keep` is true.
    ///
    /// Requests and the work on what they bring run as separate tasks, so the next request goes out the moment one
    /// answer is in, and the server is never left waiting on the verification, writing or decryption of the last.
    func objects(
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

    func verify(_ id: String, _ stored: Data) throws(VaultError) {
        try Self.verify(id, stored, log: log)
    }

    static func verify(_ id: String, _ stored: Data, log: VaultTrafficLog) throws(VaultError) {
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

    func decrypt(_ stored: Data, path: String) throws(VaultError) -> Data {
        try Self.decrypt(stored, path: path, key: key, log: log)
    }

    static func decrypt(
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
