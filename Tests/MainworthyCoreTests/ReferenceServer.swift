import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

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
        /// A POST's JSON body as the server received it (never sign-in's); `nil` for other requests.
        var body: JSONValue?
        /// The `Last-Event-ID` header the request carried.
        var lastEventID: String?

        enum CodingKeys: String, CodingKey {
            case method, path, query, status, replayed, dropped, body
            case idempotencyKey = "idempotency_key"
            case lastEventID = "last_event_id"
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
        control = TestClients.loopback(url)
    }

    /// The shape the server answers in, from `MAINWORTHY_SHAPE`: `rich` (§2 and the fields §2 leaves open, in one
    /// plausible shape) or `spec` (§2's fields only, and the other plausible shape wherever §2 is silent). The
    /// tests pass on both.
    static var shape: String { ProcessInfo.processInfo.environment["MAINWORTHY_SHAPE"] ?? "rich" }

    /// Whether the server answers with §2's fields only.
    static var specOnly: Bool { shape == "spec" }

    /// Loads the default fixture in the run's shape (or in `shape`) and forgets faults and the log.
    func reset(shape: String = Self.shape) async throws {
        _ = try await control.send(
            Request<JSONValue>.post(
                "/_control/reset", body: ["fixture": "default", "shape": .string(shape)] as JSONValue))
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

    /// The next `times` requests to `path` fail with `status` (or, with none, only wait `delayMs`), answering the
    /// server's own envelope, or `reply` (JSON) as it is.
    func fail(_ path: String, status: Int?, times: Int = 1, delayMs: Int = 0, reply: JSONValue? = nil) async throws {
        let body: JSONValue = [
            "path": .string(path), "status": status.map { .integer(Int64($0)) } ?? .null,
            "times": .integer(Int64(times)), "delay_ms": .integer(Int64(delayMs)),
            "body": reply.map { .string($0.jsonString()) } ?? .null,
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

    /// An environment for this server's tests: the platform's transport (`COMPANION_TRANSPORT` picks it), stores
    /// and secrets in memory unless given, a sleeper that records its waits without waiting.
    static func environment(
        secrets: any SecretStore = InMemorySecretStore(), sleeper: any Sleeper = RecordingSleeper(),
        journal: Journal = Journal(), stores: StoreLocation = .memory
    ) -> AppEnvironment {
        TestEnvironments.loopback(stores: stores, secrets: secrets, journal: journal, sleeper: sleeper)
    }

    /// The build pointing at this server (or at `server`).
    func build(_ server: URL? = nil) -> MainworthyBuild { MainworthyBuild(server: server ?? url, version: "9.9.0") }

    /// Mainworthy's profile with another idle timeout.
    static func profile(timeout: Duration) -> AppProfile {
        var profile = MainworthyServer.profile
        profile.timeout = timeout
        return profile
    }

    /// The kit's sign-in model for this server, at its password step.
    @MainActor
    func signInModel(_ environment: AppEnvironment) throws -> SignInModel {
        try MainworthySignIn.model(build: build(), environment: environment)
    }

    /// Signs `user` in through the kit's sign-in model and opens the server for the account.
    @MainActor
    func signIn(_ user: String, environment: AppEnvironment, timeout: Duration = .seconds(10)) async throws
        -> MainworthyServer
    {
        let model = try signInModel(environment)
        await model.submitPassword(username: user, password: try await password(user))
        guard case .signedIn(let account) = model.state else {
            throw MainworthyError.other("\(user) could not sign in: \(model.state)")
        }
        return try await MainworthyServer.open(
            build: build(), account: account, environment: environment, profile: Self.profile(timeout: timeout))
    }

    /// A server signed in as `user`, in an environment of its own unless one is given.
    @MainActor
    func signedIn(
        _ user: String, secrets: any SecretStore = InMemorySecretStore(), sleeper: any Sleeper = RecordingSleeper(),
        journal: Journal = Journal(), timeout: Duration = .seconds(10), environment: AppEnvironment? = nil
    ) async throws -> MainworthyServer {
        try await signIn(
            user, environment: environment ?? Self.environment(secrets: secrets, sleeper: sleeper, journal: journal),
            timeout: timeout)
    }

    /// A workspace signed in as `user`, with `project` open.
    @MainActor
    func workspace(
        _ user: String, project: String = "shop", sleeper: any Sleeper = RecordingSleeper(),
        timeout: Duration = .seconds(10), environment: AppEnvironment? = nil
    ) async throws -> MainworthyWorkspace {
        let workspace = MainworthyWorkspace(
            server: try await signedIn(user, sleeper: sleeper, timeout: timeout, environment: environment))
        await workspace.load(preferred: project)
        return workspace
    }
}

extension MainworthyServer {
    /// Sends `command` past the screens (a forced request) and returns the server's refusal; a command the server
    /// accepted records an issue and gives `nil`, and a failure other than a refusal is thrown.
    func refusal<Response>(of command: WriteCommand<Response>, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> ServerRefusal?
    {
        do {
            _ = try await perform(command)
            Issue.record("the server accepted a request it should have refused", sourceLocation: sourceLocation)
            return nil
        } catch {
            guard case .refused(let refusal) = error else { throw error }
            return refusal
        }
    }

    /// A forced answer `answer` to `question` in `shop` (past its page): the server's refusal.
    func refusalOfAnswer(
        _ answer: String, to question: String, reason: String? = nil, expectedDecisionID: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ServerRefusal? {
        let body = AnswerBody(answer: answer, reason: reason, tracker: nil, expectedDecisionID: expectedDecisionID)
        return try await refusal(
            of: command(MainworthyAPI.answer("shop", question: question, body)), sourceLocation: sourceLocation)
    }
}

extension Array where Element == ReferenceServer.LoggedRequest {
    /// The POSTs to paths ending in `suffix`.
    func posts(endingWith suffix: String) -> [ReferenceServer.LoggedRequest] {
        filter { $0.method == "POST" && $0.path.hasSuffix(suffix) }
    }
}

extension MainworthyServer {
    /// Sends `request` straight to the server, past the store: a test's probe (a forced request, a read made as
    /// another device would). The core's screens read through feeds; this is not part of the core.
    func read<Response>(_ request: Request<Response>) async throws(MainworthyError) -> Response {
        do {
            return try await bundle.client.send(request)
        } catch {
            throw MainworthyError(error, client: bundle.client)
        }
    }
}
