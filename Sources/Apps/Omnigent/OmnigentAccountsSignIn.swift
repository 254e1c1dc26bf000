import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Omnigent's accounts mode: `POST /auth/login` returns a JWT usable as
/// `Authorization: Bearer` or as the `ap_session` cookie, plus a refresh token when asked; refresh at
/// `/oauth/token`; `POST /auth/logout`.
///
/// Rules: the probe reads `/.well-known/omnigent.json` and accepts only `auth.mode == "accounts"`; only a
/// JWT-shaped token is stored (any other login or refresh answer is refused); the stored credential is a
/// bearer with its refresh token (renewed by `OAuthRefresher`); the web view gets the same JWT as the cookie
/// `ap_session` (`__Host-ap_session` on https) through `webViewCookie(for:)`; signing out logs out on the
/// server and revokes the refresh token, so the grant no longer renews.
public actor OmnigentAccountsSignIn: SignInServer {
    private let address: ServerAddress
    private let client: Client
    private var issued: StoredCredential?

    /// Creates the sign-in for `address`, calling through `client`.
    public init(address: ServerAddress, client: Client) {
        self.address = address
        self.client = client
    }

    /// Creates the sign-in for `address` on the environment's client.
    public init(address: ServerAddress, environment: AppEnvironment) {
        self.init(address: address, client: environment.client(for: address.url, profile: OmnigentServer.profile))
    }

    /// The OAuth configuration for refresh and revoke at Omnigent's `/oauth/token` and `/oauth/revoke`; its
    /// access tokens are JWTs.
    public static let oauth = OAuthConfiguration(
        clientID: "ai.omnigent.ios", redirectURI: "ai.omnigent.ios:/oauth/callback", accessTokenShape: .jwt)

    /// Accepts a server whose manifest says accounts mode.
    public func probe() async throws(AuthError) {
        let reply: RawReply
        do {
            reply = try await client.call(.get, "/.well-known/omnigent.json")
        } catch {
            if case .http(let failure) = error { throw .notRecognized(reason: failure.description) }
            throw error
        }
        guard reply.status == 200, let mode = reply.json?["auth"]?["mode"]?.stringValue else {
            throw .notRecognized(reason: "no Omnigent manifest at /.well-known/omnigent.json (status \(reply.status)).")
        }
        guard mode == "accounts" else {
            throw .notRecognized(reason: "this Omnigent signs in with \(mode), not with accounts.")
        }
    }

    /// Sends name and password, asking for a refresh token.
    public func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        let journal = client.configuration.journal
        journal.register(secret: password)
        let reply = try await client.call(
            .post, "/auth/login",
            json: ["username": .string(username), "password": .string(password), "issue_refresh": .bool(true)])
        switch reply.status {
        case 200:
            guard let token = reply.json?["token"]?.stringValue else { throw .unexpected(reply, "POST /auth/login") }
            journal.register(secret: token)
            guard TokenShape.jwt.accepts(token) else {
                throw .unexpectedReply("the server handed out a session token that is not in the expected form")
            }
            let refresh = reply.json?["refresh_token"]?.stringValue
            if let refresh { journal.register(secret: refresh) }
            let clock = client.configuration.clock
            let expiry = reply.json?["expires_in"]?.doubleValue.map { clock.now().addingTimeInterval($0) }
            let userID = reply.json?["user"]?["id"]?.stringValue ?? username
            issued = StoredCredential(
                account: AccountKey(address: address, userID: userID), address: address,
                credential: .bearer(accessToken: token, refreshToken: refresh, expiresAt: expiry), storedAt: clock.now()
            )
            return .authenticated
        case 400, 401, 403:
            return .refused(.wrongCredentials(serverSentence: reply.envelope?.summary))
        default:
            throw .unexpected(reply, "POST /auth/login")
        }
    }

    /// Accounts mode has no second factor.
    public func submitCode(_ code: String, kind: SecondFactorKind) async throws(AuthError) -> ServerStep {
        .refused(.invalidStep("Omnigent accounts have no second factor"))
    }

    /// Accounts mode has no forced password change.
    public func changePassword(current: String, new: String) async throws(AuthError) -> ServerStep {
        .refused(.invalidStep("Omnigent accounts have no forced password change"))
    }

    /// The bearer credential from the login.
    public func issueCredential() async throws(AuthError) -> StoredCredential {
        defer { issued = nil }
        guard let issued else { throw .invalidStep("not signed in") }
        return issued
    }

    /// The cookie a web view needs for the same sign-in: `ap_session` on http, `__Host-ap_session` on https;
    /// `nil` for a token that is not JWT-shaped (it is never made into a cookie).
    public static func webViewCookie(for stored: StoredCredential) -> Credential? {
        guard case .bearer(let access, _, let expiresAt) = stored.credential, TokenShape.jwt.accepts(access) else {
            return nil
        }
        return .webViewCookie(
            name: OmnigentSessionCookie.name(for: stored.address), value: access, expiresAt: expiresAt)
    }

    /// Logs out on the server (`POST /auth/logout`), revokes the refresh token (the kit's
    /// `OAuthClient.revoke`, sent as `refresh_token`, the field 0.19.1 reads: a bare `token` would leave the
    /// grant able to renew), and signs the session out.
    public static func signOut(session: CredentialSession, client: Client) async -> AuthError? {
        guard let stored = await session.credential else { return nil }
        var failure: AuthError?
        do {
            let reply = try await client.call(.post, "/auth/logout")
            if !(200..<300).contains(reply.status) { failure = .unexpected(reply, "POST /auth/logout") }
            try await OAuthClient(address: stored.address, client: client, configuration: oauth)
                .revoke(stored.credential)
        } catch {
            failure = error
        }
        await session.signOut()
        return failure
    }
}

extension RevocationRule {
    /// Omnigent's rule (O-OPEN-21): only a 401 means the token or session is gone. A 403 refuses one
    /// action (an admin-only call, a session the user may read but not change) and leaves the credential
    /// working, so the user stays signed in and sees the server's sentence. Omnigent answers 410 only to
    /// an expired sign-in ticket, never to an API call, so 410 is not a sign-out either.
    public static let omnigent = RevocationRule(statuses: [401])
}
