import CompanionCore
import Foundation

extension SGitVault {
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
    nonisolated func blob(_ id: String, of path: String) async throws(VaultError) -> Data {
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
    static func check(_ plain: Data, of file: VaultFile, log: VaultTrafficLog) throws(VaultError) {
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
}
