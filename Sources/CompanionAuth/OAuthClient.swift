import CompanionCore
import CompanionHTTP
import Foundation

/// The browser step of an OAuth sign-in: opens `url` and returns the callback URL the server redirected
/// to (`ASWebAuthenticationSession` on iOS, a headless driver in tests).
public protocol BrowserStep: Sendable {
    /// Opens `url` and waits for a redirect to `callbackScheme`; throws `AuthError.cancelled` when the
    /// person closes the browser.
    func authorize(_ url: URL, callbackScheme: String) async throws(AuthError) -> URL
}

/// Where an OAuth 2.0 server's endpoints are and who the app is.
public struct OAuthConfiguration: Sendable, Hashable {
    /// The authorization endpoint's path below the server address.
    public var authorizationPath: String
    /// The token endpoint's path.
    public var tokenPath: String
    /// The revocation endpoint's path (RFC 7009).
    public var revocationPath: String
    /// The app's client id.
    public var clientID: String
    /// The registered redirect URI (a custom scheme such as `ai.omnigent.ios:/oauth/callback`).
    public var redirectURI: String
    /// Requested scopes.
    public var scopes: [String]
    /// Extra authorization parameters (`login_hint`, `prompt`).
    public var extraParameters: [String: String]
    /// The form an access token from the token endpoint must have; one of another form is refused and never
    /// stored (`.opaque` by default, `.jwt` for a server that issues JWTs).
    public var accessTokenShape: TokenShape

    /// Creates a configuration.
    public init(
        authorizationPath: String = "/oauth/authorize", tokenPath: String = "/oauth/token",
        revocationPath: String = "/oauth/revoke", clientID: String, redirectURI: String, scopes: [String] = [],
        extraParameters: [String: String] = [:], accessTokenShape: TokenShape = .opaque
    ) {
        self.authorizationPath = authorizationPath
        self.tokenPath = tokenPath
        self.revocationPath = revocationPath
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.extraParameters = extraParameters
        self.accessTokenShape = accessTokenShape
    }

    /// The callback's scheme (`companionkit-test` of `companionkit-test:/oauth/callback`).
    public var callbackScheme: String { String(redirectURI.prefix { $0 != ":" }) }
}

/// One started authorization: what was sent, and what the callback must match.
public struct AuthorizationRequest: Sendable, Hashable {
    /// The URL the browser opens.
    public let url: URL
    /// The `state` the callback must echo (CSRF protection).
    public let state: String
    /// The `nonce` the ID token must carry (replay protection).
    public let nonce: String
    /// The PKCE pair.
    public let pkce: PKCE
}

/// Which kind of token a revocation names (RFC 7009 `token_type_hint`).
public enum TokenTypeHint: String, Sendable, Hashable {
    /// A refresh token: revoking it ends the grant.
    case refreshToken = "refresh_token"
    /// An access token.
    case accessToken = "access_token"
}

/// Tokens from a token endpoint.
public struct TokenSet: Sendable, Hashable {
    /// The access token.
    public var accessToken: String
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// When the access token expires, if the server said.
    public var expiresAt: Date?
    /// The ID token's claims, if one came and passed the nonce check (or the verifier, when one is set).
    public var idClaims: JSONValue?
    /// The ID token itself (a secret: registered with the journal), if one came.
    public var idToken: String? = nil
}

/// OAuth 2.0 authorization code with PKCE (RFC 6749, 7636), refresh and revocation (RFC 7009).
///
/// Rules: `state` and `nonce` come from secure randomness and are checked on the way back (a callback
/// with another state, an error, or no code is refused; an ID token with another nonce is refused); the
/// verifier only goes to the token endpoint; tokens are registered with the journal before anything logs.
public struct OAuthClient: Sendable {
    /// The server.
    public let address: ServerAddress
    /// The client used for token calls (no credential middleware needed).
    public let client: Client
    /// The endpoints and client identity.
    public let configuration: OAuthConfiguration
    /// Checks the ID token in full when set (signature with the provider's keys, `iss`, `aud`, `exp`,
    /// `nonce`): a token that fails, or no ID token at all, refuses the sign-in. Without it only the
    /// nonce is compared, which proves the reply answers this sign-in but not who signed the token.
    public var idTokenVerifier: IDTokenVerifier?

