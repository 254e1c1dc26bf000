import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

/// Everything the screens of one signed-in (or header-mode) server share: the client, the offline
/// store for this server and account, and the cached fetcher joining them.
public struct OmnigentServer: Sendable {
    /// The connection it was made from.
    public let connection: ServerConnection
    /// The account data is filed under (server key + user id).
    public let account: AccountKey
    /// The HTTP client for the API base, with the credential middleware when signed in.
    public let client: Client
    /// The offline store of this server and account.
    public let store: OfflineStore
    /// Reads through the store under fetch policies.
    public let fetcher: CachedFetcher

    /// Joins a connection, an account, a client and a store.
    public init(connection: ServerConnection, account: AccountKey, client: Client, store: OfflineStore) {
        self.connection = connection
        self.account = account
        self.client = client
        self.store = store
        self.fetcher = CachedFetcher(client: client, store: store)
    }

    /// The client for a connection. Omnigent ignores `Idempotency-Key`, so writes are never retried
    /// automatically (a retried message could be posted twice); GETs are.
    public static func client(
        for connection: ServerConnection, session: CredentialSession? = nil, policy: TransportPolicy, journal: Journal,
        sleeper: any Sleeper = TaskSleeper()
    ) -> Client {
        let middlewares: [any Middleware] =
            session.map { [AuthenticationMiddleware(session: $0, rule: .omnigent)] } ?? []
        return Client(
            baseURL: connection.apiBase,
            configuration: Client.Configuration(
                defaultHeaders: ["User-Agent": "CompanionKit-Omnigent/0.1", "Accept": "application/json"],
                automaticIdempotencyKeys: false, middlewares: middlewares, transportPolicy: policy,
                journal: journal, sleeper: sleeper))
    }

    /// Opens (or reuses) the store for `account` from `stores` and builds the server's shared parts.
    /// The registry keeps one store per server and account for the life of the process, so a screen
    /// opened again, or the same user signing in again, sees the same store and its drafts.
    public static func open(
        _ connection: ServerConnection, account: AccountKey, client: Client, stores: StoreRegistry
    ) async throws(StoreError) -> OmnigentServer {
        let store = try await stores.store(for: account)
        return OmnigentServer(connection: connection, account: account, client: client, store: store)
    }
}
