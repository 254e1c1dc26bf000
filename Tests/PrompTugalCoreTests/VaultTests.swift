import CompanionCore
import CompanionTestSupport
import CompanionVault
import Foundation
import Testing

@testable import PrompTugalCore

/// The vault through the app: the session, the one network, the traffic log, the schedule mirror.
/// The fixture vault (FX) is served over HTTP by the stand-in (`PROMPTUGAL_URL`); the mirror vaults live on the real
/// SG/Send server (`SGIT_SERVER_URL`, made with `SGIT_CLI` by `MirrorVaults`).
/// Serialized: the tamper test switches a fault on a path the other tests read.
@MainActor @Suite(.serialized)
struct VaultTests {
    /// FX's documented test-only keys (P-OPEN-20): the fixture is public test data.
    struct Fixture {
        let readKeyString: String
        let readKeyHex: String
        let vaultKey: String
        let passphrase: String
        let writeKeyHex: String
        let head: String

        init() throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("CompanionVaultTests/Fixtures/sgit-vault/fixture.json")
            let json = try #require(JSONValue(data: try Data(contentsOf: url)))
            func text(_ key: String) throws -> String { try #require(json[key]?.stringValue) }
            readKeyString = try text("read_key_string")
            readKeyHex = try text("read_key_hex")
            vaultKey = try text("vault_key")
            passphrase = try text("passphrase")
            writeKeyHex = try text("write_key_hex")
            head = try text("head_commit_id")
        }

        var secrets: [String] { [readKeyString, readKeyHex, vaultKey, passphrase, writeKeyHex] }
    }

    struct Rig {
        let folder: URL
        let network: PrompTugalNetwork
        let log: VaultTrafficLog
        let keys: InMemoryKeyStore
        let session: VaultSession

        @MainActor
        init() throws {
            folder = try Scratch.folder("vault")
            network = PrompTugalNetwork(policy: .allowingInsecureLoopback)
            log = VaultTrafficLog(journal: network.journal)
            keys = InMemoryKeyStore()
            session = VaultSession(
                keyStore: keys, network: network, cacheFolder: folder.appendingPathComponent("vaults"), log: log)
        }
    }

    @Test("P-VAULT-1: a vault address without a server is https://dev.send.sgraph.ai")
    func defaultServer() {
        #expect(VaultAddress(vaultId: "abcd1234").server.absoluteString == "https://dev.send.sgraph.ai")
    }