    /// Creates an OAuth client; `idTokenVerifier` checks the ID token in full (see the property).
    public init(
        address: ServerAddress, client: Client, configuration: OAuthConfiguration,
        idTokenVerifier: IDTokenVerifier? = nil
    ) {
        self.address = address
        self.client = client
        self.configuration = configuration
        self.idTokenVerifier = idTokenVerifier
    }

    /// Builds the authorization request with fresh state, nonce and PKCE pair.
    public func begin() throws(AuthError) -> AuthorizationRequest {
        let pkce = try PKCE.generate()
        let state = try Base64URL.random(bytes: 16)
        let nonce = try Base64URL.random(bytes: 16)
        var items: [String: String] = [
            "response_type": "code", "client_id": configuration.clientID, "redirect_uri": configuration.redirectURI,
            "code_challenge": pkce.challenge, "code_challenge_method": PKCE.method, "state": state, "nonce": nonce,
        ]
        if !configuration.scopes.isEmpty { items["scope"] = configuration.scopes.joined(separator: " ") }
        for (name, value) in configuration.extraParameters { items[name] = value }
        var parts = URLComponents(
            url: address.url(appending: configuration.authorizationPath), resolvingAgainstBaseURL: false)
        parts?.queryItems = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        guard let url = parts?.url else { throw .invalidStep("the authorization URL could not be built") }
        return AuthorizationRequest(url: url, state: state, nonce: nonce, pkce: pkce)
    }

    /// The code in `callback`, after checking it answers `request`: redirect URI, state, no error.
    public func code(fromCallback callback: URL, for request: AuthorizationRequest) throws(AuthError) -> String {
        let text = callback.absoluteString
        guard text.hasPrefix(configuration.redirectURI) else {
            throw .callbackRejected(reason: "it did not come to the app's redirect address")
        }
        let items = URLComponents(string: text)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = value("error") {
            throw error == "access_denied" ? .cancelled : .callbackRejected(reason: "the server answered \(error)")
        }
        guard let state = value("state"), state == request.state else {
            throw .callbackRejected(reason: "its state does not match the request (a forged or stale reply)")
        }
        guard let code = value("code"), !code.isEmpty else { throw .callbackRejected(reason: "it carries no code") }
        return code
    }

    /// Exchanges `code` for tokens with the request's verifier, checking the ID token: in full with
    /// `idTokenVerifier` when one is set, else its nonce.
    public func exchange(code: String, for request: AuthorizationRequest) async throws(AuthError) -> TokenSet {
        client.configuration.journal.register(secret: code)
        var tokens = try await tokenCall([
            "grant_type": "authorization_code", "code": code, "redirect_uri": configuration.redirectURI,
            "client_id": configuration.clientID, "code_verifier": request.pkce.verifier,
        ])
        if let idTokenVerifier {
            guard let idToken = tokens.idToken else {
                throw .callbackRejected(reason: "the provider sent no ID token to check")
            }
            do {
                tokens.idClaims = .object(try idTokenVerifier.verify(idToken, nonce: request.nonce).claims)
            } catch {
                throw .callbackRejected(reason: error.description)
            }
            return tokens
        }
        if let claims = tokens.idClaims, claims["nonce"]?.stringValue != request.nonce {
            throw .callbackRejected(reason: "the ID token's nonce does not match the request (a replayed token)")
        }
        return tokens
    }

    /// Runs the whole flow: begin, browser step, callback check, exchange.
    public func signIn(browser: any BrowserStep) async throws(AuthError) -> TokenSet {
        let request = try begin()
        let callback = try await browser.authorize(request.url, callbackScheme: configuration.callbackScheme)
        return try await exchange(code: try code(fromCallback: callback, for: request), for: request)
    }

    /// Renews tokens with `refreshToken`; a refusal is `AuthError.refreshFailed`.
    public func refresh(_ refreshToken: String) async throws(AuthError) -> TokenSet {
        try await tokenCall(
            ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": configuration.clientID],
            refusal: { .refreshFailed(serverSentence: $0) })
    }

