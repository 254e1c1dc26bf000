import CertainCore
import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

/// The reference server (CERTAIN_URL, started by `scripts/servers start certain`) and its control endpoints.
/// A missing server fails the test loudly.
struct ReferenceServer {
    let url: URL
    let control: Client
    static let policy = TransportPolicy.allowingInsecureLoopback

    init() throws {
        url = try TestServers.url("CERTAIN_URL")
        control = TestClients.loopback(url)
    }

    /// Loads `fixture` (which also empties the request log).
    func reset(_ fixture: String = "default") async throws {
        _ = try await control.send(
            Request<JSONValue>.post("/_control/reset", body: ["fixture": JSONValue.string(fixture)]))
    }

    func post(_ path: String, _ body: JSONValue) async throws {
        _ = try await control.send(Request<JSONValue>.post(path, body: body))
    }

    func get(_ path: String) async throws -> JSONValue { try await control.send(Request<JSONValue>.get(path)) }

    func password(_ user: String) async throws -> String {
        try #require(try await get("/_control/fixture")["passwords"]?[user]?.stringValue)
    }

    /// The request log: method, path, query, whether a cookie and a token came along.
    func requests() async throws -> [LoggedRequest] {
        (try await get("/_control/requests")["items"]?.arrayValue ?? []).map(LoggedRequest.init)
    }

    /// The request log's version (it rises with every request logged or answered).
    func logVersion() async throws -> Int64 {
        let version = try await get("/_control/requests")["version"]?.intValue
        return try #require(version)
    }

    /// Returns once the request log changed after `version` (the server waits, at most 5 s).
    func waitForLog(after version: Int64) async throws {
        _ = try await get("/_control/requests?after=\(version)&wait_ms=5000")
    }

    func clearRequests() async throws {
        _ = try await control.send(Request<Void>.empty(.delete, "/_control/requests"))
    }

    /// The device tokens the server holds (revoked ones included).
    func tokens() async throws -> [JSONValue] { try await get("/_control/tokens").arrayValue ?? [] }

    /// The server's current month (`YYYY-MM`), as its month report names it by default.
    func currentMonth(_ server: CertainServer) async throws -> BudgetMonth {
        try await server.bundle.client.send(CertainAPI.monthReport()).month
    }

    /// A plain client with no credential, for the "web" side (a browser's cookie session).
    func anonymousClient(language: Language = .english) -> Client {
        TestEnvironments.loopback().client(for: url, profile: CertainServer.profile(language))
    }

    /// Signs `user` in through Certain's sign-in in `environment` (password, the TOTP code from the control
    /// endpoint when asked), minting a token named by `TokenName` (C-TOK-10); the credential goes to the
    /// environment's secret store.
    func signIn(_ user: String, device: String = "Linux-Testrechner", environment: AppEnvironment) async throws
        -> StoredCredential
    {
        let address = try environment.address(url.absoluteString)
        let flow = CertainServer.signIn(address, device: device, environment: environment)
        try await flow.probe()
        var step = try await flow.signIn(username: user, password: try await password(user))
        if case .secondFactor = step {
            let code = try #require(try await get("/_control/totp/\(user)")["code"]?.stringValue)
            step = try await flow.submitCode(code, kind: .totp)
        }
        guard case .authenticated = step else { throw Failure("sign-in of \(user) stopped at \(step)") }
        let stored = try await flow.issueCredential()
        try environment.secrets.save(stored)
        return stored
    }

    /// Signs `user` in and opens the account on the kit's road in `environment` (a fresh loopback one with
    /// stores in memory by default).
    func connect(
        _ user: String = "plain", language: Language = .english,
        environment: AppEnvironment = TestEnvironments.loopback(sleeper: RecordingSleeper()),
        addresses: CertainAddressBook? = nil
    ) async throws -> Connected {
        let stored = try await signIn(user, environment: environment)
        let server = try await CertainServer.open(
            stored, language: language, environment: environment, addresses: addresses)
        return Connected(stored: stored, server: server, environment: environment)
    }

    /// Signs in as a browser would (a cookie session) and returns the cookie header value.
    func webCookie(_ user: String) async throws -> String {
        let web = anonymousClient()
        let login = try await web.exchange(
            Request<JSONValue>.post(
                "/api/auth/login",
                body: ["username": JSONValue.string(user), "password": JSONValue.string(try await password(user))]))
        return try #require(login.response.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
    }

    /// Revokes `stored`'s token from the "web settings": a cookie session of the same user deletes it.
    func revokeFromTheWeb(_ stored: StoredCredential, user: String = "plain") async throws {
        try await revokeFromTheWeb(id: stored.serverID ?? "", user: user)
    }

    /// Revokes the token with the server's `id` from the "web settings".
    func revokeFromTheWeb(id: String, user: String = "plain") async throws {
        var revoke = Request<Void>.empty(.delete, "/api/inbox/tokens/\(id)")
        revoke.headers["Cookie"] = try await webCookie(user)
        _ = try await anonymousClient().send(revoke)
    }
}

/// A signed-in account for a test.
struct Connected {
    let stored: StoredCredential
    let server: CertainServer
    let environment: AppEnvironment

    var secrets: any SecretStore { environment.secrets }
    var session: CredentialSession? { server.session }

    /// The same account reopened on `address` (a dead port: the server unreachable), same environment and store.
    func reopened(at address: URL) async throws -> CertainServer {
        var moved = stored
        moved.address = try environment.address(address.absoluteString)
        return CertainServer(
            bundle: try await ServerBundle.open(
                address, account: stored.account, profile: CertainServer.profile(server.language),
                session: CredentialSession(stored: moved, store: InMemorySecretStore(), journal: environment.journal),
                environment: environment),
            language: server.language)
    }
}

/// One line of the server's request log.
struct LoggedRequest: CustomStringConvertible {
    let method: String
    let path: String
    let query: String
    let cookie: Bool
    let token: Bool
    let status: Int64?

    init(_ json: JSONValue) {
        method = json["method"]?.stringValue ?? ""
        path = json["path"]?.stringValue ?? ""
        query = json["query"]?.stringValue ?? ""
        cookie = json["cookie"]?.boolValue ?? false
        token = json["token"]?.boolValue ?? false
        status = json["status"]?.intValue
    }

    var description: String { "\(method) \(path)?\(query) cookie=\(cookie) token=\(token)" }
}

/// The port nothing listens on: the server unreachable.
let deadServer = URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/")