    @Test(
        "P-VAULT-3, P-VAULT-4, P-VAULT-5, P-KEY-1: pasted text and a QR payload import the same key, kept under Face ID"
    )
    func importForms() throws {
        let fixture = try Fixture()
        let key = try VaultKey(importing: fixture.readKeyString)
        #expect(key.vaultID == "fixturevault01" && key.refFileID == "bare/refs/ref-pid-muw-3a5d094fc10e")
        for form in [
            fixture.readKeyString + "\n", "  " + fixture.readKeyString,  // a QR payload, a paste with spaces
            "\(fixture.readKeyHex):fixturevault01", "sgit_public_read_\(fixture.readKeyHex):fixturevault01",
            "sgit_rk1_\(fixture.readKeyHex):fixturevault01", fixture.vaultKey,
        ] {
            let rig = try Rig()
            defer { try? FileManager.default.removeItem(at: rig.folder) }
            let id = try rig.session.importKey(form, server: try StandIn.url())
            #expect(id == "fixturevault01")
            #expect(
                try VaultKey(importing: form.trimmingCharacters(in: .whitespacesAndNewlines)).refFileID == key.refFileID
            )
            #expect(rig.keys.entries().map(\.protection) == [.vaultKey])
        }
    }

    @Test("P-VAULT-6: malformed keys give typed errors that never echo key material")
    func malformed() throws {
        let fixture = try Fixture()
        let hex = fixture.readKeyHex
        for bad in [
            "sgit_private_read_\(hex.dropLast()):fixturevault01", "sgit_private_read_\(hex)0:fixturevault01",
            "sgit_private_read_\(hex.dropLast())z:fixturevault01", "sgit_private_read_\(hex)",
            "sgit_private_read_\(hex):AB", "sgit_private_read_\(hex):has space",
        ] {
            let rig = try Rig()
            defer { try? FileManager.default.removeItem(at: rig.folder) }
            do {
                try rig.session.importKey(bad, server: try StandIn.url())
                Issue.record("accepted \(bad.prefix(20))…")
            } catch let error as VaultError {
                #expect(
                    SecretScan.leaks(in: ["\(error)", error.localizedDescription], secrets: [String(hex.prefix(16))])
                        .isEmpty)
            }
            #expect(rig.session.vaults.isEmpty && rig.keys.entries().isEmpty)
        }
    }

    @Test("P-VAULT-2, P-VAULT-7, P-VAULT-12, P-VAULT-13, P-VAULT-14, P-OPEN-24: FX over HTTP through the app's network")
    func fixtureOverHTTP() async throws {
        let fixture = try Fixture()
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(fixture.readKeyString, server: try StandIn.url())
        let head = try await rig.session.pull(id)
        #expect(head.id == fixture.head && rig.session.vaults.first?.state == .open(head: fixture.head))
        let reader = try #require(rig.session.reader(id))
        let files = try await reader.files()
        #expect(files.map(\.path) == ["README.md", "assets/logo.bin", "notes/sub/deep.txt", "notes/todo.txt"])
        #expect(files.map(\.size) == [78, 300, 19, 20])
        #expect(try await reader.read("notes/todo.txt").count == 20)
        await #expect(throws: VaultError.pathNotFound(path: "config.json")) { try await reader.read("config.json") }
        #expect(
            try await reader.history(limit: 10).map(\.message) == [
                "remove config", "edit readme, add nested note", "add initial files", "init",
            ])
        #expect(try await reader.history(limit: 2).count == 2)
        // Every object read is a plain GET on the read route, without credentials; each is one Network entry and
        // one `request` event in the vault traffic log.
        let entries = NetworkEntry.entries(in: rig.network.journal)
        #expect(
            !entries.isEmpty
                && entries.allSatisfy { $0.method == "GET" && $0.url.contains("/api/vault/read/fixturevault01/") })
        #expect(entries.count == rig.log.count(of: .request))
        let headers = rig.network.journal.events.filter { $0.kind == .request }.compactMap { $0.fields["headers"] }
        #expect(
            headers.allSatisfy { !$0.lowercased().contains("authorization") && !$0.lowercased().contains("cookie") })
    }

    @Test("P-VAULT-8: a second pull with the head unchanged makes exactly one request, the ref")
    func secondPull() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        try await rig.session.pull(id)
        let before = NetworkEntry.entries(in: rig.network.journal).count
        try await rig.session.pull(id)
        let after = NetworkEntry.entries(in: rig.network.journal)
        #expect(after.count == before + 1 && after.last?.url.contains("bare%2Frefs%2F") == true)
    }

    @Test("P-VAULT-10, P-VLOG-6: a changed object is refused before decryption and never cached; one error event")
    func tampered() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let fixture = try Fixture()
        let id = try rig.session.importKey(fixture.readKeyString, server: try StandIn.url())
        // The head commit's stored bytes, replaced by the stand-in's garbage body.
        let path = "/api/vault/read/fixturevault01/bare%2Fdata%2F\(fixture.head)"
        try await StandIn.garbage(path)
        await #expect(throws: VaultError.self) { try await rig.session.pull(id) }
        try await StandIn.clear(path)
        #expect(rig.log.events.first?.kind == .error)
        // The cache keeps objects in packs (`packs/<name>.pack` and its index): a failed pull leaves none.
        let packs = try? FileManager.default.contentsOfDirectory(
            atPath: rig.folder.appendingPathComponent("vaults/fixturevault01/packs").path)
        #expect((packs ?? []).isEmpty, "\(fixture.head) and the rest are not cached")
    }

    @Test("P-VAULT-11, P-VLOG-6: a wrong read key is 'vault not found, never pushed, or wrong key' and keeps nothing")
    func wrongKey() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(
            String(repeating: "0f", count: 32) + ":fixturevault01", server: try StandIn.url())
        do {
            try await rig.session.pull(id)
            Issue.record("a wrong key pulled")
        } catch let error as VaultError {
            #expect(error.description.contains("not found, never pushed, or wrong key"))
        }
        #expect(rig.log.events.contains { $0.kind == .request && $0.status == 404 })
        #expect(rig.session.vaults.first?.state == .open(head: nil))
    }

    @Test("P-VAULT-15: unsafe names and ids are refused before a URL is built")
    func unsafeIDs() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let source = VaultNetworkSource(server: try StandIn.url(), network: rig.network)
        for bad in ["bare/../x", "", "bare//x", "./x"] {
            await #expect(throws: VaultError.invalidIdentifier("file id")) {
                try await source.read(vaultID: "fixturevault01", fileID: bad)
            }
        }
        await #expect(throws: VaultError.invalidIdentifier("vault id")) {
            try await source.read(vaultID: "../x", fileID: "bare/refs/x")
        }
        #expect(NetworkEntry.entries(in: rig.network.journal).isEmpty)
    }

    @Test("P-VAULT-18, P-KEY-2: the session lists open vaults; closing drops one; an unreadable key asks for import")
    func session() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        #expect(rig.session.vaults.map(\.id) == [id] && rig.session.reader(id) != nil)
        rig.session.close(id)
        #expect(rig.session.vaults.isEmpty && rig.session.reader(id) == nil)
        try rig.session.open(vaultID: id, server: try StandIn.url())
        #expect(rig.session.vaults.map(\.id) == [id])
        rig.keys.invalidate(.vaultRead(vaultID: id))
        try rig.session.open(vaultID: id, server: try StandIn.url())
        guard case .keyUnavailable(let sentence) = rig.session.vaults.first?.state else {
            Issue.record("expected the key-unavailable state")
            return
        }
        #expect(sentence.contains("Import it again") && rig.session.reader(id) == nil)
        #expect(throws: VaultSessionError.noKey("other001")) { try rig.session.open(vaultID: "other001") }
    }

    @Test("P-VLOG-1..5: kinds, fields, newest first, the cap, and the events of a full pull then a cached read")
    func trafficLog() async throws {
        #expect(
            VaultTrafficEvent.Kind.allCases.map(\.rawValue) == [
                "request", "cacheHit", "decrypt", "verify", "keyDerivation", "error",
            ])
        let capped = VaultTrafficLog()
        for index in 0..<2_500 { capped.record(.request, path: "p\(index)", status: 200) }
        #expect(
            capped.events.count == 2_000 && capped.events.first?.path == "p2499" && capped.events.last?.path == "p500")

        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        #expect(rig.log.count(of: .keyDerivation) >= 1)
        try await rig.session.pull(id)
        #expect(rig.log.count(of: .request) >= 1 && rig.log.count(of: .verify) >= 1 && rig.log.count(of: .decrypt) >= 1)
        #expect(rig.log.events.filter { $0.kind == .request }.allSatisfy { $0.status == 200 })
        #expect(rig.log.events.filter { $0.kind != .request && $0.kind != .error }.allSatisfy { $0.status == nil })
        #expect(Set(rig.log.events.map(\.id)).count == rig.log.events.count)
        let reader = try #require(rig.session.reader(id))
        _ = try await reader.read("README.md")
        let requests = rig.log.count(of: .request)
        let hits = rig.log.count(of: .cacheHit)
        _ = try await reader.read("README.md")
        #expect(rig.log.count(of: .request) == requests && rig.log.count(of: .cacheHit) > hits)
        #expect(rig.log.events.contains { $0.detail.contains("read key") })
    }

    @Test(
        "P-VLOG-7, P-KEY-3, P-SECRET-4: with FX's keys and an OpenRouter key, no log, panel, error or reply shows a key"
    )
    func scanEverything() async throws {
        let fixture = try Fixture()
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        rig.keys.save(KeyTests.openRouterKey, as: .openRouter, protection: .openRouter(biometric: false))
        var texts: [String] = []
        let id = try rig.session.importKey(fixture.readKeyString, server: try StandIn.url())
        try await rig.session.pull(id)
        let reader = try #require(rig.session.reader(id))
        _ = try await reader.files()
        _ = try await reader.read("README.md")
        _ = try await reader.history(limit: 10)
        do { _ = try await reader.read("missing.txt") } catch { texts.append("\(error)") }
        for bad in ["sgit_private_read_\(fixture.readKeyHex.dropLast()):fixturevault01", fixture.vaultKey + "!"] {
            do { _ = try VaultKey(importing: bad, log: rig.log) } catch { texts.append("\(error)") }
        }
        try rig.session.importKey(fixture.vaultKey, server: try StandIn.url())
        let wrong = try Rig()
        defer { try? FileManager.default.removeItem(at: wrong.folder) }
        let wrongID = try wrong.session.importKey(
            String(repeating: "0f", count: 32) + ":fixturevault01", server: try StandIn.url())
        do { try await wrong.session.pull(wrongID) } catch { texts.append("\(error)") }
        let sources = DebugSources(
            journal: rig.network.journal, vaultLog: rig.log, store: nil,
            vaultCaches: rig.folder.appendingPathComponent("vaults"),
            keyStore: rig.keys, build: BuildInfo(version: "1.0", build: "1", commit: "abc"))
        for panel in DebugPanel.allCases {
            texts += await sources.rows(panel).map { $0.title + " " + $0.detail }
        }
        texts += [rig.log, wrong.log].flatMap { log in
            log.events.map { "\($0.path) \($0.detail) \($0.kind) \($0.status ?? 0)" }
        }
        texts.append(String(decoding: rig.network.journal.exportJSONLines(), as: UTF8.self))
        texts.append(String(decoding: wrong.network.journal.exportJSONLines(), as: UTF8.self))
        texts += rig.session.vaults.map { "\($0)" }
        #expect(texts.count > 20)
        let leaks = SecretScan.leaks(in: texts, secrets: fixture.secrets + [KeyTests.openRouterKey])
        #expect(leaks.isEmpty, "\(leaks.count) texts leak a key")
    }

    // MARK: The schedule mirror on the real SG/Send server

    @Test("P-SCHED-20, P-SCHED-21, P-SCHED-19: the vault's apps/agenda/picks.json is merged by id after a pull")
    func mirrorMerged() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        #expect(ScheduleMirror.filePath(forWebPath: "agenda/picks") == "apps/agenda/picks.json")
        let id = try rig.session.importKey(try await MirrorVaults.keys().good, server: server)
        try await rig.session.pull(id)
        let store = ScheduleStore(clock: ManualWallClock(Date(timeIntervalSince1970: 1_794_100_000)))
        store.toggle("local-pick")
        let outcome = try await ScheduleMirror.merge(
            from: try #require(rig.session.reader(id)), into: store, log: rig.log)
        #expect(outcome == .merged(added: ["ai-doom-or-boom", "web-vault-pick"], skipped: 0))
        #expect(store.picks.map(\.id).sorted() == ["ai-doom-or-boom", "local-pick", "web-vault-pick"])
        #expect(NetworkEntry.entries(in: rig.network.journal).allSatisfy { $0.method == "GET" })
    }

    @Test("P-SCHED-21: a vault without the mirror leaves the schedule unchanged")
    func mirrorAbsent() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        try await rig.session.pull(id)
        let store = ScheduleStore(clock: ManualWallClock())
        store.toggle("mine")
        let outcome = try await ScheduleMirror.merge(
            from: try #require(rig.session.reader(id)), into: store, log: rig.log)
        #expect(outcome == .absent && store.picks.map(\.id) == ["mine"])
    }

    @Test("P-OPEN-10: a mirror that is not a schedule document changes nothing and logs an error; the pull succeeded")
    func mirrorMalformed() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let id = try rig.session.importKey(try await MirrorVaults.keys().broken, server: server)
        try await rig.session.pull(id)
        let store = ScheduleStore(clock: ManualWallClock())
        store.toggle("mine")
        guard
            case .malformed = try await ScheduleMirror.merge(
                from: try #require(rig.session.reader(id)), into: store, log: rig.log)
        else {
            Issue.record("expected malformed")
            return
        }
        #expect(store.picks.map(\.id) == ["mine"])
        #expect(rig.log.events.first?.kind == .error && rig.log.events.first?.path == "apps/agenda/picks.json")
    }
}