    /// Revokes `token`, of the kind `hint` names (RFC 7009: `token` and `token_type_hint`; the server answers
    /// 200 even for an unknown token).
    ///
    /// A refresh token is also sent as `refresh_token`, the field some servers read the grant from (a server
    /// that reads only that field, and answers 200 to a bare `token`, would otherwise keep the grant alive);
    /// RFC 6749 §3.2 has a server ignore a parameter it does not know.
    public func revoke(_ token: String, hint: TokenTypeHint = .refreshToken) async throws(AuthError) {
        client.configuration.journal.register(secret: token)
        var form = ["token": token, "token_type_hint": hint.rawValue, "client_id": configuration.clientID]
        if hint == .refreshToken { form["refresh_token"] = token }
        let reply = try await client.call(.post, configuration.revocationPath, form: form)
        guard (200..<300).contains(reply.status) else { throw .unexpected(reply, "the revocation endpoint") }
    }

    /// Revokes what `credential` holds: its refresh token when it has one, since that is what renews the
    /// sign-in (revoking only the access token would leave the grant able to mint new ones), else its access
    /// token. A credential with neither (a cookie, a password) has nothing to revoke.
    public func revoke(_ credential: Credential) async throws(AuthError) {
        if let refresh = credential.refreshToken {
            try await revoke(refresh, hint: .refreshToken)
        } else if case .bearer(let access, _, _) = credential {
            try await revoke(access, hint: .accessToken)
        }
    }

    private func tokenCall(
        _ form: [String: String],
        refusal: (String?) -> AuthError = { .callbackRejected(reason: $0 ?? "the code was refused") }
    ) async throws(AuthError) -> TokenSet {
        let reply = try await client.call(.post, configuration.tokenPath, form: form)
        guard reply.status == 200, let json = reply.json else {
            let sentence = reply.json?["error_description"]?.stringValue ?? reply.json?["error"]?.stringValue
            if (400..<500).contains(reply.status) { throw refusal(sentence) }
            throw .unexpected(reply, "the token endpoint")
        }
        guard let access = json["access_token"]?.stringValue else {
            throw .unexpectedReply("the token endpoint sent no access_token")
        }
        let journal = client.configuration.journal
        journal.register(secret: access)
        guard configuration.accessTokenShape.accepts(access) else {
            throw .unexpectedReply("the token endpoint sent an access token that is not in the expected form")
        }
        let refresh = json["refresh_token"]?.stringValue
        if let refresh { journal.register(secret: refresh) }
        let expiresAt = json["expires_in"]?.doubleValue.map { client.configuration.clock.now().addingTimeInterval($0) }
        var claims: JSONValue?
        let idToken = json["id_token"]?.stringValue
        if let idToken {
            journal.register(secret: idToken)
            let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 2, let payload = Base64URL.decode(parts[1]), let decoded = JSONValue(data: payload)
            else {
                throw .unexpectedReply("the ID token is not a JWT")
            }
            claims = decoded
        }
        return TokenSet(
            accessToken: access, refreshToken: refresh, expiresAt: expiresAt, idClaims: claims, idToken: idToken)
    }
}

/// Refreshes bearer credentials at an OAuth token endpoint, keeping the old refresh token when the
/// server does not rotate it.
public struct OAuthRefresher: TokenRefresher {
    /// The OAuth client whose token endpoint is used.
    public let oauth: OAuthClient

    /// Creates a refresher.
    public init(oauth: OAuthClient) { self.oauth = oauth }

    /// Renews `credential`'s access token.
    public func refresh(_ credential: StoredCredential) async throws(AuthError) -> StoredCredential {
        guard let refreshToken = credential.credential.refreshToken else {
            throw .refreshFailed(serverSentence: nil)
        }
        let tokens = try await oauth.refresh(refreshToken)
        var renewed = credential
        renewed.credential = .bearer(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? refreshToken,
            expiresAt: tokens.expiresAt)
        renewed.storedAt = oauth.client.configuration.clock.now()
        return renewed
    }
}
