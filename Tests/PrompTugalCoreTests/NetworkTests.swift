import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionVault
import Foundation
import Testing

@testable import PrompTugalCore

/// The one network, its log, and the key rules, against the stand-in (`PROMPTUGAL_URL`).
@MainActor
struct NetworkTests {
    nonisolated static let key = KeyTests.openRouterKey

    /// OpenRouter bound to `http://localhost:<stand-in port>`, so the real transport can be watched on loopback.
    static func network(clock: any WallClock = ManualWallClock()) throws -> (PrompTugalNetwork, URL) {
        let standIn = try StandIn.url()
        let port = try #require(standIn.port)
        let localhost = try #require(URL(string: "http://localhost:\(port)"))
        let network = PrompTugalNetwork(
            policy: .allowingInsecureLoopback, clock: clock,
            openRouterOrigin: .init(scheme: "http", host: "localhost", port: port), openRouterKey: { Self.key })
        return (network, localhost)
    }

    @Test("P-NET-1, P-DEBUG-4, P-OPEN-24: team data, vault and OpenRouter requests each give one Network entry")
    func oneEntryPerRequest() async throws {
        let (network, openRouter) = try Self.network()
        let folder = try Scratch.folder("net")
        defer { try? FileManager.default.removeItem(at: folder) }
        let team = TeamData(
            bases: try StandIn.bases(), network: network, store: try Scratch.store(in: folder, clock: ManualWallClock())
        )
        // Files no fault test touches, so the suites can run side by side.
        _ = await team.loadJSON(.newsletter)
        _ = await team.loadJSON(.story)
        let vault = VaultNetworkSource(server: try StandIn.url(), network: network)
        let missing = try await vault.read(vaultID: "demovault01", fileID: "bare/refs/ref-pid-muw-000000000000")
        #expect(missing.status == 404)
        _ = try await network.client(for: openRouter).send(PrompTugalNetwork.get("/_control/echo"))
        let entries = NetworkEntry.entries(in: network.journal)
        #expect(entries.count == 4)
        #expect(entries.map(\.status) == [200, 200, 404, 200])
        #expect(entries.map(\.method) == ["GET", "GET", "GET", "GET"])
        #expect(entries[0].url.hasSuffix("/api/v1/newsletter.json") && entries[0].bytes > 20_000)
        #expect(entries[2].url.contains("/api/vault/read/demovault01/"))
        #expect(entries.allSatisfy { $0.durationMs != nil && $0.failure == nil })
    }

    @Test("P-NET-2: Authorization, cookies, API-key headers and credential query items are shown redacted")
    func redacted() async throws {
        let (network, _) = try Self.network()
        var request = PrompTugalNetwork.get("/_control/echo")
        request.query = [
            URLQueryItem(name: "api_key", value: "q-secret-123456"), URLQueryItem(name: "page", value: "2"),
        ]
        request.headers = [
            "Authorization": "Bearer h-secret-123456", "Cookie": "s=c-secret-123456", "X-Api-Key": "k-secret-123456",
        ]
        _ = try await network.client(for: try StandIn.url()).send(request)
        let text = String(decoding: network.journal.exportJSONLines(), as: UTF8.self)
        for secret in ["q-secret-123456", "h-secret-123456", "c-secret-123456", "k-secret-123456"] {
            #expect(!text.contains(secret), "\(secret)")
        }
        #expect(text.contains("page=2") && text.contains(Redactor.mask))
        let entry = try #require(NetworkEntry.entries(in: network.journal).last)
        #expect(!entry.url.contains("q-secret") && entry.url.contains("page=2"))
    }

    @Test("P-SECRET-2: a real redirect from the key's host to another host arrives without the key")
    func redirectDropsKey() async throws {
        let (network, openRouter) = try Self.network()
        let standIn = try StandIn.url()
        let target = standIn.absoluteString + "/_control/echo"
        var request = PrompTugalNetwork.get("/_control/redirect")
        request.query = [URLQueryItem(name: "to", value: target)]
        let data = try await network.client(for: openRouter).send(request)
        let echo = try #require(JSONValue(data: data))
        let headers = echo["headers"]?.objectValue ?? [:]
        #expect(!headers.keys.contains { $0.lowercased() == "authorization" })
        #expect(!echo.jsonString().contains(Self.key))
        // The first hop, to the key's host, did carry it.
        let hops = try await StandIn.requests(prefix: "/_control/redirect")
        let first = try #require(hops.last)
        #expect(first["headers"]?["Authorization"]?.stringValue == "Bearer " + Self.key)
        // And a direct request to another host never does.
        let direct = try await network.client(for: standIn).send(PrompTugalNetwork.get("/_control/echo"))
        #expect(!String(decoding: direct, as: UTF8.self).contains(Self.key))
    }

    @Test("P-SECRET-3, P-OPEN-16: no vault write is ever attempted in phase 1")
    func noVaultWrites() async throws {
        let (network, _) = try Self.network()
        let source = VaultNetworkSource(server: try StandIn.url(), network: network)
        _ = try await source.read(vaultID: "demovault01", fileID: "bare/refs/ref-pid-muw-000000000000")
        _ = try await source.list(vaultID: "demovault01", prefix: "bare/packs/")
        let methods = NetworkEntry.entries(in: network.journal).map(\.method)
        #expect(methods == ["GET", "GET"])
        #expect(ScheduleMirror.vaultPath == "apps/agenda/picks.json")
    }
}
