import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore

/// The Mainworthy reference server the tests run against (MAINWORTHY_URL), and its control endpoints.
/// A missing server fails the test loudly.
struct ReferenceServer {
    /// One entry of the server's request log.
    struct LoggedRequest: Decodable, Sendable {
        var method: String
        var path: String
        var query: String
        var idempotencyKey: String?
        var status: Int?
        var replayed: Bool
        var dropped: Bool

        enum CodingKeys: String, CodingKey {
            case method, path, query, status, replayed, dropped
            case idempotencyKey = "idempotency_key"
        }
    }

    struct Log: Decodable, Sendable {
        var items: [LoggedRequest]
        /// How many changes the log has seen; `log(changedAfter:)` waits for the next.
        var version: Int?
    }

    let url: URL
    let control: Client

    init() throws {
        url = try TestServers.url("MAINWORTHY_URL")
        control = Client(
            baseURL: url,
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
    }

    /// Loads the default fixture and forgets faults and the log.
    func reset() async throws {
        _ = try await control.send(
            Request<JSONValue>.post("/_control/reset", body: ["fixture": "default"] as JSONValue))
    }

    /// The request log since the last reset or `clearLog()`.
    func log() async throws -> [LoggedRequest] {
        try await control.send(Request<Log>.get("/_control/requests")).items
    }

    /// The request log with its version; with a `version`, once the log changed past it (an entry added or
    /// answered), or as it stands after `waitMs` with no change: the server's change feed, waited on rather
    /// than polled.
    func log(changedAfter version: Int?, waitMs: Int = 0) async throws -> Log {
        let wait = version.map { "?after=\($0)&wait_ms=\(waitMs)" } ?? ""
        return try await control.send(Request<Log>.get("/_control/requests" + wait))
    }

    /// Empties the request log.
    func clearLog() async throws {
        try await control.send(Request<Void>.empty(.delete, "/_control/requests"))
    }

    /// The next `times` requests to `path` fail with `status` (or, with none, only wait `delayMs`).
    func fail(_ path: String, status: Int?, times: Int = 1, delayMs: Int = 0) async throws {
        let body: JSONValue = [
            "path": .string(path), "status": status.map { .integer(Int64($0)) } ?? .null,
            "times": .integer(Int64(times)), "delay_ms": .integer(Int64(delayMs)),
        ]
        _ = try await control.send(Request<JSONValue>.post("/_control/fail", body: body))
    }

    /// The next `times` requests to `path` run, then lose their reply.
    func dropReply(_ path: String, times: Int = 1) async throws {
        let body: JSONValue = ["path": .string(path), "times": .integer(Int64(times))]
        _ = try await control.send(Request<JSONValue>.post("/_control/drop-reply", body: body))
    }

    /// Sets `user`'s capabilities in `project`.
    func grant(_ user: String, _ capabilities: [String], in project: String = "shop") async throws {
        let body: JSONValue = [
            "user": .string(user), "project": .string(project),
            "capabilities": .array(capabilities.map { .string($0) }),
        ]
        _ = try await control.send(Request<JSONValue>.post("/_control/capabilities", body: body))
    }

    /// Moves the server's clock forward.
    func advanceClock(hours: Double) async throws {
        _ = try await control.send(
            Request<JSONValue>.post("/_control/clock", body: ["advance_hours": .number(hours)] as JSONValue))
    }

    /// Serves as if started with `MAINWORTHY_APPLE_APPS` set to `appleApps` (`nil`: unset).
    func configure(appleApps: String?) async throws {
        let body: JSONValue = ["apple_apps": appleApps.map { .string($0) } ?? .null]
        _ = try await control.send(Request<JSONValue>.post("/_control/configure", body: body))
    }

    /// The fixture's password for `user` (public test data).
    func password(_ user: String) async throws -> String {
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        return fixture["passwords"]?[user]?.stringValue ?? ""
    }

    /// The fixture's pipeline token.
    func pipelineToken() async throws -> String {
        try await control.send(Request<JSONValue>.get("/_control/fixture"))["pipeline_token"]?.stringValue ?? ""
    }

    /// A connection to this server with its own secret store, not signed in.
    func connection(
        secrets: any SecretStore = InMemorySecretStore(), sleeper: any Sleeper = RecordingSleeper(),
        journal: Journal = Journal(), timeout: Duration = .seconds(10), server: URL? = nil
    ) throws -> MainworthyConnection {
        try MainworthyConnection(
            build: MainworthyBuild(server: server ?? url, version: "9.9.0"), secrets: secrets,
            transportPolicy: .allowingInsecureLoopback, timeout: timeout, sleeper: sleeper,
            random: SystemRandomSource(), journal: journal)
    }

    /// A connection signed in as `user`.
    func signedIn(
        _ user: String, secrets: any SecretStore = InMemorySecretStore(), sleeper: any Sleeper = RecordingSleeper(),
        journal: Journal = Journal(), timeout: Duration = .seconds(10)
    ) async throws -> MainworthyConnection {
        let connection = try connection(secrets: secrets, sleeper: sleeper, journal: journal, timeout: timeout)
        _ = try await connection.signIn(name: user, password: try await password(user))
        return connection
    }

    /// A workspace signed in as `user`, with `project` open.
    @MainActor
    func workspace(
        _ user: String, project: String = "shop", sleeper: any Sleeper = RecordingSleeper(),
        timeout: Duration = .seconds(10)
    ) async throws -> MainworthyWorkspace {
        let workspace = MainworthyWorkspace(
            connection: try await signedIn(user, sleeper: sleeper, timeout: timeout))
        await workspace.load(preferred: project)
        return workspace
    }
}

extension Array where Element == ReferenceServer.LoggedRequest {
    /// The POSTs to paths ending in `suffix`.
    func posts(endingWith suffix: String) -> [ReferenceServer.LoggedRequest] {
        filter { $0.method == "POST" && $0.path.hasSuffix(suffix) }
    }
}
