import CompanionCore
import Foundation
import Testing

@testable import CompanionVault

/// Collects what `pull(eachFile:)` hands over, from concurrent calls.
final class HandedOver: Sendable {
    private let files = Locked<[String: Data]>([:])
    private let calls = Locked(0)

    var byPath: [String: Data] { files.withLock { $0 } }
    var count: Int { calls.withLock { $0 } }

    func receive(_ file: VaultFile, _ data: Data) {
        calls.withLock { $0 += 1 }
        files.withLock { $0[file.path] = data }
    }
}

/// `pull(eachFile:)`: every file of the head handed over once, checked, as its blob arrives; and the cache rules.
@Suite struct StreamingPullTests {
    let key: VaultKey
    let objects: URL

    init() throws {
        key = try VaultTestSupport.fixtureReadKey()
        objects = try VaultTestSupport.fixtureObjects()
    }

    @Test func everyFileOfTheHeadIsHandedOverOnceWithTheBytesReadGives() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let source = CountingSource(LocalFolderVaultSource(root: objects))
        let vault = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        let handed = HandedOver()
        let head = try await vault.pull { file, data in handed.receive(file, data) }
        #expect(head.message == "remove config")
        let files = try await vault.files()
        #expect(handed.count == files.count)
        #expect(Set(handed.byPath.keys) == Set(files.map(\.path)))
        for file in files {
            #expect(handed.byPath[file.path] == (try await vault.read(file)), "\(file.path)")
        }
        #expect(Set(source.requested).count == source.requested.count, "no object fetched twice")

        // Head unchanged: only the ref is fetched, and every file comes from the cache.
        source.reset()
        let again = HandedOver()
        try await vault.pull { file, data in again.receive(file, data) }
        #expect(source.requested == [key.refFileID])
        #expect(again.byPath == handed.byPath)
        #expect(again.count == files.count)
    }

    @Test func batchedSourceHandsOverTheSameBytes() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let plain = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: plain) }
        let batched = BatchingSource(inner: LocalFolderVaultSource(root: objects), batchSize: 3)
        let vault = try SGitVault(key: key, source: batched, cache: cache, log: VaultTrafficLog())
        let handed = HandedOver()
        try await vault.pull { file, data in handed.receive(file, data) }
        let reference = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: objects), cache: plain, log: VaultTrafficLog())
        try await reference.pull()
        for file in try await reference.files() {
            #expect(handed.byPath[file.path] == (try await reference.read(file)))
        }
        #expect(batched.batches > 1)
    }

    @Test func tamperedBlobStopsTheStreamingPullAndCachesNothing() async throws {
        let copy = try VaultTestSupport.copyOfFixtureObjects(tampering: "obj-cas-imm-1a761a52f61f", at: 20)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let vault = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: copy), cache: cache, log: VaultTrafficLog())
        let handed = HandedOver()
        await #expect(throws: VaultError.contentAddressMismatch(id: "obj-cas-imm-1a761a52f61f")) {
            try await vault.pull { file, data in handed.receive(file, data) }
        }
        #expect(VaultTestSupport.cachedObjects(cache).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("state.json").path))
        await #expect(throws: VaultError.notPulled) { try await vault.files() }
    }

    @Test func aCachedBlobFailingItsCheckIsDroppedAndFetchedAgain() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let vault = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: VaultTrafficLog())
        try await vault.pull()
        let file = try #require(try await vault.files().first { $0.path == "notes/todo.txt" })
        let good = try await vault.read(file)
        try VaultTestSupport.tamperCachedObject(cache, id: file.blobID, at: 14)
        await #expect(throws: VaultError.contentAddressMismatch(id: file.blobID)) { try await vault.read(file) }
        #expect(!VaultTestSupport.cachedObjects(cache).contains(file.blobID), "the bad copy is dropped")
        #expect(try await vault.read(file) == good, "and fetched again on the next read")
        #expect(VaultTestSupport.cachedObjects(cache).contains(file.blobID))
    }

    @Test func aBlobMissingFromTheCacheIsFetchedAgainByTheNextStreamingPull() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let source = CountingSource(LocalFolderVaultSource(root: objects))
        let vault = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        let first = HandedOver()
        try await vault.pull { file, data in first.receive(file, data) }
        let file = try #require(try await vault.files().first { $0.path == "README.md" })
        // Dropped from the pack index on disk; a new reader of the cache no longer has it.
        try VaultCache(root: cache).discard(file.blobID)
        let reopened = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
        source.reset()
        let second = HandedOver()
        try await reopened.pull { file, data in second.receive(file, data) }
        #expect(second.byPath == first.byPath)
        #expect(source.requested == [key.refFileID, "bare/data/" + file.blobID])
    }

    @Test func cachedObjectsArePrivateToTheUser() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let vault = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: VaultTrafficLog())
        try await vault.pull()
        #expect(!VaultTestSupport.cachedObjects(cache).isEmpty)
        let packs = VaultTestSupport.packFiles(cache)
        #expect(packs.contains { $0.hasSuffix(".pack") } && packs.contains { $0.hasSuffix(".idx") })
        for name in packs + ["../state.json"] {
            let path = cache.appendingPathComponent("packs/\(name)").path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
        }
        let folder = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent("packs").path)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }
}

