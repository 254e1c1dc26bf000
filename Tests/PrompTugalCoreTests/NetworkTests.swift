import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import CompanionVault
import Foundation
import Testing

@testable import PrompTugalCore

/// The one road onto the network, its log, and the key rules, against the stand-in (`PROMPTUGAL_URL`).
@MainActor
struct NetworkTests {
    nonisolated static let key = KeyTests.openRouterKey

    /// A rig with OpenRouter bound to `http://localhost:<stand-in port>`, so the real transport can be watched on
    /// loopback; the address to reach that origin.
    static func rig() async throws -> (Rig, URL) {
        let standIn = try StandIn.url()
        let port = try #require(standIn.port)
        let localhost = try #require(URL(string: "http://localhost:\(port)"))
        let rig = try await Rig.make(openRouterOrigin: .init(scheme: "http", host: "localhost", port: port))
        return (rig, localhost)
    }

    @Test("P-NET-1, P-DEBUG-4, P-OPEN-24: team data, vault and OpenRouter requests each give one Network entry")
    func oneEntryPerRequest() async throws {
        let (rig, openRouter) = try await Self.rig()
        // Files no fault test touches, so the suites can run side by side.
        #expect(await rig.team.json(.newsletter).kind == .content)
        #expect(await rig.team.json(.story).kind == .content)
        let vault = HTTPVaultSource(client: rig.server.client(for: try StandIn.url()), batchSize: 1)
        let missing = try await vault.read(vaultID: "demovault01", fileID: "bare/refs/ref-pid-muw-000000000000")
        #expect(missing.status == 404)
        let echo = try await rig.server.client(for: openRouter).send(Request<Data>.raw(.get, "/_control/echo"))
        #expect(!echo.isEmpty)
        let entries = NetworkEntry.entries(in: rig.journal)
        #expect(entries.count == 4)
        #expect(entries.map(\.status) == [200, 200, 404, 200])
        #expect(entries.map(\.method) == ["GET", "GET", "GET", "GET"])
        #expect(entries[0].url.hasSuffix("/api/v1/newsletter.json") && entries[0].bytes > 20_000)
        #expect(entries[2].url.contains("/api/vault/read/demovault01/"))
        #expect(entries.allSatisfy { $0.durationMs != nil && $0.failure == nil })
    }

    @Test("P-DEBUG-4: a request event that names no URL is still an entry (an empty URL), never a crash")
    func aRequestEventWithoutAURLIsAnEntry() {
        let date = Date(timeIntervalSince1970: 1_794_105_900)
        let entries = NetworkEntry.entries(in: [
            JournalEvent(id: 1, date: date, kind: .request, message: "GET"),
            JournalEvent(
                id: 2, date: date, kind: .response, message: "GET", fields: ["status": "204", "totalMs": "3"]),
        ])
        #expect(entries.map(\.line) == ["GET  204 0 B 3 ms"])
        #expect(entries.first?.url == "" && entries.first?.method == "GET")
    }

    @Test("P-NET-2: Authorization, cookies, API-key headers and credential query items are shown redacted")
    func redacted() async throws {
        let (rig, _) = try await Self.rig()
        var request = Request<Data>.raw(.get, "/_control/echo")
        request.query = [
            URLQueryItem(name: "api_key", value: "q-secret-123456"), URLQueryItem(name: "page", value: "2"),
        ]
        request.headers = [
            "Authorization": "Bearer h-secret-123456", "Cookie": "s=c-secret-123456", "X-Api-Key": "k-secret-123456",
        ]
        let echo = try await rig.server.client(for: try StandIn.url()).send(request)
        #expect(String(decoding: echo, as: UTF8.self).contains("h-secret-123456"))  // it did go out
        let text = String(decoding: rig.journal.exportJSONLines(), as: UTF8.self)
        for secret in ["q-secret-123456", "h-secret-123456", "c-secret-123456", "k-secret-123456"] {
            #expect(!text.contains(secret), "\(secret)")
        }
        #expect(text.contains("page=2") && text.contains(Redactor.mask))
        let entry = try #require(NetworkEntry.entries(in: rig.journal).last)
        #expect(!entry.url.contains("q-secret") && entry.url.contains("page=2"))
    }

    @Test("P-SECRET-2: a real redirect from the key's host to another host arrives without the key")
    func redirectDropsKey() async throws {
        let (rig, openRouter) = try await Self.rig()
        let standIn = try StandIn.url()
        let target = standIn.absoluteString + "/_control/echo"
        var request = Request<Data>.raw(.get, "/_control/redirect")
        request.query = [URLQueryItem(name: "to", value: target)]
        let data = try await rig.server.client(for: openRouter).send(request)
        let echo = try #require(JSONValue(data: data))
        let headers = echo["headers"]?.objectValue ?? [:]
        #expect(!headers.keys.contains { $0.lowercased() == "authorization" })
        #expect(!echo.jsonString().contains(Self.key))
        // The first hop, to the key's host, did carry it.
        let hops = try await StandIn.requests(prefix: "/_control/redirect")
        let first = try #require(hops.last)
        #expect(first["headers"]?["Authorization"]?.stringValue == "Bearer " + Self.key)
        // And a direct request to another host never does.
        let direct = try await rig.server.client(for: standIn).send(Request<Data>.raw(.get, "/_control/echo"))
        #expect(!String(decoding: direct, as: UTF8.self).contains(Self.key))
    }

