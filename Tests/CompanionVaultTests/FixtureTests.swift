import CompanionCore
import Foundation
import Testing

@testable import CompanionVault

@Suite struct FixtureTests {
    let fixture: [String: Any]
    let key: VaultKey
    let objects: URL

    init() throws {
        fixture = try VaultTestSupport.fixtureJSON()
        key = try VaultTestSupport.fixtureReadKey()
        objects = try VaultTestSupport.fixtureObjects()
    }

    private var history: [[String: Any]] {
        (fixture["history_first_parent_newest_first"] as? [[String: Any]]) ?? []
    }

    @Test func pullFilesReadAndHistoryMatchTheFixture() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let log = VaultTrafficLog()
        let vault = try SGitVault(key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: log)
        let head = try await vault.pull()
        #expect(head.id == (try VaultTestSupport.string(fixture, "head_commit_id")))
        #expect(head.message == "remove config")

        let files = try await vault.files()
        #expect(files.map(\.path) == ["README.md", "assets/logo.bin", "notes/sub/deep.txt", "notes/todo.txt"])
        #expect(files.map(\.size) == [78, 300, 19, 20])

        // Every commit's every file reads back byte-identical.
        let commits = try await vault.history(limit: 10)
        #expect(
            commits.map(\.message) == ["remove config", "edit readme, add nested note", "add initial files", "init"])
        #expect(try await vault.history(limit: 2).count == 2)
        #expect(commits.count == history.count)
        for (commit, expected) in zip(commits, history) {
            #expect(commit.id == (expected["commit_id"] as? String))
            let expectedFiles = (expected["files"] as? [String: [String: Any]]) ?? [:]
            let actual = try await vault.files(at: commit.id)
            #expect(Set(actual.map(\.path)) == Set(expectedFiles.keys))
            for file in actual {
                let want = expectedFiles[file.path] ?? [:]
                #expect(file.blobID == (want["blob_id"] as? String))
                #expect(file.contentType == (want["content_type"] as? String))
                let bytes = try await vault.read(file.path, at: commit.id)
                #expect(bytes == Data(base64Encoded: (want["content_base64"] as? String) ?? "-"))
            }
        }
        await #expect(throws: VaultError.pathNotFound(path: "config.json")) { try await vault.read("config.json") }
    }

    @Test func secondPullWithUnchangedHeadFetchesOnlyTheRef() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let source = CountingSource(LocalFolderVaultSource(root: objects))
        let log = VaultTrafficLog()
        let vault = try SGitVault(key: key, source: source, cache: cache, log: log)
        try await vault.pull()
        let firstRound = source.requested
        #expect(Set(firstRound).count == firstRound.count, "no object fetched twice")
        #expect(firstRound.filter { $0.hasPrefix("bare/data/") }.count == 18)
        source.reset()
        try await vault.pull()
        #expect(source.requested == [key.refFileID])

        // A new actor on the same cache: also one request, and reads are cache hits.
        source.reset()
        log.clear()
        let reopened = try SGitVault(key: key, source: source, cache: cache, log: log)
        try await reopened.pull()
        _ = try await reopened.read("README.md")
        #expect(source.requested == [key.refFileID])
        #expect(log.count(of: .cacheHit) > 0)
        #expect(log.count(of: .request) == 1)
    }

    @Test func trafficLogRecordsEachStepAndNeverAKey() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let journal = Journal()
        let log = VaultTrafficLog(journal: journal)
        let key = try VaultKey(importing: VaultTestSupport.string(fixture, "vault_key"), log: log)
        let vault = try SGitVault(key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: log)
        try await vault.pull()
        for file in try await vault.files() { _ = try await vault.read(file.path) }
        _ = try await vault.history()
        // A failure too: a wrong key.
        let wrong = try VaultKey(readKey: Data(repeating: 7, count: 32), vaultID: "fixturevault01")
        let other = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: other) }
        let bad = try SGitVault(key: wrong, source: LocalFolderVaultSource(root: objects), cache: other, log: log)
        await #expect(throws: VaultError.vaultNotFound(vaultID: "fixturevault01")) { try await bad.pull() }

        #expect(log.count(of: .keyDerivation) >= 1)
        #expect(log.count(of: .request) >= 19)
        #expect(log.count(of: .verify) >= 18)
        #expect(log.count(of: .decrypt) >= 18)
        #expect(log.count(of: .error) >= 1)
        // Newest first: the wrong key's error is newer than every decryption of the good pull, and the oldest event is
        // the first key's import. (A cold pull asks for the ref and the branch index side by side, so the index's
        // request may be logged after the error.)
        let newestError = try #require(log.events.firstIndex { $0.kind == .error })
        let newestDecrypt = try #require(log.events.firstIndex { $0.kind == .decrypt })
        #expect(newestError < newestDecrypt, "newest first")
        #expect(log.events.last?.kind == .keyDerivation, "oldest last")

        let hex = try VaultTestSupport.string(fixture, "read_key_hex")
        let raw = VaultHex.decode(hex) ?? Data()
        let forbidden = [
            hex, hex.uppercased(), raw.base64EncodedString(),
            raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
            try VaultTestSupport.string(fixture, "read_key_string"), try VaultTestSupport.string(fixture, "vault_key"),
            try VaultTestSupport.string(fixture, "passphrase"), try VaultTestSupport.string(fixture, "write_key_hex"),
        ]
        let texts =
            log.events.flatMap { [$0.path, $0.detail, String(describing: $0)] }
            + journal.events.flatMap { [$0.message] + Array($0.fields.values) }
        for text in texts {
            for secret in forbidden { #expect(!text.contains(secret)) }
            #expect(!text.contains(hex.prefix(16)))
        }
    }

    @Test func logKeepsTheNewest2000() {
        let log = VaultTrafficLog()
        for index in 0..<2_500 { log.record(.request, path: "p\(index)") }
        let events = log.events
        #expect(events.count == 2_000)
        #expect(events.first?.path == "p2499")
        #expect(events.last?.path == "p500")
    }

    @Test func tamperedObjectIsRefusedAndNothingIsCached() async throws {
        let copy = try VaultTestSupport.copyOfFixtureObjects(tampering: "obj-cas-imm-1a761a52f61f", at: 20)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }

        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let log = VaultTrafficLog()
        let vault = try SGitVault(key: key, source: LocalFolderVaultSource(root: copy), cache: cache, log: log)
        await #expect(throws: VaultError.contentAddressMismatch(id: "obj-cas-imm-1a761a52f61f")) {
            try await vault.pull()
        }
        #expect(VaultTestSupport.cachedObjects(cache).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("state.json").path))
        #expect(log.events.contains { $0.kind == .error && $0.path.hasSuffix("obj-cas-imm-1a761a52f61f") })
        await #expect(throws: VaultError.notPulled) { try await vault.files() }
    }

    @Test func truncatedObjectIsRefused() async throws {
        let copy = try VaultTestSupport.copyOfFixtureObjects()
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let commit = copy.appendingPathComponent("bare/data/obj-cas-imm-5a21fda52a5b")
        try Data(try Data(contentsOf: commit).prefix(100)).write(to: commit)
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let vault = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: copy), cache: cache, log: VaultTrafficLog())
        await #expect(throws: VaultError.contentAddressMismatch(id: "obj-cas-imm-5a21fda52a5b")) {
            try await vault.pull()
        }
        #expect(VaultTestSupport.cachedObjects(cache).isEmpty)
    }

    @Test func tamperedCacheIsCaughtOnRead() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let vault = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: objects), cache: cache, log: VaultTrafficLog())
        try await vault.pull()
        let file = try #require(try await vault.files().first { $0.path == "notes/todo.txt" })
        try VaultTestSupport.tamperCachedObject(cache, id: file.blobID, at: 14)
        await #expect(throws: VaultError.contentAddressMismatch(id: file.blobID)) {
            try await vault.read("notes/todo.txt")
        }
    }

    @Test func wrongKeyIsVaultNotFoundAndLeavesNoState() async throws {
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let wrong = try VaultKey(readKey: Data(repeating: 1, count: 32), vaultID: "fixturevault01")
        let vault = try SGitVault(
            key: wrong, source: LocalFolderVaultSource(root: objects), cache: cache, log: VaultTrafficLog())
        await #expect(throws: VaultError.vaultNotFound(vaultID: "fixturevault01")) { try await vault.pull() }
        #expect(VaultTestSupport.cachedObjects(cache).isEmpty)
        #expect(VaultError.vaultNotFound(vaultID: "x").description.contains("never pushed, or wrong key"))
    }

    @Test func nestedServerLayoutIsReadToo() async throws {
        let root = try VaultTestSupport.scratch("layout")
        defer { try? FileManager.default.removeItem(at: root) }
        let nested = root.appendingPathComponent("api/vault/read/fixturevault01")
        try FileManager.default.createDirectory(
            at: nested.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: objects, to: nested)
        let cache = root.appendingPathComponent("cache")
        let vault = try SGitVault(
            key: key, source: LocalFolderVaultSource(root: root), cache: cache, log: VaultTrafficLog())
        #expect(try await vault.pull().message == "remove config")
    }
}

