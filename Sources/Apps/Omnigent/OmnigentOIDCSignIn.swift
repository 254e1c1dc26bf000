import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// What an Omnigent OIDC sign-in produced, and how.
public struct OmnigentOIDCSession: Sendable, Hashable {
    /// Which step of O-AUTH-12 produced it.
    public enum Source: Sendable, Hashable {
        /// The stored cookie still works (`/v1/me` accepted it); no browser.
        case reused
        /// Renewed with the stored grant at `/oauth/token`; no browser.
        case refreshed
        /// The system browser ran the PKCE flow and the code was exchanged at `/auth/native-token`.
        case browser
        /// The browser approved a ticket that was polled at `/auth/cli-poll` (O-AUTH-8/9).
        case ticket
    }

    /// The signed-in user's id (`/v1/me`'s `user_id`, or `/auth/native-token`'s).
    public var userID: String
    /// The cookie to install in the app's web-view cookie store.
    public var cookie: OmnigentSessionCookie
    /// The grant to keep in the Keychain (service `ai.omnigent.ios.oidc`), when the server issued one.
    public var refreshToken: String?
    /// How it was obtained.
    public var source: Source
}

/// Omnigent's native OIDC sign-in (O-AUTH-7, O-AUTH-10, O-AUTH-12, O-AUTH-13), as 0.19.1 serves it.
///
/// Rules, in order (O-AUTH-12):
/// 1. a stored cookie that `GET <mount>/v1/me` accepts (a non-null `user_id`) is reused, with no browser;
/// 2. else a stored grant is renewed with `POST <mount>/oauth/token` (`grant_type=refresh_token`);
/// 3. else the system browser (never the web view, O-AUTH-7) opens `<mount>/auth/login` with
///    `native_redirect_uri`, `native_state` and an S256 `code_challenge`; the server runs the provider's
///    flow and redirects to `ai.omnigent.ios:/oauth/callback?code=…&state=…`; the code is exchanged with
///    the verifier at `POST <mount>/auth/native-token`.
///
/// Every route keeps the server's mount (O-AUTH-13): the client's base URL is the mount. The server,
/// not the app, receives and checks the provider's ID token; the app gets Omnigent's own session token, and
/// only a JWT-shaped one is kept, made into a cookie or sent back (`OmnigentSessionCookie`). Tokens and codes
/// are registered with the journal as secrets (O-AUTH-15).
public struct OmnigentOIDCSignIn: Sendable {
    /// The Keychain service the grant is kept under.
    public static let keychainService = "ai.omnigent.ios.oidc"
    /// The app's registered redirect URI.
    public static let redirectURI = SignInRoute.iOSRedirectURI

    /// The server (with its mount).
    public let address: ServerAddress
    /// A client on the mount, without credential middleware.
    public let client: Client

    /// Creates the sign-in for `address`, calling through `client` (based on `address.url`).
    public init(address: ServerAddress, client: Client) {
        self.address = address
        self.client = client
    }

    /// Creates the sign-in for `address` on the environment's client.
    public init(address: ServerAddress, environment: AppEnvironment) {
        self.init(address: address, client: environment.client(for: address.url, profile: OmnigentServer.profile))
    }

    /// The browser step's request: its URL under the mount, the state and the PKCE pair.
    public struct BrowserRequest: Sendable, Hashable {
        /// `<mount>/auth/login?…`.
        public var url: URL
        /// The `native_state` the callback must carry back.
        public var state: String
        /// The PKCE pair (its verifier goes only to `/auth/native-token`).
        public var pkce: PKCE
    }

    /// Builds the browser step's URL with a fresh state and PKCE pair.
    public func begin() throws(AuthError) -> BrowserRequest {
        let pkce = try PKCE.generate()
        let state = try PKCE.generate().verifier
        var parts = URLComponents(url: address.url(appending: "/auth/login"), resolvingAgainstBaseURL: false)
        parts?.queryItems = [
            URLQueryItem(name: "native_redirect_uri", value: Self.redirectURI),
            URLQueryItem(name: "native_state", value: state),
            URLQueryItem(name: "code_challenge", value: pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: PKCE.method),
        ]
        guard let url = parts?.url else { throw .invalidStep("the sign-in URL could not be built") }
        return BrowserRequest(url: url, state: state, pkce: pkce)
    }

    /// Runs O-AUTH-12: reuse `storedToken`, else renew `storedGrant`, else run `browser`.
    public func signIn(storedToken: String?, storedGrant: String?, browser: any BrowserStep) async throws(AuthError)
        -> OmnigentOIDCSession
    {
        let journal = client.configuration.journal
        if let storedToken {
            journal.register(secret: storedToken)
            if let userID = try await acceptedUser(storedToken) {
                // The stored cookie keeps its own expiry; the server does not say it again.
                return OmnigentOIDCSession(
                    userID: userID,
                    cookie: try OmnigentSessionCookie(
                        token: storedToken, address: address, expiresIn: nil, now: client.configuration.clock.now()),
                    refreshToken: storedGrant, source: .reused)
            }
        }
        if let storedGrant, let renewed = try await renew(storedGrant) { return renewed }
        let request = try begin()
        let callback = try await browser.authorize(request.url, callbackScheme: "ai.omnigent.ios")
        let code = try Self.code(from: callback, state: request.state)
        return try await exchange(code: code, verifier: request.pkce.verifier)
    }

