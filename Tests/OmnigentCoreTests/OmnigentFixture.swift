import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import Observation
import Testing

@testable import OmnigentCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Omnigent core's test parts on the kit's road: an environment for the local servers (the kit's
/// `TestEnvironments.loopback`), a connection, a server bundle, and a session to work on.
enum OmnigentFixture {
    /// An environment for the loopback servers; stores in memory unless `folder` is given.
    static func environment(
        journal: Journal = Journal(), folder: TemporaryFolder? = nil, secrets: any SecretStore = InMemorySecretStore(),
        clock: any WallClock = SystemWallClock(), sleeper: any Sleeper = TaskSleeper(),
        transport: (any Transport)? = nil, policy: TransportPolicy = .allowingInsecureLoopback
    ) -> AppEnvironment {
        let stores = StoreRegistry(location: folder.map { .directory($0.url) } ?? .memory, clock: clock)
        return AppEnvironment(
            transportPolicy: policy, stores: stores, secrets: secrets, journal: journal, clock: clock,
            sleeper: sleeper, transport: transport)
    }

    /// The address of `url` under the loopback policy.
    static func address(_ url: URL) throws -> ServerAddress {
        try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback)
    }

    /// The connection to the server at `url` (probe, then manifest).
    static func connection(_ url: URL, environment: AppEnvironment) async throws -> ServerConnection {
        try await OmnigentConnector.connect(try address(url), environment: environment)
    }

    /// The server at `url`, opened for the account `/v1/me` names.
    static func server(
        _ url: URL, environment: AppEnvironment, session: CredentialSession? = nil
    ) async throws -> OmnigentServer {
        let connection = try await connection(url, environment: environment)
        let account = try await OmnigentServer.account(of: connection, session: session, environment: environment)
        return try await OmnigentServer.open(connection, account: account, session: session, environment: environment)
    }

    /// A new session of `debby` (or the first agent) through `client`.
    static func createSession(_ client: Client, title: String) async throws -> Session {
        let agents = try await client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first(where: { $0.name == "debby" }) ?? agents.data.first)
        return try await client.send(try OmnigentAPI.createSession(agentID: agent.id, title: title))
    }

    /// Makes session `id` fail through 0.19.1's own API: a terminal-observed `external_session_status` edge
    /// with the failure's text, which the server keeps as the session's `last_task_error`.
    static func fail(_ id: String, saying output: String, client: Client) async throws {
        let event: JSONValue = .object([
            "type": "external_session_status", "data": .object(["status": "failed", "output": .string(output)]),
        ])
        _ = try await client.send(Request<JSONValue>.post("/v1/sessions/\(id)/events", body: event))
    }

    /// Makes session `id` wait on an approval through 0.19.1's own API: an `mcp_elicitation` event (what a
    /// runner posts when an MCP server asks), which the server publishes as a pending form elicitation.
    /// Returns the elicitation's id.
    static func askApproval(
        _ id: String, message: String, schema: JSONValue = ["type": "object", "properties": [:]], client: Client
    ) async throws -> String {
        let event: JSONValue = .object([
            "type": "mcp_elicitation",
            "data": .object(["message": .string(message), "requestedSchema": schema]),
        ])
        let ack = try await client.send(Request<JSONValue>.post("/v1/sessions/\(id)/events", body: event))
        return try #require(ack["elicitation_id"]?.stringValue)
    }

    /// A login on the accounts server, straight on the wire (as the phone's web view would hold it).
    static func accountsLogin() async throws -> (url: URL, token: String, user: String, password: String) {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try accountsPassword()
        let reply = try await TestClients.loopback(url).send(
            Request<JSONValue>.post(
                "/auth/login", body: JSONValue.object(["username": .string(user), "password": .string(password)])))
        return (url, try #require(reply["token"]?.stringValue), user, password)
    }

    /// The accounts server's admin password.
    static func accountsPassword() throws -> String {
        try String(contentsOfFile: try TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The platform's transport, recording what went out (method, path, query, headers, timeout) and the status
/// that came back.
final class RecordingTransport: Transport {
    struct Sent: Sendable {
        var method: String
        var path: String
        var query: String?
        var headers: HTTPHeaders
        var timeout: Duration
        var status: Int?
    }
    private let inner: any Transport
    private let log = Locked<[Sent]>([])

    init(_ inner: any Transport = DefaultTransport.make()) { self.inner = inner }

    var sent: [Sent] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        let index = log.withLock { log -> Int in
            log.append(
                Sent(
                    method: request.method.rawValue, path: request.url.path, query: request.url.query,
                    headers: request.headers, timeout: request.timeout))
            return log.count - 1
        }
        let (response, body) = try await inner.send(request)
        log.withLock { $0[index].status = response.status }
        return (response, body)
    }
}

/// A URL written in a test (it always parses).
func fixtureURL(_ text: String) -> URL {
    guard let url = URL(string: text) else { preconditionFailure("fixture URL \(text) must parse") }
    return url
}

/// The platform's transport with a hosts file: a request to a host named in `hosts` goes to that URL's
/// scheme, host and port instead (as a resolver would send it), keeping its path and query. For host names
/// the tests cannot resolve, such as a Databricks workspace's.
final class HostsTransport: Transport {
    private let inner = DefaultTransport.make()
    private let hosts: [String: URL]

    init(_ hosts: [String: URL]) { self.hosts = hosts }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        var sent = request
        if let host = request.url.host, let target = hosts[host],
            var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        {
            parts.scheme = target.scheme
            parts.host = target.host
            parts.port = target.port
            if let url = parts.url { sent.url = url }
        }
        return try await inner.send(sent)
    }
}

/// The platform's transport, except that requests to one path are answered `status` with Omnigent's error
/// envelope and go nowhere: one route refused while the rest of a real server answers, which no 0.19.1
/// server does on its own (it refuses a credential on every route alike).
final class RefusingRouteTransport: Transport {
    private let inner = DefaultTransport.make()
    private let path: String
    private let status: Int

    init(path: String, status: Int) {
        self.path = path
        self.status = status
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        guard request.url.path.hasSuffix(path) else { return try await inner.send(request) }
        let response = HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"], url: request.url)
        return (response, HTTPBody(Data(#"{"error":{"code":"unauthenticated","message":"Sign in again."}}"#.utf8)))
    }
}
