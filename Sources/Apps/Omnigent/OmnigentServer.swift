import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// Everything the screens of one signed-in (or header-mode) Omnigent server share: the kit's `ServerBundle`
/// (client, store, fetcher, snapshot sync, clock, journal) made with Omnigent's profile, and the connection it
/// was made for.
///
/// Rules of Omnigent's profile, and their reasons:
/// - No automatic `Idempotency-Key`: Omnigent ignores it, so it would promise a safety it does not give; a
///   write is a `WriteCommand` that is never resent (a resent message would be posted twice). Reads (GET) are
///   retried by the kit's read policy.
/// - Only a 401 ends the sign-in (`RevocationRule.omnigent`, O-OPEN-21); a 403 refuses one action.
/// - Data is kept: after a revocation the screens keep what they showed (O-ERR-2), and the same person
///   signing in again finds their cache and drafts.
/// - A failure is worded with the server's own sentence when it gave one (`{"error": {"code", "message"}}`,
///   422 `detail`, `{"error": "…"}`).
public struct OmnigentServer: Sendable {
    /// Omnigent's profile on the kit's road.
    public static let profile = AppProfile(
        userAgent: "CompanionKit-Omnigent/0.1", automaticIdempotencyKeys: false, revocation: .omnigent,
        data: DataPolicy(storage: .offline, wipesOnRevocation: false),
        sentence: { $0.http?.envelope?.summary ?? $0.description })

    /// The connection it was made from.
    public let connection: ServerConnection
    /// The kit's parts for this server and account.
    public let bundle: ServerBundle

    /// The account data is filed under (server key + user id).
    public var account: AccountKey { bundle.account }
    /// The HTTP client for the API base, with the credential middleware when signed in.
    public var client: Client { bundle.client }
    /// The offline store of this server and account.
    public var store: OfflineStore { bundle.store }

    /// Joins a connection and a bundle made for it.
    public init(connection: ServerConnection, bundle: ServerBundle) {
        self.connection = connection
        self.bundle = bundle
    }

    /// Opens the server of `connection` for `account`: the bundle on its API base, with `session`'s credential
    /// when the server has a sign-in. The store comes from the environment's registry, which keeps one store
    /// per server and account for the life of the process, so a screen opened again, or the same user signing
    /// in again, sees the same store and its drafts.
    public static func open(
        _ connection: ServerConnection, account: AccountKey, session: CredentialSession? = nil,
        environment: AppEnvironment
    ) async throws(StoreError) -> OmnigentServer {
        let bundle = try await ServerBundle.open(
            connection.apiBase, account: account, profile: profile, session: session, environment: environment)
        return OmnigentServer(connection: connection, bundle: bundle)
    }

    /// Whose data this is on `connection`: `/v1/me` asked with `session`'s credential (header mode answers
    /// `local`).
    public static func account(
        of connection: ServerConnection, session: CredentialSession? = nil, environment: AppEnvironment
    ) async throws(HTTPError) -> AccountKey {
        let middlewares: [any Middleware] =
            session.map { [AuthenticationMiddleware(session: $0, rule: .omnigent)] } ?? []
        let client = environment.client(for: connection.apiBase, profile: profile, middlewares: middlewares)
        let me = try await client.send(OmnigentAPI.me())
        return AccountKey(address: connection.address, userID: me.userID ?? "local")
    }
}