/// A folder source that answers `readBatch` itself, in batches of `batchSize`, counting them.
final class BatchingSource: VaultSource {
    let inner: LocalFolderVaultSource
    let batchSize: Int
    private let count = Locked(0)

    init(inner: LocalFolderVaultSource, batchSize: Int) {
        self.inner = inner
        self.batchSize = batchSize
    }

    var label: String { "batching" }
    var batches: Int { count.withLock { $0 } }

    func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
        try await inner.read(vaultID: vaultID, fileID: fileID)
    }

    func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
        try await inner.list(vaultID: vaultID, prefix: prefix)
    }

    func readBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> [String: VaultResponse] {
        count.withLock { $0 += 1 }
        var result: [String: VaultResponse] = [:]
        for fileID in fileIDs { result[fileID] = try await inner.read(vaultID: vaultID, fileID: fileID) }
        return result
    }
}

/// The batch answer reader: the same items as `JSONDecoder` on plain answers, `nil` (so the decoder runs) on
/// anything unusual, and never a trap.
@Suite struct BatchAnswerTests {
    private typealias Answer = VaultBatchAnswer.Decoded

    @Test func readsWhatTheServerSends() throws {
        let payload = Data((0..<300).map { UInt8($0 & 0xFF) })
        let text = """
            {"vault_id": "benchvault", "results": [
              {"file_id": "bare/data/obj-cas-imm-000000000001", "status": "ok", "data": "\(payload.base64EncodedString())"},
              {"file_id": "bare/data/obj-cas-imm-000000000002", "status": "not_found"},
              {"status": "ok", "data": "!!", "file_id": "x", "extra": [1, -2.5e3, true, null, {"a": "b"}]}
            ], "count": 3}
            """
        let items = try #require(VaultBatchAnswer.parse(Data(text.utf8)))
        #expect(items.count == 3)
        #expect(items[0].fileID == "bare/data/obj-cas-imm-000000000001")
        #expect(items[0].status == "ok")
        #expect(items[0].data == payload)
        #expect(items[1].status == "not_found")
        #expect(items[1].data == nil && !items[1].hasData)
        #expect(items[2].hasData && items[2].data == nil, "present but not base64")
        let decoded = try JSONDecoder().decode(Answer.self, from: Data(text.utf8))
        #expect(decoded.results?.map(\.fileID) == items.map(\.fileID))
        #expect(decoded.results?.map(\.status) == items.map(\.status))
    }

    @Test func unusualAnswersAreLeftToTheGeneralDecoder() {
        let unusual = [
            #"{"results": [{"file_id": "a\/b", "status": "ok", "data": "AA=="}]}"#,
            #"{"results": [{"file_id": null, "status": "ok"}]}"#,
            #"{"results": [{"file_id": 7}]}"#,
            #"{"results": null}"#,
            #"[1, 2]"#,
            #"{"results": []} trailing"#,
            #"{"results": [}"#,
            "",
        ]
        for text in unusual { #expect(VaultBatchAnswer.parse(Data(text.utf8)) == nil, "\(text)") }
        #expect(VaultBatchAnswer.parse(Data(#"{}"#.utf8)) == [])
        #expect(VaultBatchAnswer.parse(Data(#" { "results" : [ ] } "#.utf8)) == [])
    }

    /// The answer's own base64 decoder gives what `Data(base64Encoded:)` gives on valid text; on noise it never
    /// accepts what Foundation refuses, and it refuses padding anywhere but at the end (Foundation takes `QU=D`).
    @Test func base64AgreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        func decoded(_ text: [UInt8]) -> Data? { text.withUnsafeBufferPointer { VaultBatchAnswer.base64($0) } }
        for length in 0..<70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let text = Array(bytes.base64EncodedString().utf8)
            #expect(decoded(text) == bytes, "\(length) bytes")
            guard !text.isEmpty else { continue }
            for _ in 0..<20 {
                var noisy = text
                noisy[Int.random(in: 0..<noisy.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                if Bool.random(using: &generator) { noisy.removeLast() }
                if let ours = decoded(noisy) {
                    #expect(ours == Data(base64Encoded: Data(noisy)), "\(String(decoding: noisy, as: UTF8.self))")
                }
            }
        }
        for text in ["", "AA==", "AAA=", "AB==", "AAB=", "QUJD", "QUJDRA==", "QUJDREU="] {
            #expect(decoded(Array(text.utf8)) == Data(base64Encoded: text), "\(text)")
        }
        for refused in ["=", "==", "====", "A===", "QU=D", "QUJD\n", "QUJ", "QU JD", "Q\u{0}JD"] {
            #expect(decoded(Array(refused.utf8)) == nil, "\(refused)")
        }
    }

    @Test func neverTrapsOnNoise() {
        let seed = Data(
            #"{"vault_id":"v","results":[{"file_id":"bare/data/obj-cas-imm-0","status":"ok","data":"QUJD"}]}"#.utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: index)
                default: bytes = bytes.prefix(index)
                }
                if bytes.isEmpty { break }
            }
            _ = VaultBatchAnswer.parse(bytes)
        }
        // Deep nesting is refused, not recursed into without bound.
        let deep = #"{"x": "# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        #expect(VaultBatchAnswer.parse(Data(deep.utf8)) == nil)
    }
}