@Suite("Vault traffic log statuses")
struct VaultTrafficStatusTests {
    /// P-VLOG-2: on the real SG/Send server, a pack vault's listings and batches are each logged as a request with
    /// the status the server sent, and a refused read (the server's 400 for a vault id shorter than it allows) is an
    /// error event with that 400 and the server's own sentence. Every request event's status is one the server
    /// actually sent: the count of 200s equals the server's exchanges seen by the journal.
    @Test func everyRequestKindIsLoggedWithTheStatusTheServerSent() async throws {
        let environment = try ServerEnvironment()
        let pack = try environment.vault("pack")
        let cache = try VaultTestSupport.scratch()
        defer { try? FileManager.default.removeItem(at: cache) }
        let journal = Journal()
        let log = VaultTrafficLog(journal: journal)
        let source = HTTPVaultSource(
            server: environment.server, batchSize: 50, policy: .allowingInsecureLoopback, journal: journal)
        let vault = try SGitVault(key: VaultKey(importing: pack.keyString), source: source, cache: cache, log: log)
        try await vault.pull()
        let requests = log.events.filter { $0.kind == .request }
        let lists = requests.filter { $0.path.hasPrefix("bare/packs/") && $0.path.hasSuffix("/") }
        #expect(lists.count == 2 && lists.allSatisfy { $0.status == 200 })
        // What the server answered, exchange by exchange, from the client's own journal.
        let answered = journal.events.filter { $0.kind == .response }.compactMap { $0.fields["status"] }
        #expect(requests.compactMap(\.status).map(String.init).sorted() == answered.sorted())

        // A 4-character vault id passes the client's rule (4-24) and is refused by the server (8-24), in its words.
        let short = try SGitVault(
            key: VaultKey(readKey: Data(repeating: 7, count: 32), vaultID: "abcd"), source: source,
            cache: cache.appendingPathComponent("short"), log: log)
        await #expect(throws: VaultError.self) { try await short.pull() }
        // The ref and the branch index are asked for side by side: the refusal is the newest error, not always the
        // newest event.
        let refused = try #require(log.events.first { $0.kind == .error })
        #expect(refused.status == 400)
    }
}
