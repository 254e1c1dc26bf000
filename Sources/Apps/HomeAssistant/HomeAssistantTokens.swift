import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Renews Home Assistant's access tokens (H-TOK-4): `grant_type=refresh_token`, form-encoded, with the refresh
/// token and the `client_id` the credential was issued to (its `serverID`), whichever address it goes to; the
/// stored refresh token is kept, since Home Assistant does not rotate it. The new expiry is the time of receipt
/// plus `expires_in` (H-TOK-1).
public struct HomeAssistantRefresher: TokenRefresher {
    /// The client the token endpoint is reached with (no credential on it).
    public let client: Client

    /// Creates a refresher that posts with `client`.
    public init(client: Client) { self.client = client }

    /// Renews `credential`'s access token. A refusal (400–403, `invalid_grant` for a revoked token) is
    /// `AuthError.refreshFailed`, which signs the session out; no answer or a 5xx is another error, which keeps it.
    public func refresh(_ credential: StoredCredential) async throws(AuthError) -> StoredCredential {
        guard let clientID = credential.serverID else {
            throw .refreshFailed(serverSentence: "the sign-in has no client id to refresh with")
        }
        let oauth = OAuthClient(
            address: credential.address, client: client,
            configuration: OAuthConfiguration(
                authorizationPath: "/auth/authorize", tokenPath: "/auth/token", revocationPath: "/auth/revoke",
                clientID: clientID, redirectURI: "", accessTokenShape: .jwt))
        return try await OAuthRefresher(oauth: oauth).refresh(credential)
    }
}

extension HomeAssistantServer {
    /// Opens the account signed in as `account` in `environment`: its stored credential in a session that renews
    /// the access token a minute before it expires (H-TOK-2), one refresh at a time (H-TOK-3), and signs out once
    /// when the refresh token is refused (H-TOK-6); `middlewares` go on every request (a test's recorder).
    public static func open(
        _ account: AccountKey, environment: AppEnvironment, middlewares: [any Middleware] = []
    ) async throws -> HomeAssistantServer {
        let session = try environment.session(for: account)
        guard let stored = await session.credential else {
            throw AuthError.signedOut(status: 401, serverSentence: "no stored sign-in for \(account)")
        }
        let refresher = HomeAssistantRefresher(
            client: environment.client(for: stored.address.url, profile: profile, middlewares: middlewares))
        let renewing = CredentialSession(
            stored: stored, store: environment.secrets, refresher: refresher, journal: environment.journal,
            clock: environment.clock)
        return HomeAssistantServer(
            bundle: try await ServerBundle.open(
                stored.address.url, account: account, profile: profile, session: renewing, middlewares: middlewares,
                environment: environment))
    }

    /// Signs out on purpose (H-TOK-9): revokes the refresh token with `POST /auth/revoke` (`token=`, form-encoded;
    /// never the access token, which Home Assistant does not look up), waiting at most 10 s, then deletes the
    /// credential whatever the answer. The address and the account's stored data stay. A long-lived token has no
    /// refresh token and is only forgotten here. Returns the revoke's failure, if any.
    @discardableResult
    public func signOut() async -> AuthError? {
        guard let session = bundle.session else { return nil }
        var problem: AuthError?
        if let stored = await session.credential, let refresh = stored.credential.refreshToken {
            bundle.journal.register(secret: refresh)
            var revoke = Request<Void>.empty(
                .post, "/auth/revoke", body: FormEncoding.encode(["token": refresh]),
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            revoke.retryPolicy = .never
            revoke.timeout = .seconds(10)
            let client = bundle.environment.client(for: stored.address.url, profile: Self.profile)
            do {
                let reply = try await client.reply(revoke)
                if reply.status != 200 {
                    problem = .unexpectedReply("POST /auth/revoke answered with status \(reply.status)")
                }
            } catch {
                problem = .http(error)
            }
        }
        await session.signOut()
        return problem
    }
}