    @Test(
        """
        P-VAULT-2, P-OPEN-24, issue 38 item 4: the seed's initializer reads every object by a plain GET on the \
        read route through the app's client, each request one Network entry
        """)
    func seedInitializerReadsByGET() async throws {
        let (rig, _) = try await Self.rig()
        let folder = try TemporaryFolder(prefix: "seed-init")
        let crafted = try CraftedVault(vaultID: "seedinit\(Int.random(in: 100_000...999_999))", in: folder.url)
        try crafted.writeHead([
            .init(name: "a.txt", data: Data("one".utf8)), .init(name: "b.txt", data: Data("two".utf8)),
            .init(name: "c.txt", data: Data("three".utf8)),
        ])
        try await StandIn.serveVault(crafted)
        let standIn = try StandIn.url()
        let log = VaultTrafficLog()
        let vault = try SGitVault(
            address: VaultAddress(vaultId: crafted.vaultID, server: standIn), readKey: try crafted.key,
            cache: folder.url.appendingPathComponent("cache"), log: log, client: rig.server.client(for: standIn))
        _ = try await vault.pull()
        let files = try await vault.files()
        #expect(files.count == 3)
        for file in files { #expect(try await vault.read(file.path).count == file.size) }
        let seen = try await StandIn.requests(prefix: "/api/vault/").filter {
            $0["path"]?.stringValue?.contains("/\(crafted.vaultID)") == true
        }
        #expect(seen.count >= 5)  // the ref, the commit, the tree and the three blobs, at least
        for request in seen {
            #expect(request["method"] == "GET")
            #expect(request["path"]?.stringValue?.hasPrefix("/api/vault/read/\(crafted.vaultID)/") == true)
            let headers = (request["headers"]?.objectValue ?? [:]).keys.map { $0.lowercased() }
            #expect(!headers.contains("authorization") && !headers.contains("cookie"))
            #expect(request["body"] == "")
        }
        // Every one of them is in the app's journal, the Network panel, as a GET with the server's status (the
        // branch index this crafted vault lacks is a 404).
        let entries = NetworkEntry.entries(in: rig.journal).filter { $0.url.contains("/\(crafted.vaultID)/") }
        #expect(entries.count == seen.count)
        #expect(entries.allSatisfy { $0.method == "GET" && ($0.status == 200 || $0.status == 404) })
        #expect(entries.filter { $0.status == 200 }.count >= 5)
        #expect(log.events.filter { $0.kind == .request }.count == seen.count)
        // A client for another origin would send the vault's requests elsewhere: refused.
        #expect(throws: VaultError.self) {
            _ = try SGitVault(
                address: VaultAddress(vaultId: crafted.vaultID, server: standIn), readKey: try crafted.key,
                cache: folder.url.appendingPathComponent("other"), log: log,
                client: rig.server.client(for: try #require(URL(string: "https://promptugal.news"))))
        }
    }

    @Test(
        """
        P-SECRET-3, P-OPEN-16: a session holding an OpenRouter key and a vault key sends no vault write, no write \
        key and never the OpenRouter key
        """)
    func noVaultWrites() async throws {
        let (rig, _) = try await Self.rig()
        let keys = InMemoryKeyStore()
        // The session holds an OpenRouter key: phase 1 never saves it to the vault (apps/ai/openrouter.json).
        keys.save(Self.key, as: .openRouter, protection: .openRouter(biometric: false))
        let session = VaultSession(
            keyStore: keys, server: rig.server, cacheFolder: rig.folder.url.appendingPathComponent("vaults"),
            log: VaultTrafficLog(journal: rig.journal))
        // A vault of this test's own, made from a passphrase: the app holds its vault key, which could write.
        let folder = try TemporaryFolder(prefix: "crafted")
        let crafted = try CraftedVault(
            vaultID: "writes\(Int.random(in: 100_000...999_999))", passphrase: "nowritespassphrase", in: folder.url)
        try crafted.writeHead([
            .init(name: "a.txt", data: Data("one".utf8)), .init(name: "b.txt", data: Data("two".utf8)),
        ])
        try await StandIn.serveVault(crafted)
        try await session.importKey(try #require(crafted.vaultKeyString), server: try StandIn.url())
        #expect(keys.entries().map(\.name) == [.openRouter, .vaultRead(vaultID: crafted.vaultID)])
        let reader = try #require(session.reader(crafted.vaultID))
        for file in try await reader.files() { #expect(try await reader.read(file.path).count == file.size) }
        let store = ScheduleStore(clock: rig.clock)
        #expect(store.toggle("ai-doom-or-boom") == "ai-doom-or-boom")
        #expect(try await ScheduleMirror.merge(from: reader, into: store, log: session.log) == .absent)
        await store.saved()
        // What reached the server for this vault, by any route: reads only, as many as the app made.
        let seen = try await StandIn.requests(prefix: "/api/vault/").filter {
            $0["path"]?.stringValue?.contains("/\(crafted.vaultID)") == true
        }
        #expect(seen.count == NetworkEntry.entries(in: rig.journal).count && !seen.isEmpty)
        for request in seen {
            #expect(request["method"] == "GET")
            #expect(request["path"]?.stringValue?.hasPrefix("/api/vault/read/\(crafted.vaultID)/") == true)
            let headers = (request["headers"]?.objectValue ?? [:]).keys.map { $0.lowercased() }
            #expect(!headers.contains("x-sgraph-vault-write-key") && !headers.contains("x-sgraph-access-token"))
            #expect(request["body"] == "")
            #expect(!request.jsonString().contains(Self.key))
        }
        #expect(ScheduleMirror.vaultPath == "apps/agenda/picks.json")
    }
}
