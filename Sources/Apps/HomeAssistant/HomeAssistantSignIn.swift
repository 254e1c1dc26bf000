import CompanionAuth
import CompanionCore
import CompanionCrypto
import CompanionHTTP
import Foundation

/// What the probe of an address found, without a token (H-ADDR-3).
public enum ProbeResult: Sendable, Hashable {
    /// No Home Assistant answers there (`GET /manifest.json` was not 200, or `/auth/providers` not Home
    /// Assistant's).
    case notHomeAssistant(reason: String)
    /// Home Assistant answers but its onboarding is not finished (no user exists yet).
    case needsOnboarding
    /// Home Assistant answers with these sign-in providers (`type`, and `id` or nil).
    case ready(providers: [Provider])

    /// A sign-in provider of `/auth/providers`.
    public struct Provider: Sendable, Hashable {
        /// Its type (`homeassistant`, `trusted_networks`, `command_line`).
        public var type: String
        /// Its id, nil for the default one.
        public var id: String?
        /// Its name.
        public var name: String?

        /// Creates a provider.
        public init(type: String, id: String? = nil, name: String? = nil) {
            self.type = type
            self.id = id
            self.name = name
        }
    }
}

/// Home Assistant's sign-in on the kit's state machine: the probe, the login flow with username and password and
/// its TOTP step, and the code exchange (H-AUTH-1..9); or a long-lived token as the other way in (H-TOK-10).
///
/// Rules:
/// - The password and code go to the flow and are forgotten; nothing of them is kept (H-AUTH-12).
/// - A wrong password or code keeps the same flow (H-AUTH-4, H-AUTH-5); an attempt Home Assistant ended (abort,
///   an unknown flow, a changed network, malformed input, a refused redirect) is `ServerStep.ended` and the next
///   attempt starts a new flow (H-AUTH-6).
/// - PKCE S256 is sent only when the server's metadata lists it, and then at both ends (H-AUTH-8), with a
///   verifier of 64 characters from secure randomness (H-AUTH-9).
/// - The code is exchanged once, form-encoded, with the flow's own `client_id` (H-AUTH-7); the access token's
///   expiry is the time of receipt plus `expires_in`, the JWT is never decoded (H-TOK-1).
public actor HomeAssistantSignIn: SignInServer {
    private let address: ServerAddress
    private let client: Client
    private let identity: LoginClient
    private let journal: Journal
    private let clock: any WallClock
    private var flowID: String?
    private var pkce: PKCE?
    private var code: String?
    private var username: String?

    /// Creates the sign-in at `address` (already reduced to its root) as `identity`, with a client from the
    /// environment (no credential on it).
    public init(address: ServerAddress, client: Client, identity: LoginClient) {
        self.address = address
        self.client = client
        self.identity = identity
        self.journal = client.configuration.journal
        self.clock = client.configuration.clock
    }

    /// H-ADDR-3 for the state machine: a Home Assistant that is ready; otherwise the reason.
    public func probe() async throws(AuthError) {
        switch try await probeServer() {
        case .ready: return
        case .needsOnboarding:
            throw .notRecognized(
                reason: "Home Assistant answers there but is not set up yet: finish its onboarding in a browser first.")
        case .notHomeAssistant(let reason):
            throw .notRecognized(reason: reason)
        }
    }

    /// H-ADDR-3: `GET /manifest.json` not 200 is no Home Assistant; then `GET /auth/providers` answered 400 with
    /// `onboarding_required` needs onboarding, and 200 lists the providers. No token, no `Authorization`.
    public func probeServer() async throws(AuthError) -> ProbeResult {
        let manifest: RawReply
        do {
            manifest = try await client.call(.get, "/manifest.json")
        } catch {
            if case .http(let failure) = error, failure.statusCode != nil {
                return .notHomeAssistant(reason: failure.description)
            }
            throw error
        }
        guard manifest.status == 200 else {
            return .notHomeAssistant(
                reason: "GET /manifest.json answered \(manifest.status); no Home Assistant runs there.")
        }
        let providers = try await client.call(.get, "/auth/providers")
        if providers.status == 400, providers.json?["code"]?.stringValue == "onboarding_required" {
            return .needsOnboarding
        }
        guard providers.status == 200, case .array(let list)? = providers.json?["providers"] else {
            return .notHomeAssistant(
                reason: "GET /auth/providers answered \(providers.status) without Home Assistant's list of providers.")
        }
        return .ready(
            providers: list.compactMap { item in
                item.text("type").map { ProbeResult.Provider(type: $0, id: item.text("id"), name: item.text("name")) }
            })
    }

    /// H-AUTH-3/4: starts a flow (or uses the one a wrong password left open) and sends the password.
    public func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        journal.register(secret: password)
        if flowID == nil || self.username != username {
            if let ended = try await startFlow() { return ended }
        }
        self.username = username
        guard let flowID else { return .ended(.signInEnded(.lost, serverSentence: nil)) }
        return try await step(
            flowID,
            ["client_id": .string(identity.clientID), "username": .string(username), "password": .string(password)])
    }

    /// H-AUTH-5: the TOTP code, to the same flow.
    public func submitCode(_ code: String, kind: SecondFactorKind) async throws(AuthError) -> ServerStep {
        journal.register(secret: code)
        guard let flowID else { return .ended(.signInEnded(.lost, serverSentence: nil)) }
        return try await step(flowID, ["client_id": .string(identity.clientID), "code": .string(code)])
    }

    /// H-AUTH-7: exchanges the flow's code once for tokens, stored as a bearer credential whose `serverID` is the
    /// `client_id` they belong to (the refresh must send it, H-TOK-4).
    ///
    /// The account's user part is the username signed in with until the WebSocket channel's
    /// `auth/current_user` gives Home Assistant's user id (docs/homeassistant.md, H-NET-2).
    public func issueCredential() async throws(AuthError) -> StoredCredential {
        guard let code, let username else { throw .invalidStep("no finished login flow to exchange a code from") }
        self.code = nil
        var form = ["grant_type": "authorization_code", "code": code, "client_id": identity.clientID]
        if let pkce { form["code_verifier"] = pkce.verifier }
        pkce = nil
        let reply = try await client.call(.post, "/auth/token", form: form)
        let tokens = try Self.tokens(from: reply, receivedAt: clock.now(), journal: journal)
        guard let refresh = tokens.refreshToken else {
            throw .unexpectedReply("the token endpoint sent no refresh_token for a new sign-in")
        }
        return StoredCredential(
            account: AccountKey(address: address, userID: username), address: address,
            credential: .bearer(accessToken: tokens.accessToken, refreshToken: refresh, expiresAt: tokens.expiresAt),
            serverID: identity.clientID, storedAt: clock.now())
    }

    /// The URL of the browser path (H-AUTH-10): `/auth/authorize` with `response_type=code`, the identity, a
    /// `state` of 32 random bytes and PKCE when the server lists S256; the callback is checked with
    /// `OAuthClient.code(fromCallback:for:)`'s rules by `callbackCode`.
    public func authorizationURL() async throws(AuthError) -> (url: URL, state: String) {
        let state = try Self.randomText(bytes: 32)
        var items = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: identity.clientID),
            URLQueryItem(name: "redirect_uri", value: identity.redirectURI), URLQueryItem(name: "state", value: state),
        ]
        if try await supportsPKCE() {
            let pkce = try Self.makePKCE()
            self.pkce = pkce
            items += [
                URLQueryItem(name: "code_challenge", value: pkce.challenge),
                URLQueryItem(name: "code_challenge_method", value: PKCE.method),
            ]
        }
        var parts = URLComponents(url: address.url(appending: "/auth/authorize"), resolvingAgainstBaseURL: false)
        parts?.queryItems = items
        guard let url = parts?.url else { throw .invalidStep("the authorization URL could not be built") }
        return (url, state)
    }

    /// H-AUTH-10: the code of a browser callback that carries the `state` sent; anything else ends the attempt
    /// and no token request follows. The code is kept for `issueCredential` under `username`.
    public func acceptCallback(_ callback: URL, state: String, username: String) throws(AuthError) {
        let items = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard callback.absoluteString.hasPrefix(identity.redirectURI) else {
            throw .callbackRejected(reason: "it did not come to the app's redirect address")
        }
        guard value("state") == state else {
            throw .callbackRejected(reason: "its state does not match the request (a forged or stale reply)")
        }
        guard let code = value("code"), !code.isEmpty else { throw .callbackRejected(reason: "it carries no code") }
        journal.register(secret: code)
        self.code = code
        self.username = username
    }

    /// H-TOK-10's way in: a long-lived access token made in Home Assistant's profile, checked with `GET /api/`
    /// (200) and stored as a bearer credential without refresh or expiry, under the account name `user` (the
    /// user id comes from `auth/current_user` once the WebSocket channel reads it).
    public static func longLivedToken(
        _ token: String, user: String, address: ServerAddress, client: Client
    ) async throws(AuthError) -> StoredCredential {
        let journal = client.configuration.journal
        journal.register(secret: token)
        guard TokenShape.jwt.accepts(token) else {
            throw .wrongCredentials(serverSentence: "a long-lived access token is a JWT of three dot-separated parts")
        }
        let reply = try await client.call(.get, "/api/", headers: ["Authorization": "Bearer \(token)"])
        switch reply.status {
        case 200:
            return StoredCredential(
                account: AccountKey(address: address, userID: user), address: address,
                credential: .bearer(accessToken: token, refreshToken: nil, expiresAt: nil),
                storedAt: client.configuration.clock.now())
        case 401: throw .wrongCredentials(serverSentence: "Home Assistant refused the token")
        default: throw .unexpected(reply, "GET /api/")
        }
    }

    // MARK: The flow

    private func startFlow() async throws(AuthError) -> ServerStep? {
        flowID = nil
        pkce = nil
        var body: [String: JSONValue] = [
            "client_id": .string(identity.clientID), "handler": .array([.string("homeassistant"), .null]),
            "redirect_uri": .string(identity.redirectURI),
        ]
        if try await supportsPKCE() {
            let pkce = try Self.makePKCE()
            self.pkce = pkce
            body["code_challenge"] = .string(pkce.challenge)
            body["code_challenge_method"] = .string(PKCE.method)
        }
        let reply = try await client.call(.post, "/auth/login_flow", json: body)
        if let ended = Self.ending(reply) { return ended }
        guard reply.status == 200, let id = reply.json?.text("flow_id"), reply.json?["type"] == "form" else {
            throw .unexpected(reply, "starting the login flow")
        }
        flowID = id
        return nil
    }

    private func step(_ flowID: String, _ body: [String: JSONValue]) async throws(AuthError) -> ServerStep {
        let reply = try await client.call(.post, "/auth/login_flow/\(flowID)", json: body)
        if let ended = Self.ending(reply) {
            forgetFlow()
            return ended
        }
        guard reply.status == 200, let json = reply.json else { throw .unexpected(reply, "the login flow") }
        switch json["type"]?.stringValue {
        case "create_entry":
            guard let code = json.text("result") else { throw .unexpectedReply("the login flow ended without a code") }
            journal.register(secret: code)
            self.code = code
            self.flowID = nil
            return .authenticated
        case "form":
            let stepID = json["step_id"]?.stringValue
            let error = json["errors"]?["base"]?.stringValue
            switch (stepID, error) {
            case ("init", "invalid_auth"?): return .refused(.wrongCredentials(serverSentence: nil))
            case ("mfa", "invalid_code"?): return .refused(.wrongCode(serverSentence: nil))
            case ("mfa", _): return .secondFactor([.totp])
            case ("select_mfa_module", _):
                return try await step(
                    flowID,
                    ["client_id": .string(identity.clientID), "multi_factor_auth_module": .string("totp")])
            case ("init", let other?):
                return .refused(.wrongCredentials(serverSentence: other))
            default:
                throw .unexpectedReply("the login flow asked for a step this app does not know (\(stepID ?? "none"))")
            }
        case "abort":
            forgetFlow()
            let reason = json["reason"]?.stringValue
            switch reason {
            case "too_many_retry": return .ended(.signInEnded(.tooManyAttempts, serverSentence: nil))
            case "login_expired": return .ended(.signInEnded(.expired, serverSentence: nil))
            default: return .ended(.signInEnded(.other, serverSentence: reason))
            }
        default:
            throw .unexpected(reply, "the login flow")
        }
    }

    private func forgetFlow() {
        flowID = nil
        pkce = nil
    }

    /// H-AUTH-6: the statuses and sentences that end an attempt.
    static func ending(_ reply: RawReply) -> ServerStep? {
        let message = reply.json?["message"]?.stringValue
        switch (reply.status, message) {
        case (404, _): return .ended(.signInEnded(.lost, serverSentence: message))
        case (400, "IP address changed"?): return .ended(.signInEnded(.networkChanged, serverSentence: message))
        case (400, "User input malformed"?): return .ended(.signInEnded(.malformed, serverSentence: message))
        case (400, "Invalid client id"?): return .ended(.signInEnded(.invalidClient, serverSentence: message))
        case (403, "Invalid redirect URI"?): return .ended(.signInEnded(.invalidRedirect, serverSentence: message))
        default: return nil
        }
    }

    // MARK: PKCE

    /// H-AUTH-8: whether `/.well-known/oauth-authorization-server` lists S256.
    private func supportsPKCE() async throws(AuthError) -> Bool {
        let reply = try await client.call(.get, "/.well-known/oauth-authorization-server")
        guard reply.status == 200, case .array(let methods)? = reply.json?["code_challenge_methods_supported"] else {
            return false
        }
        return methods.contains(.string(PKCE.method))
    }

    /// H-AUTH-9: a verifier of 64 characters (48 secure random bytes in base64url) and its S256 challenge.
    static func makePKCE() throws(AuthError) -> PKCE {
        PKCE(verifier: try randomText(bytes: 48))
    }

    /// `bytes` secure random bytes in base64url without padding.
    static func randomText(bytes: Int) throws(AuthError) -> String {
        let data: Data
        do {
            data = try SecureRandom.bytes(bytes)
        } catch {
            throw .unexpectedReply("no secure randomness available")
        }
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    // MARK: Tokens

    /// Reads a token endpoint reply (H-AUTH-7, H-TOK-1): 200 with a JWT access token and `expires_in`; a 4xx is
    /// the server's refusal in its own words, anything else unexpected.
    static func tokens(from reply: RawReply, receivedAt now: Date, journal: Journal) throws(AuthError) -> IssuedTokens {
        guard reply.status == 200, let json = reply.json else {
            let sentence = reply.json?["error_description"]?.stringValue ?? reply.json?["error"]?.stringValue
            if (400..<500).contains(reply.status) {
                throw .callbackRejected(reason: sentence ?? "the code was refused")
            }
            throw .unexpected(reply, "the token endpoint")
        }
        guard let access = json.text("access_token") else {
            throw .unexpectedReply("the token endpoint sent no access_token")
        }
        journal.register(secret: access)
        guard TokenShape.jwt.accepts(access) else {
            throw .unexpectedReply("the token endpoint sent an access token that is not a JWT")
        }
        let refresh = json.text("refresh_token")
        if let refresh { journal.register(secret: refresh) }
        let expiresAt = json["expires_in"]?.doubleValue.map { now.addingTimeInterval($0) }
        return IssuedTokens(accessToken: access, refreshToken: refresh, expiresAt: expiresAt)
    }
}

/// Tokens from `/auth/token`: a refresh answer carries no refresh token (Home Assistant does not rotate them).
struct IssuedTokens: Sendable, Hashable {
    var accessToken: String
    var refreshToken: String?
    var expiresAt: Date?
}
