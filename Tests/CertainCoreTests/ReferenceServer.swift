import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
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
        control = Client(
            baseURL: url,
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: Self.policy))
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

    func clearRequests() async throws {
        _ = try await control.send(Request<Void>.empty(.delete, "/_control/requests"))
    }

    /// A plain client with no credential, for the "web" side (a browser's cookie session).
    func anonymousClient(language: Language = .english) -> Client {
        Client(
            baseURL: url,
            configuration: Client.Configuration(
                defaultHeaders: ["Accept": "application/json", "Accept-Language": language.acceptLanguage],
                retryPolicy: .never, transportPolicy: Self.policy))
    }

    /// Signs `user` in through Certain's sign-in (password, and the TOTP code from the control endpoint when
    /// asked), minting a token named by `TokenName` (C-TOK-10).
    func signIn(_ user: String, device: String = "Linux-Testrechner", secrets: any SecretStore, journal: Journal)
        async throws -> StoredCredential
    {
        let address = try ServerAddress(parsing: url.absoluteString, policy: Self.policy)
        let client = Client(
            baseURL: url,
            configuration: Client.Configuration(
                retryPolicy: .never, transportPolicy: Self.policy, journal: journal))
        let flow = CertainSignIn(address: address, client: client, tokenName: TokenName.make(device: device))
        try await flow.probe()
        var step = try await flow.signIn(username: user, password: try await password(user))
        if case .secondFactor = step {
            let code = try #require(try await get("/_control/totp/\(user)")["code"]?.stringValue)
            step = try await flow.submitCode(code, kind: .totp)
        }
        guard case .authenticated = step else { throw Failure("sign-in of \(user) stopped at \(step)") }
        let stored = try await flow.issueCredential()
        try secrets.save(stored)
        return stored
    }

    /// Signs `user` in and opens the connection, with offline data in `folder` (`nil`: memory).
    func connect(
        _ user: String = "plain", language: Language = .english, folder: URL? = nil,
        secrets: any SecretStore = InMemorySecretStore(), journal: Journal = Journal()
    ) async throws -> Connected {
        let stored = try await signIn(user, secrets: secrets, journal: journal)
        let (connection, session) = try CertainAccount.connect(
            stored: stored, secrets: secrets, offlineFolder: folder, language: language, transportPolicy: Self.policy,
            journal: journal)
        return Connected(stored: stored, connection: connection, session: session, secrets: secrets)
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
}

/// A signed-in account for a test.
struct Connected {
    let stored: StoredCredential
    let connection: CertainConnection
    let session: CredentialSession
    let secrets: any SecretStore
}

/// One line of the server's request log.
struct LoggedRequest: CustomStringConvertible {
    let method: String
    let path: String
    let query: String
    let cookie: Bool
    let token: Bool

    init(_ json: JSONValue) {
        method = json["method"]?.stringValue ?? ""
        path = json["path"]?.stringValue ?? ""
        query = json["query"]?.stringValue ?? ""
        cookie = json["cookie"]?.boolValue ?? false
        token = json["token"]?.boolValue ?? false
    }

    var description: String { "\(method) \(path)?\(query) cookie=\(cookie) token=\(token)" }
}

/// A fresh folder under the temporary directory.
func temporaryFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("certain-core-\(UUID().uuidString)")
}