/// Vaults of the SG/Send server's test manifest (`SGIT_VAULTS_MANIFEST`), read through the app.
@MainActor
struct ManifestVaultTests {
    static func manifestVault(_ name: String) throws -> (key: String, vaultID: String) {
        let path = try TestServers.value("SGIT_VAULTS_MANIFEST")
        let json = try #require(JSONValue(data: try Data(contentsOf: URL(fileURLWithPath: path))))
        let vaults = json["vaults"]?.arrayValue ?? json.objectValue.map { Array($0.values) } ?? []
        let vault = try #require(vaults.first { $0["name"] == .string(name) })
        return (try #require(vault["key_string"]?.stringValue), try #require(vault["vault_id"]?.stringValue))
    }

    @Test("P-VAULT-17, P-VAULT-16, P-OPEN-24: a pack vault through the list route and the one network; v2 envelopes")
    func packVault() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let pack = try Self.manifestVault("pack")
        let folder = try Scratch.folder("pack")
        defer { try? FileManager.default.removeItem(at: folder) }
        let network = PrompTugalNetwork(policy: .allowingInsecureLoopback)
        let log = VaultTrafficLog(journal: network.journal)
        let session = VaultSession(keyStore: InMemoryKeyStore(), network: network, cacheFolder: folder, log: log)
        let id = try session.importKey(pack.key, server: server)
        try await session.pull(id)
        let reader = try #require(session.reader(id))
        let files = try await reader.files()
        #expect(!files.isEmpty)
        for file in files { _ = try await reader.read(file) }
        let entries = NetworkEntry.entries(in: network.journal)
        #expect(entries.contains { $0.url.contains("/api/vault/list/\(pack.vaultID)") && $0.status == 200 })
        #expect(entries.allSatisfy { $0.method == "GET" })
        // sgit 0.26 writes objects in the v2 envelope (zlib inside); FX's objects are v1 (fixtureOverHTTP).
        #expect(log.events.contains { $0.kind == .decrypt && $0.detail.contains("zlib") })
    }

