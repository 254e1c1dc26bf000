import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionTestSupport
import Foundation
import Observation
import Testing

// The example of docs/adding-an-app.md: a whole (toy) app core on the kit, compiled and run against the fault
// server. An app core is these four parts: wire models, the API as `Request` values, its server (the kit's
// `ServerBundle` with the app's `AppProfile`), and observable screen models over `ScreenState`.

// 1. Wire models: plain values, decoded by the client's decoder (dates by the kit's rules).
struct ToyItem: Codable, Sendable, Hashable, Identifiable {
    var id: String
    var n: Int
    var createdAt: Date
    enum CodingKeys: String, CodingKey {
        case id, n
        case createdAt = "created_at"
    }
}

struct ToyPage: Decodable, Sendable, Hashable {
    var data: [ToyItem]
    var hasMore: Bool
    enum CodingKeys: String, CodingKey {
        case data
        case hasMore = "has_more"
    }
}

// 2. The API as typed requests: no networking here, only values.
enum ToyAPI {
    static func items(limit: Int, after: String? = nil) -> Request<ToyPage> {
        .get("/items", query: ["limit": String(limit), "total": "25", "after": after])
    }
}

// 3. The app's server: the kit's bundle (client, store, fetcher, clock, journal, secrets) with the app's profile.
struct ToyServer: Sendable {
    static let profile = AppProfile(userAgent: "Toy/1.0", retryPolicy: .never)
    let bundle: ServerBundle

    /// The transport policy is the environment's: `.httpsOnly` in a release build.
    static func open(_ text: String, account: String, environment: AppEnvironment) async throws -> ToyServer {
        let address = try environment.address(text)
        let key = AccountKey(serverKey: address.serverKey, userID: account)
        return ToyServer(bundle: try await .open(address.url, account: key, profile: profile, environment: environment))
    }
}

// 4. A screen model: what a SwiftUI view binds to. It holds the kit's feed; the feed reads through the store
// and observes it, so a write anywhere (another screen's save, a pushed event) shows here with no pull.
@Observable @MainActor
final class ToyListModel {
    let items: ScreenFeed<[ToyItem]>

    init(server: ToyServer) { items = server.bundle.feed(ToyAPI.items(limit: 10)) { $0.data } }

    /// The state a view shows: the cached list at once (with its age), then the server's; offline, the cached list.
    var state: ScreenState<[ToyItem]> { items.state }

    /// Reads again (a pull to refresh).
    func refresh() async { await items.refresh() }
}

@Suite("A toy app core on the kit (docs/adding-an-app.md)")
@MainActor
struct ToyAppTests {
    @Test func theListLoadsThenStaysReadableOffline() async throws {
        let folder = try TemporaryFolder()
        let environment = TestEnvironments.loopback(stores: .directory(folder.url))
        let online = try await ToyServer.open(
            try TestServers.fault().absoluteString, account: "ada", environment: environment)
        let model = ToyListModel(server: online)
        await model.refresh()
        guard case .content(let items, _) = model.state else {
            Issue.record("expected content, got \(model.state)")
            return
        }
        #expect(items.map(\.id).prefix(2) == ["item-0001", "item-0002"])
        #expect(items.first?.createdAt == Date(timeIntervalSince1970: 1_764_400_001))

        // Same account, the server gone (nothing listens on port 1): the cached list, marked offline. The store
        // is the account's, so the same account on the dead address reads the same store.
        let dead = try await ServerBundle.open(
            try #require(URL(string: "http://127.0.0.1:1")), account: online.bundle.account, profile: ToyServer.profile,
            environment: environment)
        let again = ToyListModel(server: ToyServer(bundle: dead))
        await again.refresh()
        guard case .offline(let cached, _, _) = again.state else {
            Issue.record("expected the cached list marked offline, got \(again.state)")
            return
        }
        #expect(cached == items)
    }

    @Test func aReleaseBuildRefusesPlainHTTP() async throws {
        let fault = try TestServers.fault().absoluteString
        let release = AppEnvironment(
            transportPolicy: .httpsOnly, stores: StoreRegistry(location: .memory), secrets: InMemorySecretStore())
        await #expect(throws: ServerAddressError.self) {
            _ = try await ToyServer.open(fault, account: "ada", environment: release)
        }
    }
}
