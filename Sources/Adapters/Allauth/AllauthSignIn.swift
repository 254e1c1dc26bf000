import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// django-allauth headless in app-client mode (`/_allauth/app/v1`, `X-Session-Token`): password login,
/// TOTP or recovery-code second factor, then the session token is the stored credential.
///
/// Rules: a login that needs the second factor answers 401 with a pending `mfa_authenticate` flow and a
/// pending session token, which is kept only for the code step; the code step answers with the final
/// token. allauth has no forced password change, so that step is refused as not possible here.
public actor AllauthSignIn: SignInServer {
    /// The API prefix of the app client.
    public static let prefix = "/_allauth/app/v1"

    private let address: ServerAddress
    private let client: Client
    private var token: String?

    /// Creates the sign-in for `address`.
    public init(address: ServerAddress, client: Client) {
        self.address = address
        self.client = client
    }

    /// Accepts a server whose `/config` answers like allauth headless.
    public func probe() async throws(AuthError) {
        let reply: RawReply
        do {
            reply = try await client.call(.get, Self.prefix + "/config")
        } catch {
            if case .http(let failure) = error { throw .notRecognized(reason: failure.description) }
            throw error
        }
        guard reply.status == 200, reply.json?["data"]?["account"] != nil else {
            throw .notRecognized(reason: "no django-allauth headless API at \(Self.prefix) (status \(reply.status)).")
        }
    }

    /// `POST /auth/login`.
    public func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        client.configuration.journal.register(secret: password)
        let reply = try await client.call(
            .post, Self.prefix + "/auth/login",
            json: ["username": .string(username), "password": .string(password)])
        return try step(reply, refusal: .wrongCredentials(serverSentence: reply.envelope?.summary))
    }

    /// `POST /auth/2fa/authenticate` with the pending token.
    public func submitCode(_ code: String, kind: SecondFactorKind) async throws(AuthError) -> ServerStep {
        client.configuration.journal.register(secret: code)
        let reply = try await client.call(
            .post, Self.prefix + "/auth/2fa/authenticate", json: ["code": .string(code)], headers: tokenHeaders())
        return try step(reply, refusal: .wrongCode(serverSentence: reply.envelope?.summary))
    }

    /// allauth has no forced password change.
    public func changePassword(current: String, new: String) async throws(AuthError) -> ServerStep {
        .refused(.invalidStep("django-allauth has no forced password change"))
    }

    /// The session token, with the user's id from `GET /auth/session`.
    public func issueCredential() async throws(AuthError) -> StoredCredential {
        defer { token = nil }
        guard let token else { throw .invalidStep("not signed in") }
        let session = try await client.call(.get, Self.prefix + "/auth/session", headers: tokenHeaders())
        guard session.status == 200, let id = session.json?["data"]?["user"]?["id"] else {
            throw .unexpected(session, "GET /auth/session")
        }
        let userID = id.intValue.map(String.init) ?? id.stringValue ?? ""
        return StoredCredential(
            account: AccountKey(address: address, userID: userID), address: address,
            credential: .sessionToken(token), storedAt: client.configuration.clock.now())
    }

    private func tokenHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let token { headers[Credential.sessionTokenHeader] = token }
        return headers
    }

    private func step(_ reply: RawReply, refusal: AuthError) throws(AuthError) -> ServerStep {
        if let value = reply.json?["meta"]?["session_token"]?.stringValue {
            token = value
            client.configuration.journal.register(secret: value)
        }
        switch reply.status {
        case 200:
            return .authenticated
        case 401:
            let flows = reply.json?["data"]?["flows"]?.arrayValue ?? []
            if let pending = flows.first(where: { $0["is_pending"]?.boolValue == true }),
                pending["id"]?.stringValue == "mfa_authenticate"
            {
                let types = (pending["types"]?.arrayValue ?? []).compactMap(\.stringValue)
                var kinds: [SecondFactorKind] = []
                if types.contains("totp") { kinds.append(.totp) }
                if types.contains("recovery_codes") { kinds.append(.recoveryCode) }
                return .secondFactor(kinds)
            }
            return .refused(refusal)
        case 400, 409:
            return .refused(refusal)
        default:
            throw .unexpected(reply, "the sign-in step")
        }
    }
}

/// Account operations of a signed-in allauth app client: sessions and password change.
public struct AllauthAccount: SessionDirectory {
    /// A client whose middleware carries the session token.
    public let client: Client
    /// The credential session (its token rotates on password change).
    public let credentials: CredentialSession

    /// Creates the account operations.
    public init(client: Client, credentials: CredentialSession) {
        self.client = client
        self.credentials = credentials
    }

    /// `GET /auth/sessions`.
    public func sessions() async throws(AuthError) -> [SessionInfo] {
        let reply = try await client.call(.get, AllauthSignIn.prefix + "/auth/sessions")
        guard reply.status == 200, let items = reply.json?["data"]?.arrayValue else {
            throw .unexpected(reply, "GET /auth/sessions")
        }
        func date(_ value: JSONValue?) -> Date? { value?.doubleValue.map { Date(timeIntervalSince1970: $0) } }
        return items.compactMap { item in
            guard let id = item["id"].flatMap({ $0.intValue.map(String.init) ?? $0.stringValue }) else { return nil }
            return SessionInfo(
                id: id, client: item["user_agent"]?.stringValue, openedAt: date(item["created_at"]),
                openedFrom: item["ip"]?.stringValue, lastUsedAt: date(item["last_seen_at"]),
                lastUsedFrom: item["ip"]?.stringValue, isCurrent: item["is_current"]?.boolValue ?? false)
        }
    }

    /// `DELETE /auth/sessions {"sessions": [id]}`.
    public func end(_ id: String) async throws(AuthError) {
        let value: JSONValue = Int64(id).map { .integer($0) } ?? .string(id)
        let reply = try await client.call(
            .delete, AllauthSignIn.prefix + "/auth/sessions", json: ["sessions": .array([value])])
        guard reply.status == 200 || reply.status == 401 else { throw .unexpected(reply, "DELETE /auth/sessions") }
    }

    /// `POST /account/password/change`; the rotated session token is stored and used from then on.
    public func changePassword(current: String, new: String) async throws(AuthError) {
        let journal = client.configuration.journal
        journal.register(secret: current)
        journal.register(secret: new)
        let reply = try await client.call(
            .post, AllauthSignIn.prefix + "/account/password/change",
            json: ["current_password": .string(current), "new_password": .string(new)])
        guard reply.status == 200 else {
            if reply.status == 400 { throw .passwordRefused(serverSentence: reply.envelope?.summary) }
            throw .unexpected(reply, "POST /account/password/change")
        }
        guard let token = reply.json?["meta"]?["session_token"]?.stringValue, var stored = await credentials.credential
        else { return }
        stored.credential = .sessionToken(token)
        try await credentials.use(stored)
    }
}

extension RevocationRule {
    /// django-allauth's rule: 401 (not authenticated), 403 and 410 (the session token expired or was ended)
    /// each mean the session is gone.
    public static let allauth = RevocationRule(statuses: [401, 403, 410])
}