    @Test("P-VAULT-9: a pull after new commits fetches only the new objects; none is fetched twice")
    func incrementalPull() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let work = try Scratch.folder("growing")
        defer { try? FileManager.default.removeItem(at: work) }
        let key = try #require(try await MirrorVaults.runScript(folder: work, ["--grow"]).first)
        let folder = try Scratch.folder("grow-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let network = PrompTugalNetwork(policy: .allowingInsecureLoopback)
        let session = VaultSession(
            keyStore: InMemoryKeyStore(), network: network, cacheFolder: folder, log: VaultTrafficLog())
        let id = try session.importKey(key, server: server)
        try await session.pull(id)
        let first = NetworkEntry.entries(in: network.journal).map(\.url)
        _ = try await MirrorVaults.runScript(folder: work, ["--grow"])
        try await session.pull(id)
        let second = Array(NetworkEntry.entries(in: network.journal).map(\.url).dropFirst(first.count))
        #expect(try await session.reader(id)?.files().map(\.path).contains("notes/n2.txt") == true)
        let objects = { (urls: [String]) in Set(urls.filter { $0.contains("bare%2Fdata%2F") }) }
        // The new commit, its new trees and the new blob: a few objects, none of the first pull's.
        #expect(!objects(second).isEmpty && objects(second).count < objects(first).count + 3)
        #expect(objects(first).isDisjoint(with: objects(second)))
        #expect(second.filter { $0.contains("bare%2Fdata%2F") }.count == objects(second).count)
    }
}
