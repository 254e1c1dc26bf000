import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Observation
import Testing

// The example of docs/adding-an-app.md: a whole (toy) app core on the kit, compiled and run against
// the fault server. An app core is these four parts: wire models, the API as `Request` values, the
// server's shared parts (client, store, fetcher), and observable screen models over `ScreenState`.

// 1. Wire models: plain values, decoded by the client's decoder (dates by the kit's rules).
struct ToyItem: Decodable, Sendable, Hashable, Identifiable {
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
    var lastID: String?
    var hasMore: Bool
    enum CodingKeys: String, CodingKey {
        case data
        case lastID = "last_id"
        case hasMore = "has_more"
    }
}

// 2. The API as typed requests: no networking here, only values.
enum ToyAPI {
    static func items(limit: Int, after: String? = nil) -> Request<ToyPage> {
        .get("/items", query: ["limit": String(limit), "total": "25", "after": after])
    }
}

// 3. What every screen of one server and account shares.
struct ToyServer: Sendable {
    let client: Client
    let store: OfflineStore
    let fetcher: CachedFetcher

    /// `policy` is `.httpsOnly` in a release build; a local test server needs `.allowingInsecureLoopback`.
    static func open(
        _ text: String, account: String, policy: TransportPolicy, location: StoreLocation
    ) throws -> ToyServer {
        let address = try ServerAddress(parsing: text, policy: policy)
        let client = Client(
            baseURL: address.url, configuration: Client.Configuration(retryPolicy: .never, transportPolicy: policy))
        let store = try OfflineStore(
            scope: AccountKey(serverKey: address.serverKey, userID: account), location: location)
        return ToyServer(client: client, store: store, fetcher: CachedFetcher(client: client, store: store))
    }
}

// 4. A screen model: what a SwiftUI view binds to.
@Observable @MainActor
final class ToyListModel {
    private(set) var state: ScreenState<[ToyItem]> = .loading
    private let server: ToyServer

    init(server: ToyServer) { self.server = server }

    /// The cached list at once (with its age), then the server's; offline, the cached list stays.
    func refresh() async {
        do {
            for try await loaded in server.fetcher.load(ToyAPI.items(limit: 10), policy: .staleWhileRevalidate) {
                state = ScreenState(loaded.map(\.data))
            }
        } catch {
            state = state.failing(with: error)
        }
    }
}

@Suite("A toy app core on the kit (docs/adding-an-app.md)")
@MainActor
struct ToyAppTests {
    @Test func theListLoadsThenStaysReadableOffline() async throws {
        let folder = try TemporaryFolder()
        let fault = try TestServers.fault().absoluteString
        let online = try ToyServer.open(
            fault, account: "ada", policy: .allowingInsecureLoopback, location: .directory(folder.url))
        let model = ToyListModel(server: online)
        await model.refresh()
        guard case .content(let items, _) = model.state else {
            Issue.record("expected content, got \(model.state)")
            return
        }
        #expect(items.map(\.id).prefix(2) == ["item-0001", "item-0002"])
        #expect(items.first?.createdAt == Date(timeIntervalSince1970: 1_764_400_001))

        // Same account, the server gone (nothing listens on port 1): the cached list, marked offline.
        // The store is keyed by server, so the offline server is opened with the online one's store.
        let deadClient = Client(
            baseURL: try #require(URL(string: "http://127.0.0.1:1")),
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
        let offline = ToyServer(
            client: deadClient, store: online.store, fetcher: CachedFetcher(client: deadClient, store: online.store))
        let again = ToyListModel(server: offline)
        await again.refresh()
        guard case .offline(let cached, _, _) = again.state else {
            Issue.record("expected the cached list marked offline, got \(again.state)")
            return
        }
        #expect(cached == items)
    }

    @Test func aReleaseBuildRefusesPlainHTTP() throws {
        let fault = try TestServers.fault().absoluteString
        #expect(throws: ServerAddressError.self) {
            _ = try ToyServer.open(fault, account: "ada", policy: .httpsOnly, location: .memory)
        }
    }
}