    /// The code in `callback` after checking its scheme, path and state. Omnigent 0.19.1 writes the
    /// redirect as `ai.omnigent.ios://oauth/callback?…` (with `//`), so both spellings are accepted.
    public static func code(from callback: URL, state: String) throws(AuthError) -> String {
        let text = callback.absoluteString
        guard text.hasPrefix(redirectURI + "?") || text.hasPrefix("ai.omnigent.ios://oauth/callback?") else {
            throw .callbackRejected(reason: "it did not come to the app's redirect address")
        }
        let items = URLComponents(string: text)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = value("error") {
            let sentence = value("error_description") ?? error
            throw error == "access_denied" ? .cancelled : .callbackRejected(reason: "the server said: \(sentence)")
        }
        guard value("state") == state else {
            throw .callbackRejected(reason: "its state does not match the request (a forged or stale reply)")
        }
        guard let code = value("code"), !code.isEmpty else { throw .callbackRejected(reason: "it carries no code") }
        return code
    }

    /// Signs out after a PKCE sign-in (O-AUTH-14): the grant is revoked at `<mount>/oauth/revoke` (the kit's
    /// `OAuthClient.revoke`, which names it a refresh token and sends it as `refresh_token` too, the field
    /// 0.19.1 reads), the credential kept for `account` is deleted from `secrets`, and the returned cookie
    /// (same name, empty, expired) clears the web view's session cookie. A failed revoke is reported in
    /// `problem`, and signing out goes on locally all the same.
    public func signOut(grant: String?, account: AccountKey, secrets: any SecretStore) async -> OmnigentOIDCSignOut {
        var problems: [String] = []
        var revoked = false
        if let grant {
            do {
                try await OAuthClient(address: address, client: client, configuration: OmnigentAccountsSignIn.oauth)
                    .revoke(grant, hint: .refreshToken)
                revoked = true
            } catch {
                if case .http(let failure) = error {
                    problems.append("the server could not be reached to revoke the sign-in: \(failure.description)")
                } else {
                    problems.append("the server did not revoke the sign-in: \(error.description)")
                }
            }
        }
        do {
            try secrets.delete(account)
        } catch {
            problems.append("the stored sign-in could not be removed: \(error.description)")
        }
        let cleared = OmnigentSessionCookie.cleared(for: address)
        client.configuration.journal.record(
            .auth, "signed out", fields: ["origin": address.origin, "revoked": revoked ? "yes" : "no"])
        return OmnigentOIDCSignOut(
            revoked: revoked, clearedCookie: cleared, problem: problems.isEmpty ? nil : problems.joined(separator: "; ")
        )
    }

    /// The user `/v1/me` names for `token` sent as the session cookie, or nil when it is refused; a token that
    /// is not JWT-shaped is never sent (nil at once).
    func acceptedUser(_ token: String) async throws(AuthError) -> String? {
        guard TokenShape.jwt.accepts(token) else { return nil }
        let name = OmnigentSessionCookie.name(for: address)
        let reply = try await client.call(.get, "/v1/me", headers: ["Cookie": "\(name)=\(token)"])
        guard reply.status == 200 else { return nil }
        return reply.json?["user_id"]?.stringValue
    }

    /// Renews with the grant at `/oauth/token`; nil when the server refuses it (then the browser runs).
    func renew(_ grant: String) async throws(AuthError) -> OmnigentOIDCSession? {
        let oauth = OAuthClient(address: address, client: client, configuration: OmnigentAccountsSignIn.oauth)
        let tokens: TokenSet
        do {
            tokens = try await oauth.refresh(grant)
        } catch {
            if case .refreshFailed = error { return nil }
            throw error
        }
        guard let userID = try await acceptedUser(tokens.accessToken) else { return nil }
        let now = client.configuration.clock.now()
        return OmnigentOIDCSession(
            userID: userID,
            cookie: try OmnigentSessionCookie(
                token: tokens.accessToken, address: address, expiresIn: tokens.expiresAt?.timeIntervalSince(now),
                now: now),
            refreshToken: tokens.refreshToken ?? grant, source: .refreshed)
    }

    /// Exchanges the code and verifier at `/auth/native-token`.
    func exchange(code: String, verifier: String) async throws(AuthError) -> OmnigentOIDCSession {
        let journal = client.configuration.journal
        journal.register(secret: code)
        let reply = try await client.call(
            .post, "/auth/native-token",
            form: ["code": code, "code_verifier": verifier, "redirect_uri": Self.redirectURI])
        guard reply.status == 200, let token = reply.json?["token"]?.stringValue else {
            if reply.status == 400 {
                let said = reply.json?["error"]?.stringValue ?? "invalid_grant"
                throw .callbackRejected(reason: "the server refused the sign-in code (\(said))")
            }
            throw .unexpected(reply, "POST /auth/native-token")
        }
        journal.register(secret: token)
        let grant = reply.json?["refresh_token"]?.stringValue
        if let grant { journal.register(secret: grant) }
        let userID = reply.json?["user_id"]?.stringValue ?? ""
        return OmnigentOIDCSession(
            userID: userID,
            cookie: try OmnigentSessionCookie(
                token: token, address: address, expiresIn: reply.json?["expires_in"]?.doubleValue,
                now: client.configuration.clock.now()),
            refreshToken: grant, source: .browser)
    }
}

/// What signing out of an OIDC server did (O-AUTH-14).
public struct OmnigentOIDCSignOut: Sendable, Hashable {
    /// Whether the server revoked the grant (false when there was none, or the call failed).
    public var revoked: Bool
    /// The cookie that replaces the session cookie in the web view's store: same name, no value, long expired.
    public var clearedCookie: OmnigentSessionCookie
    /// A sentence when part of signing out failed; the app is signed out locally all the same.
    public var problem: String?
}
