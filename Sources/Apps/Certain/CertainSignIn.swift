import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Certain's sign-in: probe `/api/version`, cookie login
/// with second factor and forced password change, then mint a device token of scope `app` in the same
/// cookie session, store it for `X-Certain-Token`, and drop the cookie.
///
/// Rules: the cookie lives only in this object, only for the sign-in (C-TOK-3); a failed mint never
/// continues with the cookie (C-TOK-9); the token is named after the app and device (C-TOK-10); the mint
/// carries an `Idempotency-Key`, so a resend after a lost reply gets the same token (C-TOK-8).
public actor CertainSignIn: SignInServer {
    /// The header device tokens travel in.
    public static let tokenHeader = "X-Certain-Token"
    /// The session cookie's name.
    public static let cookieName = "certain_session"

    private let address: ServerAddress
    private let client: Client
    private let tokenName: String
    private let journal: Journal
    private let clock: any WallClock
    private var cookie: String?

    /// Creates the sign-in for `address`; `tokenName` names the device token ("Certain für iOS (iPhone von Guido)").
    public init(address: ServerAddress, client: Client, tokenName: String) {
        self.address = address
        self.client = client
        self.tokenName = tokenName
        self.journal = client.configuration.journal
        self.clock = client.configuration.clock
    }

    /// C-ADDR-3: 200 JSON naming `certain`, or a reason that tells 404, HTML, other JSON and network apart.
    public func probe() async throws(AuthError) {
        let reply: RawReply
        do {
            reply = try await client.call(.get, "/api/version")
        } catch {
            if case .http(let failure) = error {
                throw .notRecognized(reason: failure.description)
            }
            throw error
        }
        guard reply.status == 200 else {
            throw .notRecognized(reason: "GET /api/version answered \(reply.status); no Certain server runs there.")
        }
        guard let json = reply.json else {
            throw .notRecognized(reason: "GET /api/version sent \(reply.response.mediaType ?? "no content"), not JSON.")
        }
        guard json["name"]?.stringValue == "certain" else {
            throw .notRecognized(reason: "the server there is not Certain (GET /api/version names another server).")
        }
    }

    /// C-AUTH-1/2: name and password; the cookie is captured for the following steps.
    public func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        journal.register(secret: password)
        let reply = try await client.call(
            .post, "/api/auth/login", json: ["username": .string(username), "password": .string(password)])
        if let cookie = reply.cookie(named: Self.cookieName) {
            self.cookie = cookie
            journal.register(secret: String(cookie.dropFirst(Self.cookieName.count + 1)))
        }
        return try step(from: reply, refusal: .wrongCredentials(serverSentence: reply.envelope?.summary))
    }

    /// C-AUTH-3: a TOTP or recovery code.
    public func submitCode(_ code: String, kind: SecondFactorKind) async throws(AuthError) -> ServerStep {
        journal.register(secret: code)
        let reply = try await client.call(
            .post, "/api/auth/second-factor", json: ["code": .string(code)], headers: cookieHeaders())
        return try step(from: reply, refusal: .wrongCode(serverSentence: reply.envelope?.summary))
    }

    /// C-AUTH-5: the forced password change.
    public func changePassword(current: String, new: String) async throws(AuthError) -> ServerStep {
        journal.register(secret: current)
        journal.register(secret: new)
        let reply = try await client.call(
            .post, "/api/auth/password",
            json: ["current_password": .string(current), "new_password": .string(new)], headers: cookieHeaders())
        return try step(from: reply, refusal: .passwordRefused(serverSentence: reply.envelope?.summary))
    }

    /// C-TOK-1: reads the user, mints the `app` token in the cookie session, drops the cookie.
    public func issueCredential() async throws(AuthError) -> StoredCredential {
        defer { cookie = nil }
        guard cookie != nil else { throw .invalidStep("no signed-in cookie session to mint a token in") }
        let userID: String
        let minted: (id: String, token: String)
        do throws(AuthError) {
            let me = try await client.call(.get, "/api/auth/me", headers: cookieHeaders())
            guard me.status == 200, let id = me.json?["id"] else { throw AuthError.unexpected(me, "GET /api/auth/me") }
            userID = id.intValue.map(String.init) ?? id.stringValue ?? ""
            minted = try await Self.mint(client: client, name: tokenName, headers: cookieHeaders())
        } catch {
            // C-TOK-9: no user read or no token, no carrying on with the cookie: end its session and go back to
            // sign-in.
            await endCookieSession()
            throw error
        }
        // C-TOK-3: the cookie's one last use ends its own session; from here on only the token travels.
        await endCookieSession()
        journal.record(.keys, "minted an app device token; the sign-in cookie is dropped")
        return StoredCredential(
            account: AccountKey(address: address, userID: userID), address: address,
            credential: .headerToken(header: Self.tokenHeader, value: minted.token), serverID: minted.id,
            storedAt: clock.now())
    }

    /// Mints a device token of scope `app` with whatever credential `headers` (or the client's
    /// middleware) carries. A device token trying this gets `AuthError.tokenCannotMint` (C-TOK-7).
    ///
    /// The mint is a `WriteCommand`: one `Idempotency-Key`, made once, and its own resend rule (a reply lost
    /// after the request left is sent again twice at most, with the same key, C-TOK-8), so the server replays
    /// the same token instead of minting an orphan. The transport never resends it by itself.
    public static func mint(client: Client, name: String, headers: HTTPHeaders = HTTPHeaders()) async throws(AuthError)
        -> (id: String, token: String)
    {
        var request = Request<JSONValue>.post(
            "/api/inbox/tokens", body: ["name": JSONValue.string(name), "scope": JSONValue.string("app")])
        for (field, value) in headers { request.headers[field] = value }
        let command = WriteCommand(
            request, resend: .lostReply(resends: 2, first: .milliseconds(100), cap: .seconds(1)),
            random: client.configuration.random)
        let reply: RawReply
        do {
            let answer = try await client.reply(command.request)
            reply = RawReply(response: answer.response, data: answer.body)
        } catch {
            throw .http(error)
        }
        if reply.status == 403, reply.envelope?.code == "token_cannot_mint" {
            throw .tokenCannotMint(serverSentence: reply.envelope?.summary)
        }
        guard reply.status == 201, let token = reply.json?["token"]?.stringValue, let id = reply.json?["id"] else {
            throw .unexpected(reply, "POST /api/inbox/tokens")
        }
        client.configuration.journal.register(secret: token)
        return (id.intValue.map(String.init) ?? id.stringValue ?? "", token)
    }

    /// O-12: signs out by revoking the session's own token on the server (a `WriteCommand` sent once), then
    /// forgetting it locally. A failed revoke is reported but does not keep the app signed in.
    public static func signOut(session: CredentialSession, client: Client) async -> AuthError? {
        guard let stored = await session.credential else { return nil }
        var failure: AuthError?
        if let id = stored.serverID {
            let revoke = WriteCommand(
                Request<Void>.empty(.delete, "/api/inbox/tokens/\(id)"), random: client.configuration.random)
            do {
                let reply = try await client.reply(revoke.request)
                if reply.status != 204 {
                    failure = .unexpected(
                        RawReply(response: reply.response, data: reply.body), "DELETE /api/inbox/tokens")
                }
            } catch {
                failure = .http(error)
            }
        }
        await session.signOut()
        return failure
    }

    /// Ends the cookie's own session on the server (`POST /api/auth/logout`), whatever it answers.
    private func endCookieSession() async {
        _ = try? await client.call(.post, "/api/auth/logout", headers: cookieHeaders())
    }

    private func cookieHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let cookie { headers["Cookie"] = cookie }
        return headers
    }

    private func step(from reply: RawReply, refusal: AuthError) throws(AuthError) -> ServerStep {
        switch reply.status {
        case 200:
            switch reply.json?["status"]?.stringValue {
            case "ok": return .authenticated
            case "second_factor": return .secondFactor([.totp, .recoveryCode])
            case "password_change": return .passwordChange
            case "mfa_setup_required":
                let url = reply.json?["setup_url"]?.stringValue.map { address.url(appending: $0) }
                return .webSetup(url)
            default: throw .unexpected(reply, "the sign-in step")
            }
        case 401, 422: return .refused(refusal)
        default: throw .unexpected(reply, "the sign-in step")
        }
    }
}
