import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import CompanionVault
import Foundation
import Testing

@testable import PrompTugalCore

/// The vault through the app: the session, the app's clients, the traffic log, the schedule mirror.
/// The fixture vault (FX) and the vaults crafted here are served over HTTP by the stand-in (`PROMPTUGAL_URL`);
/// the mirror vaults live on the real SG/Send server (`SGIT_SERVER_URL`, made with `SGIT_CLI` by `MirrorVaults`).
/// Serialized: the fault tests switch faults on paths the other tests read.
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
            let url = packageRoot.appendingPathComponent("Tests/CompanionVaultTests/Fixtures/sgit-vault/fixture.json")
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

    /// A rig with a vault session: the app's clients, one vault traffic log in the one journal, keys in memory.
    struct VaultRig {
        let rig: Rig
        let log: VaultTrafficLog
        let keys: InMemoryKeyStore
        let session: VaultSession

        var journal: Journal { rig.journal }
        var folder: URL { rig.folder.url }

        @MainActor
        static func make() async throws -> VaultRig {
            let rig = try await Rig.make()
            let log = VaultTrafficLog(journal: rig.journal)
            let keys = InMemoryKeyStore()
            let session = VaultSession(
                keyStore: keys, server: rig.server, cacheFolder: rig.folder.url.appendingPathComponent("vaults"),
                log: log)
            return VaultRig(rig: rig, log: log, keys: keys, session: session)
        }
    }

    @Test("P-VAULT-1: a vault address without a server is https://dev.send.sgraph.ai")
    func defaultServer() {
        #expect(VaultAddress(vaultId: "abcd1234").server.absoluteString == "https://dev.send.sgraph.ai")
        #expect(HTTPVaultSource.defaultServer.absoluteString == "https://dev.send.sgraph.ai")
    }

    @Test("P-VAULT-3, P-VAULT-4, P-VAULT-5: pasted text and a QR payload import the same key, kept under Face ID")
    func importForms() async throws {
        let fixture = try Fixture()
        let key = try VaultKey(importing: fixture.readKeyString)
        #expect(key.vaultID == "fixturevault01" && key.refFileID == "bare/refs/ref-pid-muw-3a5d094fc10e")
        for form in [
            fixture.readKeyString + "\n", "  " + fixture.readKeyString,  // a QR payload, a paste with spaces
            "\(fixture.readKeyHex):fixturevault01", "sgit_public_read_\(fixture.readKeyHex):fixturevault01",
            "sgit_rk1_\(fixture.readKeyHex):fixturevault01", fixture.vaultKey,
        ] {
            let vault = try await VaultRig.make()
            let head = try await vault.session.importKey(form, server: try StandIn.url())
            #expect(head.id == fixture.head)
            #expect(
                try VaultKey(importing: form.trimmingCharacters(in: .whitespacesAndNewlines)).refFileID == key.refFileID
            )
            #expect(vault.keys.entries().map(\.protection) == [.vaultKey])
        }
    }

    @Test("P-KEY-1: a key is stored only after a pull found its vault, under the name of what it can do")
    func importStoresOnlyAProvenKey() async throws {
        let fixture = try Fixture()
        let vault = try await VaultRig.make()
        // A wrong key and an unknown vault: the pull fails, nothing is stored, no vault is listed.
        for wrong in [String(repeating: "0f", count: 32) + ":fixturevault01", fixture.readKeyHex + ":othervault9"] {
            await #expect(throws: VaultError.self) {
                try await vault.session.importKey(wrong, server: try StandIn.url())
            }
        }
        #expect(vault.keys.entries().isEmpty && vault.session.vaults.isEmpty)
        // Importing the read key stores it, named by what it is.
        try await vault.session.importKey(fixture.readKeyString, server: try StandIn.url())
        #expect(vault.keys.entries().map(\.name) == [.vaultRead(vaultID: "fixturevault01")])
        #expect(KeyDescription.all(in: vault.keys).map(\.kind) == ["vault read key"])
    }

    @Test("Issue 38 item 7: a pasted vault key keeps only the read key phase 1 needs, derived once")
    func vaultKeyKeepsOnlyTheReadKey() async throws {
        let fixture = try Fixture()
        let vault = try await VaultRig.make()
        // A key of the other kind kept by an earlier version goes: one key per vault.
        vault.keys.save(fixture.vaultKey, as: .vault(vaultID: "fixturevault01"), protection: .vaultKey)
        try await vault.session.importKey(fixture.vaultKey, server: try StandIn.url())
        #expect(vault.keys.entries() == [KeyEntry(name: .vaultRead(vaultID: "fixturevault01"), protection: .vaultKey)])
        #expect(KeyDescription.all(in: vault.keys).map(\.kind) == ["vault read key"])
        // What is kept is FX's read key string: not the passphrase, which could also write.
        let kept = try #require(try vault.keys.load(.vaultRead(vaultID: "fixturevault01")))
        #expect(kept == fixture.readKeyString && !kept.contains(fixture.passphrase))
        let derivations = { vault.log.events.filter { $0.kind == .keyDerivation && $0.detail.contains("PBKDF2") } }
        #expect(derivations().count == 1)
        // The next launch opens and pulls the vault from the kept read key, deriving nothing.
        vault.session.close("fixturevault01")
        try vault.session.open(vaultID: "fixturevault01", server: try StandIn.url())
        #expect(try await vault.session.pull("fixturevault01").id == fixture.head)
        #expect(derivations().count == 1)
    }

    @Test("P-VAULT-6: malformed keys give typed errors that never echo key material")
    func malformed() async throws {
        let fixture = try Fixture()
        let hex = fixture.readKeyHex
        for bad in [
            "sgit_private_read_\(hex.dropLast()):fixturevault01", "sgit_private_read_\(hex)0:fixturevault01",
            "sgit_private_read_\(hex.dropLast())z:fixturevault01", "sgit_private_read_\(hex)",
            "sgit_private_read_\(hex):AB", "sgit_private_read_\(hex):has space",
        ] {
            let vault = try await VaultRig.make()
            do {
                try await vault.session.importKey(bad, server: try StandIn.url())
                Issue.record("accepted \(bad.prefix(20))…")
            } catch let error as VaultError {
                let texts = ["\(error)", error.localizedDescription, VaultSession.sentence(for: error)]
                #expect(SecretScan.leaks(in: texts, secrets: [String(hex.prefix(16))]).isEmpty)
            }
            #expect(vault.session.vaults.isEmpty && vault.keys.entries().isEmpty)
            #expect(NetworkEntry.entries(in: vault.journal).isEmpty)
        }
    }

    @Test("P-VAULT-2, P-VAULT-7, P-VAULT-12, P-VAULT-13, P-VAULT-14, P-OPEN-24: FX over HTTP through the app's clients")
    func fixtureOverHTTP() async throws {
        let fixture = try Fixture()
        let vault = try await VaultRig.make()
        let head = try await vault.session.importKey(fixture.readKeyString, server: try StandIn.url())
        let id = "fixturevault01"
        #expect(head.id == fixture.head && vault.session.vaults.first?.state == .open(head: fixture.head))
        let reader = try #require(vault.session.reader(id))
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
        let entries = NetworkEntry.entries(in: vault.journal)
        #expect(
            !entries.isEmpty
                && entries.allSatisfy { $0.method == "GET" && $0.url.contains("/api/vault/read/fixturevault01/") })
        #expect(entries.count == vault.log.count(of: .request))
        let seen = try await StandIn.requests(prefix: "/api/vault/read/fixturevault01/").suffix(entries.count)
        for request in seen {
            let headers = (request["headers"]?.objectValue ?? [:]).keys.map { $0.lowercased() }
            #expect(!headers.contains("authorization") && !headers.contains("cookie"))
        }
    }

    @Test("P-VAULT-13: a file whose size or content hash differs from its tree's record is an integrity error")
    func integrity() async throws {
        let folder = try TemporaryFolder(prefix: "crafted")
        let crafted = try CraftedVault(vaultID: "integrity\(Int.random(in: 1000...9999))", in: folder.url)
        try crafted.writeHead([
            .init(name: "good.txt", data: Data("good bytes".utf8)),
            .init(name: "size.txt", data: Data("twelve bytes".utf8), recordedSize: 13),
            .init(name: "hash.txt", data: Data("hashed bytes".utf8), recordedHash: "000000000000"),
        ])
        try await StandIn.serveVault(crafted)
        let vault = try await VaultRig.make()
        try await vault.session.importKey(crafted.keyString, server: try StandIn.url())
        let reader = try #require(vault.session.reader(crafted.vaultID))
        #expect(try await reader.read("good.txt") == Data("good bytes".utf8))
        for path in ["size.txt", "hash.txt"] {
            do {
                _ = try await reader.read(path)
                Issue.record("\(path) was returned")
            } catch {
                guard case .integrity(let failed, _) = error else {
                    Issue.record("\(path): expected an integrity error, got \(error)")
                    continue
                }
                #expect(failed == path)
            }
            #expect(vault.log.events.first?.kind == .error && vault.log.events.first?.path == path)
        }
    }

    @Test("P-VAULT-16: a v1 blob whose random IV starts with the v2 magic fails as v2 and reads as v1")
    func magicLookingV1() async throws {
        let folder = try TemporaryFolder(prefix: "crafted")
        let crafted = try CraftedVault(vaultID: "magic\(Int.random(in: 1000...9999))", in: folder.url)
        let text = Data("a v1 blob that looks like v2".utf8)
        try crafted.writeHead([
            .init(name: "m.txt", data: text, iv: Data([0x00, 0x73, 0x67, 0x7A, 0x31, 1, 2, 3, 4, 5, 6, 7]))
        ])
        try await StandIn.serveVault(crafted)
        let vault = try await VaultRig.make()
        try await vault.session.importKey(crafted.keyString, server: try StandIn.url())
        let reader = try #require(vault.session.reader(crafted.vaultID))
        #expect(try await reader.read("m.txt") == text)
        #expect(
            vault.log.events.contains {
                $0.kind == .decrypt && $0.path.hasPrefix("bare/data/") && !$0.detail.contains("zlib")
            })
    }

    @Test("P-VAULT-17: a pack vault's zips are found by listing; a changed member is refused, nothing is cached")
    func packMembersChecked() async throws {
        let folder = try TemporaryFolder(prefix: "crafted")
        let good = try CraftedVault(vaultID: "packgood\(Int.random(in: 1000...9999))", in: folder.url)
        try good.writeHead([.init(name: "p.txt", data: Data("packed".utf8))], packed: true)
        let bad = try CraftedVault(vaultID: "packbad\(Int.random(in: 1000...9999))", in: folder.url)
        try bad.writeHead([.init(name: "p.txt", data: Data("packed".utf8))], packed: true, tamper: "blob")
        try await StandIn.serveVault(good)
        try await StandIn.serveVault(bad)
        let vault = try await VaultRig.make()
        try await vault.session.importKey(good.keyString, server: try StandIn.url())
        #expect(try await vault.session.reader(good.vaultID)?.read("p.txt") == Data("packed".utf8))
        let lists = NetworkEntry.entries(in: vault.journal).filter {
            $0.url.contains("/api/vault/list/\(good.vaultID)")
        }
        #expect(lists.count == 2 && lists.allSatisfy { $0.status == 200 })
        #expect(!NetworkEntry.entries(in: vault.journal).contains { $0.url.contains("bare%2Fdata%2F") })
        do {
            try await vault.session.importKey(bad.keyString, server: try StandIn.url())
            Issue.record("a changed pack member was accepted")
        } catch let error as VaultError {
            guard case .contentAddressMismatch = error else {
                Issue.record("expected a content-address refusal, got \(error)")
                return
            }
        }
        #expect(vault.log.events.first?.kind == .error)
        #expect(
            vault.session.reader(bad.vaultID) == nil
                && !vault.keys.entries().contains { $0.name.vaultID == bad.vaultID })
        let packs = try? FileManager.default.contentsOfDirectory(
            atPath: vault.folder.appendingPathComponent("vaults/\(bad.vaultID)/packs").path)
        #expect((packs ?? []).isEmpty)
    }

    @Test("P-VAULT-8: a second pull with the head unchanged makes exactly one request, the ref")
    func secondPull() async throws {
        let vault = try await VaultRig.make()
        try await vault.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        let before = NetworkEntry.entries(in: vault.journal).count
        try await vault.session.pull("fixturevault01")
        let after = NetworkEntry.entries(in: vault.journal)
        #expect(after.count == before + 1 && after.last?.url.contains("bare%2Frefs%2F") == true)
    }

    @Test("P-VAULT-10, P-VLOG-6: a changed object is refused before decryption and never cached; one error event")
    func tampered() async throws {
        let folder = try TemporaryFolder(prefix: "crafted")
        let (crafted, head) = try await CraftedVault.served("tamper", in: folder.url)
        let vault = try await VaultRig.make()
        // The head commit's stored bytes, replaced by the stand-in's garbage body.
        try await StandIn.garbage(crafted.route("bare/data/" + head))
        await #expect(throws: VaultError.contentAddressMismatch(id: head)) {
            try await vault.session.importKey(crafted.keyString, server: try StandIn.url())
        }
        let errors = vault.log.events.filter { $0.kind == .error }
        #expect(errors.count == 1 && errors.first?.path == "bare/data/" + head)
        #expect(!vault.log.events.contains { $0.kind == .decrypt && $0.path == "bare/data/" + head })
        let packs = try? FileManager.default.contentsOfDirectory(
            atPath: vault.folder.appendingPathComponent("vaults/\(crafted.vaultID)/packs").path)
        #expect((packs ?? []).isEmpty, "\(head) and the rest are not cached")
        // The same vault, the fault gone: it pulls.
        #expect(try await vault.session.importKey(crafted.keyString, server: try StandIn.url()).id == head)
    }

    @Test("P-VAULT-11, P-VLOG-6: a wrong read key is 'vault not found, never pushed, or wrong key' and keeps nothing")
    func wrongKey() async throws {
        let vault = try await VaultRig.make()
        do {
            try await vault.session.importKey(
                String(repeating: "0f", count: 32) + ":fixturevault01", server: try StandIn.url())
            Issue.record("a wrong key pulled")
        } catch let error as VaultError {
            #expect(error.description.contains("not found, never pushed, or wrong key"))
        }
        // The ref and, on a cold pull, the branch index are fetched side by side; the index fetch abandoned when the
        // ref answers 404 is no failure. The ref's 404 is exactly one error event, with its path and status.
        let ref = try VaultKey(importing: String(repeating: "0f", count: 32) + ":fixturevault01").refFileID
        let errors = vault.log.events.filter { $0.kind == .error }
        #expect(errors.filter { $0.path == ref }.count == 1, "\(errors.map(\.path))")
        #expect(errors.first { $0.path == ref }?.status == 404)
        #expect(errors.allSatisfy { $0.path.hasPrefix("bare/") && $0.status == 404 }, "\(errors)")
        #expect(vault.session.vaults.isEmpty && vault.keys.entries().isEmpty)
        #expect(
            !FileManager.default.fileExists(
                atPath: vault.folder.appendingPathComponent("vaults/fixturevault01/packs").path))
    }

    @Test("P-VLOG-6: a GCM failure and a transport error are each one error event with the path")
    func failureEvents() async throws {
        let folder = try TemporaryFolder(prefix: "crafted")
        let crafted = try CraftedVault(vaultID: "gcmfail\(Int.random(in: 1000...9999))", in: folder.url)
        try crafted.writeHead([.init(name: "ok.txt", data: Data("ok".utf8))])
        // The ref now names an object that hashes right but is not encrypted under the key.
        let stray = try crafted.writeUndecryptable()
        try crafted.put(
            try crafted.key.refFileID,
            try crafted.seal(Data(JSONValue.object(["commit_id": .string(stray)]).jsonString().utf8)))
        try await StandIn.serveVault(crafted)
        let vault = try await VaultRig.make()
        await #expect(throws: VaultError.decryptionFailed(path: "bare/data/" + stray)) {
            try await vault.session.importKey(crafted.keyString, server: try StandIn.url())
        }
        let gcm = vault.log.events.filter { $0.kind == .error }
        #expect(gcm.count == 1 && gcm.first?.path == "bare/data/" + stray && gcm.first?.status == nil)
        // The connection is lost on the ref: a transport error, one event with the ref's path and no status.
        let (other, _) = try await CraftedVault.served("lost", in: folder.url)
        let ref = try other.key.refFileID
        let lost = try await VaultRig.make()
        try await StandIn.dropReply(other.route(ref), times: nil)
        await #expect(throws: VaultError.self) {
            try await lost.session.importKey(other.keyString, server: try StandIn.url())
        }
        try await StandIn.clear(other.route(ref))
        let transport = lost.log.events.filter { $0.kind == .error }
        #expect(transport.count == 1 && transport.first?.path == ref && transport.first?.status == nil)
    }

    @Test("P-VLOG-2: every request kind is logged with the status the server sent, not a made-up one")
    func trueStatuses() async throws {
        let vault = try await VaultRig.make()
        let standIn = try StandIn.url()
        let fixture = try Fixture()
        // Reads: FX through the app (200s).
        try await vault.session.importKey(fixture.readKeyString, server: standIn)
        let source = HTTPVaultSource(client: vault.rig.server.client(for: standIn), batchSize: 50)
        let log = VaultTrafficLog()
        let reader = try SGitVault(
            key: VaultKey(importing: fixture.readKeyString), source: source,
            cache: vault.folder.appendingPathComponent("batch"), log: log)
        // Batch on a static host: the POST is refused (the stand-in has no batch route), then one GET each.
        try await reader.pull()
        let refused = log.events.first { $0.path.hasPrefix("batch of") }
        #expect(refused?.kind == .request && refused?.status == 404 && refused?.detail.contains("POST batch") == true)
        // Lists: a crafted pack vault lists with 200; a refused listing is an error with the server's 503.
        let folder = try TemporaryFolder(prefix: "crafted")
        let crafted = try CraftedVault(vaultID: "lists\(Int.random(in: 1000...9999))", in: folder.url)
        try crafted.writeHead([.init(name: "l.txt", data: Data("listed".utf8))], packed: true)
        try await StandIn.serveVault(crafted)
        let packLog = VaultTrafficLog()
        let packed = try SGitVault(
            key: crafted.key, source: source, cache: vault.folder.appendingPathComponent("packed"), log: packLog)
        try await packed.pull()
        let listed = packLog.events.filter {
            $0.kind == .request && $0.path.hasPrefix("bare/packs/") && $0.path.hasSuffix("/")
        }
        #expect(listed.count == 2 && listed.allSatisfy { $0.status == 200 })
        try await StandIn.fail("/api/vault/list/\(crafted.vaultID)", status: 404, times: nil)
        let emptyLog = VaultTrafficLog()
        let emptyList = try SGitVault(
            key: crafted.key, source: source, cache: vault.folder.appendingPathComponent("empty"), log: emptyLog)
        await #expect(throws: VaultError.self) { try await emptyList.pull() }
        try await StandIn.clear("/api/vault/list/\(crafted.vaultID)")
        #expect(
            emptyLog.events.contains { $0.kind == .request && $0.path.hasPrefix("bare/packs/") && $0.status == 404 })
        // A refused read keeps its status: an error event with the server's 503.
        let refusedLog = VaultTrafficLog()
        let (refusing, refusedHead) = try await CraftedVault.served("refusing", in: folder.url)
        try await StandIn.fail(refusing.route("bare/data/" + refusedHead), status: 503)
        let other = try await Rig.make()
        let refusedReader = try SGitVault(
            key: refusing.key, source: HTTPVaultSource(client: other.server.client(for: standIn), batchSize: 1),
            cache: vault.folder.appendingPathComponent("refused"), log: refusedLog)
        await #expect(throws: VaultError.self) { try await refusedReader.pull() }
        #expect(refusedLog.events.first?.kind == .error && refusedLog.events.first?.status == 503)
        // Every status in the logs is one the server answered, exchange for exchange.
        let statuses = (vault.log.events + log.events + packLog.events + emptyLog.events).filter { $0.kind == .request }
            .compactMap(\.status)
        let answered = vault.journal.events.filter { $0.kind == .response }.compactMap {
            $0.fields["status"].flatMap { Int($0) }
        }
        #expect(statuses.sorted() == answered.sorted())
    }

    @Test("P-OPEN-17: a vault id the server refuses is shown with the server's own words")
    func serverRefusal() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let vault = try await VaultRig.make()
        do {
            try await vault.session.importKey(String(repeating: "ab", count: 32) + ":abcd", server: server)
            Issue.record("a 4-character vault id was accepted by the server")
        } catch let error as VaultError {
            guard case .refused(_, 400, let message) = error else {
                Issue.record("expected the server's refusal, got \(error)")
                return
            }
            #expect(!message.isEmpty && VaultSession.sentence(for: error).contains(message))
        }
        #expect(vault.log.events.contains { $0.status == 400 }, "the refusal's own status is logged")
    }

    @Test("P-VAULT-15: unsafe names and ids are refused before a URL is built")
    func unsafeIDs() async throws {
        let vault = try await VaultRig.make()
        let source = HTTPVaultSource(client: vault.rig.server.client(for: try StandIn.url()), batchSize: 1)
        for bad in ["bare/../x", "", "bare//x", "./x"] {
            await #expect(throws: VaultError.invalidIdentifier("file id")) {
                try await source.read(vaultID: "fixturevault01", fileID: bad)
            }
        }
        await #expect(throws: VaultError.invalidIdentifier("vault id")) {
            try await source.read(vaultID: "../x", fileID: "bare/refs/x")
        }
        #expect(NetworkEntry.entries(in: vault.journal).isEmpty)
    }

    @Test("P-VAULT-18, P-KEY-2: the session lists open vaults; closing drops one; an unreadable key asks for import")
    func session() async throws {
        let vault = try await VaultRig.make()
        let id = "fixturevault01"
        try await vault.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        #expect(vault.session.vaults.map(\.id) == [id] && vault.session.reader(id) != nil)
        vault.session.close(id)
        #expect(vault.session.vaults.isEmpty && vault.session.reader(id) == nil)
        try vault.session.open(vaultID: id, server: try StandIn.url())
        #expect(vault.session.vaults.map(\.id) == [id])
        vault.keys.invalidate(.vaultRead(vaultID: id))
        try vault.session.open(vaultID: id, server: try StandIn.url())
        guard case .keyUnavailable(let sentence) = vault.session.vaults.first?.state else {
            Issue.record("expected the key-unavailable state")
            return
        }
        #expect(sentence.contains("Import it again") && vault.session.reader(id) == nil)
        #expect(throws: VaultSessionError.noKey("other001")) { try vault.session.open(vaultID: "other001") }
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

        let vault = try await VaultRig.make()
        try await vault.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        #expect(vault.log.count(of: .keyDerivation) >= 1)
        #expect(
            vault.log.count(of: .request) >= 1 && vault.log.count(of: .verify) >= 1
                && vault.log.count(of: .decrypt) >= 1)
        #expect(vault.log.events.filter { $0.kind == .request }.allSatisfy { $0.status == 200 })
        #expect(vault.log.events.filter { $0.kind != .request && $0.kind != .error }.allSatisfy { $0.status == nil })
        #expect(Set(vault.log.events.map(\.id)).count == vault.log.events.count)
        #expect(vault.log.events.filter { $0.kind == .request }.allSatisfy { $0.path.hasPrefix("bare/") })
        let reader = try #require(vault.session.reader("fixturevault01"))
        #expect(try await reader.read("README.md").count == 78)
        let requests = vault.log.count(of: .request)
        let hits = vault.log.count(of: .cacheHit)
        #expect(try await reader.read("README.md").count == 78)
        #expect(vault.log.count(of: .request) == requests && vault.log.count(of: .cacheHit) > hits)
        #expect(vault.log.events.contains { $0.detail.contains("read key") })
    }

    @Test(
        "P-VLOG-7, P-KEY-3, P-SECRET-4: with FX's keys and the OpenRouter key in use, every failure run (GCM too), no log, panel, error or reply shows a key"
    )
    func scanEverything() async throws {
        let fixture = try Fixture()
        let (network, openRouter) = try await NetworkTests.rig()
        let log = VaultTrafficLog(journal: network.journal)
        let keys = InMemoryKeyStore()
        let session = VaultSession(
            keyStore: keys, server: network.server, cacheFolder: network.folder.url.appendingPathComponent("vaults"),
            log: log)
        keys.save(KeyTests.openRouterKey, as: .openRouter, protection: .openRouter(biometric: false))
        var texts: [String] = []
        // The OpenRouter key goes out, to its (loopback-bound) host.
        let echo = try await network.server.client(for: openRouter).send(Request<Data>.raw(.get, "/_control/echo"))
        #expect(String(decoding: echo, as: UTF8.self).contains("Bearer " + KeyTests.openRouterKey))
        try await session.importKey(fixture.readKeyString, server: try StandIn.url())
        let reader = try #require(session.reader("fixturevault01"))
        #expect(try await reader.files().count == 4)
        #expect(try await reader.read("README.md").count == 78)
        #expect(try await reader.history(limit: 10).count == 4)
        do { _ = try await reader.read("missing.txt") } catch { texts.append("\(error)") }
        for bad in ["sgit_private_read_\(fixture.readKeyHex.dropLast()):fixturevault01", fixture.vaultKey + "!"] {
            do { _ = try VaultKey(importing: bad, log: log) } catch { texts.append("\(error)") }
        }
        try await session.importKey(fixture.vaultKey, server: try StandIn.url())
        // Every failure of P-VLOG-6: a wrong key (404), a changed object, a lost connection.
        let failures = try await VaultRig.make()
        let wrongKey = String(repeating: "0f", count: 32) + ":fixturevault01"
        do { try await failures.session.importKey(wrongKey, server: try StandIn.url()) } catch {
            texts.append("\(error)")
        }
        let folder = try TemporaryFolder(prefix: "crafted")
        let (changed, head) = try await CraftedVault.served("scanned", in: folder.url)
        try await StandIn.garbage(changed.route("bare/data/" + head))
        do { try await failures.session.importKey(changed.keyString, server: try StandIn.url()) } catch {
            texts.append("\(error)")
        }
        // A GCM failure: the ref names an object that hashes right but is not encrypted under the key.
        let gcm = try CraftedVault(vaultID: "scangcm\(Int.random(in: 1000...9999))", in: folder.url)
        try gcm.writeHead([.init(name: "ok.txt", data: Data("ok".utf8))])
        let stray = try gcm.writeUndecryptable()
        let pointer = Data(JSONValue.object(["commit_id": .string(stray)]).jsonString().utf8)
        try gcm.put(try gcm.key.refFileID, try gcm.seal(pointer))
        try await StandIn.serveVault(gcm)
        do { try await failures.session.importKey(gcm.keyString, server: try StandIn.url()) } catch {
            texts.append("\(error)")
            texts.append(VaultSession.sentence(for: error))
        }
        #expect(failures.log.events.contains { $0.kind == .error && $0.path == "bare/data/" + stray })
        let (cut, _) = try await CraftedVault.served("scancut", in: folder.url)
        let ref = cut.route(try cut.key.refFileID)
        try await StandIn.dropReply(ref, times: nil)
        do { try await failures.session.importKey(cut.keyString, server: try StandIn.url()) } catch {
            texts.append("\(error)")
            texts.append(VaultSession.sentence(for: error))
        }
        try await StandIn.clear(ref)
        let sources = DebugSources(
            journal: network.journal, vaultLog: log, stores: [network.server.appStore, network.server.team.store],
            vaultCaches: network.folder.url.appendingPathComponent("vaults"), keyStore: keys,
            build: BuildInfo(version: "1.0", build: "1", commit: "abc"), clock: network.clock)
        for panel in DebugPanel.allCases {
            texts += await sources.rows(panel).map { $0.title + " " + $0.detail }
        }
        texts += [log, failures.log].flatMap { log in
            log.events.map { "\($0.path) \($0.detail) \($0.kind) \($0.status ?? 0)" }
        }
        texts.append(String(decoding: network.journal.exportJSONLines(), as: UTF8.self))
        texts.append(String(decoding: failures.journal.exportJSONLines(), as: UTF8.self))
        texts += session.vaults.map { "\($0)" } + KeyDescription.all(in: keys).map { "\($0) \($0.line)" }
        #expect(texts.count > 20 && failures.log.count(of: .error) >= 4)
        let crafted = [changed, gcm, cut].flatMap { [$0.keyString, String($0.keyString.prefix(64))] }
        let leaks = SecretScan.leaks(in: texts, secrets: fixture.secrets + crafted + [KeyTests.openRouterKey])
        #expect(leaks.isEmpty, "\(leaks.count) texts leak a key")
    }

    // MARK: The schedule mirror on the real SG/Send server

    @Test("P-SCHED-20, P-SCHED-21, P-SCHED-19: the vault's apps/agenda/picks.json is merged by id after a pull")
    func mirrorMerged() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let vault = try await VaultRig.make()
        #expect(ScheduleMirror.filePath(forWebPath: "agenda/picks") == "apps/agenda/picks.json")
        try await vault.session.importKey(try await MirrorVaults.keys().good, server: server)
        let id = try #require(vault.session.vaults.first?.id)
        let store = ScheduleStore(clock: ManualWallClock(Date(timeIntervalSince1970: 1_794_100_000)))
        store.toggle("local-pick")
        let outcome = try await ScheduleMirror.merge(
            from: try #require(vault.session.reader(id)), into: store, log: vault.log)
        #expect(outcome == .merged(added: ["ai-doom-or-boom", "web-vault-pick"], skipped: 0))
        #expect(store.picks.map(\.id).sorted() == ["ai-doom-or-boom", "local-pick", "web-vault-pick"])
        #expect(NetworkEntry.entries(in: vault.journal).allSatisfy { $0.method == "GET" })
    }

    @Test("P-SCHED-21: a vault without the mirror leaves the schedule unchanged")
    func mirrorAbsent() async throws {
        let vault = try await VaultRig.make()
        try await vault.session.importKey(try Fixture().readKeyString, server: try StandIn.url())
        let store = ScheduleStore(clock: ManualWallClock())
        store.toggle("mine")
        let outcome = try await ScheduleMirror.merge(
            from: try #require(vault.session.reader("fixturevault01")), into: store, log: vault.log)
        #expect(outcome == .absent && store.picks.map(\.id) == ["mine"])
    }

    @Test("P-OPEN-10: a mirror that is not a schedule document changes nothing and logs an error; the pull succeeded")
    func mirrorMalformed() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let vault = try await VaultRig.make()
        try await vault.session.importKey(try await MirrorVaults.keys().broken, server: server)
        let id = try #require(vault.session.vaults.first?.id)
        let store = ScheduleStore(clock: ManualWallClock())
        store.toggle("mine")
        guard
            case .malformed = try await ScheduleMirror.merge(
                from: try #require(vault.session.reader(id)), into: store, log: vault.log)
        else {
            Issue.record("expected malformed")
            return
        }
        #expect(store.picks.map(\.id) == ["mine"])
        #expect(vault.log.events.first?.kind == .error && vault.log.events.first?.path == "apps/agenda/picks.json")
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

    @Test("P-VAULT-17, P-VAULT-16, P-OPEN-24: a pack vault through the list route and the app's clients; v2 envelopes")
    func packVault() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let pack = try Self.manifestVault("pack")
        let vault = try await VaultTests.VaultRig.make()
        try await vault.session.importKey(pack.key, server: server)
        let reader = try #require(vault.session.reader(pack.vaultID))
        let files = try await reader.files()
        #expect(!files.isEmpty)
        for file in files { #expect(try await reader.read(file).count == file.size) }
        let entries = NetworkEntry.entries(in: vault.journal)
        #expect(entries.contains { $0.url.contains("/api/vault/list/\(pack.vaultID)") && $0.status == 200 })
        #expect(entries.allSatisfy { $0.method == "GET" })
        // sgit 0.26 writes objects in the v2 envelope (zlib inside); FX's objects are v1 (fixtureOverHTTP).
        #expect(vault.log.events.contains { $0.kind == .decrypt && $0.detail.contains("zlib") })
    }

    @Test("P-VAULT-9: a pull after new commits fetches only the new objects; none is fetched twice")
    func incrementalPull() async throws {
        let server = try TestServers.url("SGIT_SERVER_URL")
        let work = try TemporaryFolder(prefix: "growing")
        let key = try #require(try await MirrorVaults.runScript(folder: work.url, ["--grow"]).first)
        let vault = try await VaultTests.VaultRig.make()
        try await vault.session.importKey(key, server: server)
        let id = try #require(vault.session.vaults.first?.id)
        let first = NetworkEntry.entries(in: vault.journal).map(\.url)
        #expect(try await MirrorVaults.runScript(folder: work.url, ["--grow"]).first == key)
        try await vault.session.pull(id)
        let second = Array(NetworkEntry.entries(in: vault.journal).map(\.url).dropFirst(first.count))
        #expect(try await vault.session.reader(id)?.files().map(\.path).contains("notes/n2.txt") == true)
        let objects = { (urls: [String]) in Set(urls.filter { $0.contains("bare%2Fdata%2F") }) }
        // The new commit, its new trees and the new blob: a few objects, none of the first pull's.
        #expect(!objects(second).isEmpty && objects(second).count < objects(first).count + 3)
        #expect(objects(first).isDisjoint(with: objects(second)))
        #expect(second.filter { $0.contains("bare%2Fdata%2F") }.count == objects(second).count)
    }
}
