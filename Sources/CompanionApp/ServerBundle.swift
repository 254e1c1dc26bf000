import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

/// Everything the screens of one server and account share, made in one place: the client (the platform's
/// transport, the credential, the app's profile), the account's store, the typed fetcher and snapshot sync,
/// the clock, the journal and the secret store.
///
/// Every app core wraps one of these as its own server type (`<App>Server`) and reads and writes only through
/// it:
/// - reads: `fetcher.load`, `snapshots.load`, or `read(...)`, which turns either into `ScreenState`s;
/// - writes: `command(_:resend:)` makes a `WriteCommand`, `send(_:)` sends it;
/// - a refusal that the app's revocation rule says ends the sign-in signs the session out, and deletes the
///   account's data where the app's data policy says so (`StoreRegistry.wipe`).
public struct ServerBundle: Sendable {
    /// The server's base URL (origin plus any mount path).
    public let baseURL: URL
    /// Whose data this is: server key and user.
    public let account: AccountKey
    /// What the app registered about its server.
    public let profile: AppProfile
    /// The process's parts.
    public let environment: AppEnvironment
    /// The credential in use, when the server has a sign-in.
    public let session: CredentialSession?
    /// The client: its middleware carries the credential to its own origin only.
    public let client: Client
    /// The account's store.
    public let store: OfflineStore
    /// Reads through the store under fetch policies.
    public let fetcher: CachedFetcher
    /// Reads and stores snapshot groups whole.
    public let snapshots: SnapshotSync

    /// The time source.
    public var clock: any WallClock { environment.clock }
    /// The journal.
    public var journal: Journal { environment.journal }
    /// The secret store.
    public var secrets: any SecretStore { environment.secrets }
    /// Randomness for keys.
    public var random: any RandomSource { environment.random }

    /// Opens the bundle of `account` on the server at `baseURL`: the store from the environment's registry (the
    /// same store for the same account for the life of the process), a client with `session`'s credential under
    /// `profile.revocation`, and `middlewares` of the app's own.
    public static func open(
        _ baseURL: URL, account: AccountKey, profile: AppProfile, session: CredentialSession? = nil,
        middlewares: [any Middleware] = [], environment: AppEnvironment
    ) async throws(StoreError) -> ServerBundle {
        let registry = profile.data.storage == .memoryOnly ? environment.memoryStores : environment.stores
        let store = try await registry.store(for: account)
        var chain: [any Middleware] = []
        if let session {
            if profile.data.wipesOnRevocation {
                chain.append(
                    RevocationWipe(session: session, account: account, stores: registry, journal: environment.journal))
            }
            chain.append(AuthenticationMiddleware(session: session, rule: profile.revocation))
        }
        let client = environment.client(for: baseURL, profile: profile, middlewares: chain + middlewares)
        return ServerBundle(
            baseURL: baseURL, account: account, profile: profile, environment: environment, session: session,
            client: client, store: store)
    }

    /// Joins parts made elsewhere (a client built for a test's transport): prefer `open`.
    public init(
        baseURL: URL, account: AccountKey, profile: AppProfile, environment: AppEnvironment,
        session: CredentialSession?, client: Client, store: OfflineStore
    ) {
        self.baseURL = baseURL
        self.account = account
        self.profile = profile
        self.environment = environment
        self.session = session
        self.client = client
        self.store = store
        self.fetcher = CachedFetcher(client: client, store: store)
        self.snapshots = SnapshotSync(client: client, store: store)
    }

    // MARK: Writes

    /// A write command for `request` with a fresh key; `resend` is the app's own resend rule for it.
    public func command<Response>(_ request: Request<Response>, resend: RetryPolicy = .never) -> WriteCommand<Response>
    {
        WriteCommand(request, resend: resend, random: environment.random)
    }

    /// Sends `command`. The transport never resends it; only its own rule does, with the same key.
    public func send<Response>(_ command: WriteCommand<Response>) async throws(HTTPError) -> Response {
        try await client.send(command.request)
    }

    /// Sends `command` and returns the reply whatever its status (a 409 "changed meanwhile" to show).
    public func reply<Response>(_ command: WriteCommand<Response>) async throws(HTTPError) -> Reply<Response> {
        try await client.reply(command.request)
    }

    // MARK: Sign-in and data

    /// Whether `error` is a refusal that the app's revocation rule says ends the sign-in.
    public func endsSignIn(_ error: HTTPError) -> Bool { profile.revocation.ends(error) }

    /// Deletes this account's data (store contents and files), as a revocation does under a wiping data policy.
    public func wipe() async throws(StoreError) {
        let registry = profile.data.storage == .memoryOnly ? environment.memoryStores : environment.stores
        try await registry.wipe(account)
    }
}

/// Deletes the account's data when a reply makes the session sign out by revocation: placed outside the
/// credential's middleware, it sees the session signed in before the exchange and signed out by a refusal
/// after it.
struct RevocationWipe: Middleware {
    let session: CredentialSession
    let account: AccountKey
    let stores: StoreRegistry
    let journal: Journal

    func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        let before = await session.credential
        let result = try await next(request)
        guard before != nil, await session.credential == nil,
            case .signedOut(_, let reason?) = await session.status, case .signedOut = reason
        else { return result }
        do {
            try await stores.wipe(account)
            journal.record(.auth, "the sign-in ended: the account's offline data was deleted")
        } catch {
            journal.record(.auth, "the sign-in ended, but the offline data could not be deleted: \(error.description)")
        }
        return result
    }
}
