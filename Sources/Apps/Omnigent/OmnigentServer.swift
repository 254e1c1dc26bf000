import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

/// A server the app found: its address (with any mount), API base and manifest.
public struct ServerConnection: Sendable, Hashable {
    /// The address as stored in recents and shown to the person (keeps a workspace mount).
    public var address: ServerAddress
    /// Where the API lives (O-MOUNT-7).
    public var apiBase: URL
    /// What `/.well-known/omnigent.json` said.
    public var manifest: Manifest

    /// Creates a connection value.
    public init(address: ServerAddress, apiBase: URL, manifest: Manifest) {
        self.address = address
        self.apiBase = apiBase
        self.manifest = manifest
    }

    /// How the server signs people in.
    public var authMode: AuthMode { manifest.authMode }

    /// Whether a sign-in step is needed before the API answers (header and none modes need none, O-AUTH-2).
    public var needsSignIn: Bool { authMode != .header && authMode != .none }
}

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

    /// Opens the store for `account` under `location` and builds the server's shared parts.
    public static func open(
        _ connection: ServerConnection, account: AccountKey, client: Client, location: StoreLocation,
        clock: any WallClock = SystemWallClock()
    ) throws(StoreError) -> OmnigentServer {
        let scope = StoreScope(serverKey: account.serverKey, accountID: account.userID)
        let store = try OfflineStore(scope: scope, location: location, clock: clock)
        return OmnigentServer(connection: connection, account: account, client: client, store: store)
    }

    /// A JSON decoder with the kit's timestamp rules (Omnigent sends Unix seconds).
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(Client.defaultDateDecoding)
        return decoder
    }
}

/// Finds out what an address is before anything else happens (server setup).
public enum OmnigentConnector {
    /// What went wrong while connecting, with a sentence a person can act on.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The address itself is not acceptable.
        case address(ServerAddressError)
        /// The server did not answer as an Omnigent server.
        case notOmnigent(HTTPError)

        /// A sentence a person can act on.
        public var description: String {
            switch self {
            case .address(let error): return error.description
            case .notOmnigent(let error):
                return "This does not look like an Omnigent server: \(error.description)"
            }
        }
    }

    /// Connects to `address`: the workspace mount probe (one HEAD, same-origin only), then the manifest.
    public static func connect(
        _ address: ServerAddress, policy: TransportPolicy, journal: Journal
    ) async throws(Failure) -> ServerConnection {
        let discovered = await WorkspaceDiscovery.discover(address.url, journal: journal)
        let resolved: ServerAddress
        do {
            resolved = try ServerAddress(parsing: discovered.absoluteString, policy: policy)
        } catch {
            throw .address(error)
        }
        let apiBase = WorkspaceDiscovery.apiBase(for: resolved.url)
        let client = Client(
            baseURL: apiBase,
            configuration: Client.Configuration(
                retryPolicy: RetryPolicy(maxAttempts: 2), transportPolicy: policy, journal: journal))
        do {
            let manifest = try await client.send(OmnigentAPI.manifest())
            journal.record(.note, "omnigent manifest", fields: ["mode": manifest.auth.mode])
            return ServerConnection(address: resolved, apiBase: apiBase, manifest: manifest)
        } catch {
            throw .notOmnigent(error)
        }
    }

    /// The signed-in identity's account key: `/v1/me` (header mode answers `local`).
    public static func account(of connection: ServerConnection, client: Client) async throws(HTTPError) -> AccountKey {
        let me = try await client.send(OmnigentAPI.me())
        return AccountKey(address: connection.address, userID: me.userID ?? "local")
    }
}

extension Request {
    /// The same request, answering with the raw body (for the cached fetcher, which stores bodies).
    public func raw() -> Request<Data> {
        Request<Data>(method: method, path: path, query: query, headers: headers, body: body) { data, _, _ in data }
    }
}

/// How the app signs in to a server, decided from its manifest and host (O-AUTH-11, O-OPEN-16, O-URL-10).
public enum SignInRoute: Sendable, Hashable {
    /// No sign-in step (header or none mode; O-AUTH-2).
    case none
    /// Username and password through the kit's sign-in model (accounts mode; O-AUTH-3).
    case accounts
    /// The native PKCE flow in the system browser (O-AUTH-11/12).
    case pkce(redirectURI: String)
    /// The ticket flow: open the server's login page, poll for the token (O-AUTH-8/9).
    case ticket
    /// Sign-in inside the web view (Databricks hosts, custom modes).
    case webView

    /// The redirect URI the iOS app registers for native sign-in.
    public static let iOSRedirectURI = "ai.omnigent.ios:/oauth/callback"

    /// The route for `connection`.
    public init(_ connection: ServerConnection) {
        if HostKind(host: connection.address.host).signsInInWebView {
            self = .webView
            return
        }
        let auth = connection.manifest.auth
        switch connection.authMode {
        case .header, .none: self = .none
        case .accounts: self = .accounts
        case .custom: self = .webView
        case .oidc:
            if (auth.nativeRedirectURIs ?? []).contains(Self.iOSRedirectURI), auth.sessionCookie != nil {
                self = .pkce(redirectURI: Self.iOSRedirectURI)
            } else {
                self = .ticket
            }
        }
    }
}
