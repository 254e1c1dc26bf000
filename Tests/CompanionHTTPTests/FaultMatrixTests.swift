import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// What a fault case must end in.
enum Expectation: Sendable {
    case success
    case unreachable, connectionLost, timedOut, tls, tooManyRedirects, bodyTooLarge, unexpectedContentType
    case undecodable(path: String?)
    case status(Int, code: String?, sentence: String?)
}

/// One row of the fault matrix: a fault the fault server produces on demand.
struct FaultCase: Sendable, CustomTestStringConvertible {
    var name: String
    var path: String
    var expectation: Expectation
    /// How many sends the client makes for a retry-safe request (GET, or POST with a key).
    var attempts: Int = 1
    var timeout: Duration = .seconds(5)
    var maxBytes: Int = 1 << 20
    var retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10))
    var server: Server = .primary

    enum Server: Sendable { case primary, closedPort, tls }

    var testDescription: String { name }

    static let all: [FaultCase] = [
        FaultCase(name: "connection refused", path: "/ok", expectation: .unreachable, attempts: 0, server: .closedPort),
        FaultCase(name: "reset mid-body", path: "/reset", expectation: .connectionLost, attempts: 3),
        FaultCase(name: "reset before any response", path: "/reset-before", expectation: .connectionLost, attempts: 3),
        FaultCase(name: "truncated body", path: "/truncate", expectation: .connectionLost, attempts: 3),
        FaultCase(name: "truncated JSON", path: "/truncated-json", expectation: .undecodable(path: nil)),
        FaultCase(
            name: "stall past the timeout", path: "/stall?seconds=4", expectation: .timedOut, attempts: 2,
            timeout: .seconds(1),
            retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10))),
        FaultCase(
            name: "stall mid-body", path: "/stall-body?seconds=4", expectation: .timedOut, attempts: 2,
            timeout: .seconds(1),
            retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10))),
        FaultCase(
            name: "503 with Retry-After, retried then surfaced", path: "/status/503?retry_after=0",
            expectation: .status(503, code: "service_unavailable", sentence: nil), attempts: 3),
        FaultCase(
            name: "429 too many requests", path: "/status/429?retry_after=0",
            expectation: .status(429, code: "rate_limited", sentence: nil), attempts: 3),
        FaultCase(
            name: "401 with an Omnigent envelope", path: "/status/401",
            expectation: .status(401, code: "unauthorized", sentence: nil)),
        FaultCase(
            name: "403 forbidden", path: "/status/403", expectation: .status(403, code: "forbidden", sentence: nil)),
        FaultCase(
            name: "404 not found", path: "/status/404", expectation: .status(404, code: "not_found", sentence: nil)),
        FaultCase(
            name: "422 FastAPI validation list", path: "/status/422?envelope=fastapi",
            expectation: .status(422, code: nil, sentence: "body.agent_id: Field required")),
        FaultCase(
            name: "400 plain error string", path: "/status/400?envelope=plain",
            expectation: .status(400, code: nil, sentence: "plain error sentence")),
        FaultCase(
            name: "500 HTML error page", path: "/html-error", expectation: .status(500, code: nil, sentence: nil),
            attempts: 3),
        FaultCase(
            name: "502 with no body", path: "/status/502?envelope=none",
            expectation: .status(502, code: nil, sentence: nil), attempts: 3),
        FaultCase(
            name: "HTML where JSON was expected", path: "/wrong-content-type", expectation: .unexpectedContentType),
        FaultCase(name: "oversized body", path: "/oversized?bytes=4194304", expectation: .bodyTooLarge),
        FaultCase(name: "invalid UTF-8", path: "/invalid-utf8", expectation: .undecodable(path: nil)),
        FaultCase(name: "not JSON at all", path: "/not-json", expectation: .undecodable(path: nil)),
        FaultCase(
            name: "JSON of the wrong shape", path: "/wrong-shape", expectation: .undecodable(path: "items[0].name")),
        FaultCase(name: "redirect loop", path: "/redirect-loop", expectation: .tooManyRedirects, attempts: 11),
        FaultCase(name: "redirect to an untrusted https origin", path: "/redirect-to-https", expectation: .tls),
        FaultCase(name: "untrusted TLS certificate", path: "/ok", expectation: .tls, server: .tls),
        FaultCase(
            name: "flaky: two 503s then success", path: "/flaky?fail=2&code=503&retry_after=0", expectation: .success,
            attempts: 3),
        FaultCase(
            name: "flaky: one reset then success", path: "/flaky?fail=1&mode=reset", expectation: .success, attempts: 2),
    ]
}

/// The shape `/wrong-shape` fails to match.
struct Shaped: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        var id: Int
        var name: String
    }

    var items: [Item]
}

@Suite("Fault matrix against the fault server", .serialized)
struct FaultMatrixTests {
    @Test(
        "each fault, with GET and with a keyed POST, over each transport", arguments: FaultCase.all,
        MethodOverTransport.all)
    func fault(_ fault: FaultCase, over variant: MethodOverTransport) async throws {
        let method = variant.method
        let base: URL
        switch fault.server {
        case .primary: base = try TestServers.fault()
        case .tls: base = try TestServers.faultTLS()
        case .closedPort: base = try #require(URL(string: "http://127.0.0.1:1"))
        }
        let journal = Journal()
        let client = Client(
            baseURL: base,
            configuration: Client.Configuration(
                timeout: fault.timeout, maxResponseBytes: fault.maxBytes, retryPolicy: fault.retry,
                transportPolicy: .allowingInsecureLoopback, journal: journal,
                sleeper: RecordingSleeper()),
            transport: variant.transport.make())
        let key = "matrix-\(UUID().uuidString.lowercased())"
        let separator = fault.path.contains("?") ? "&" : "?"
        let path = fault.path + separator + "key=\(key)"
        var request = Request<Shaped>(method: method, path: path, body: method == .post ? Data("{\"n\":1}".utf8) : nil)
        if method == .post { request = request.idempotencyKey(key) }
        if fault.path.hasPrefix("/flaky") || fault.expectation.isSuccessLike {
            let untyped = Request<JSONValue>(method: method, path: path, body: request.body).idempotencyKey(key)
            let value = try await client.send(method == .post ? untyped : Request<JSONValue>(method: .get, path: path))
            #expect(value["ok"]?.boolValue == true)
        } else {
            do {
                let value = try await client.send(request)
                Issue.record("expected \(fault.expectation), got a value: \(value)")
            } catch {
                check(error, against: fault.expectation)
                #expect(!error.description.isEmpty)
            }
        }
        // Every exchange was journaled, and a retry-safe request was sent as often as the policy allows.
        #expect(!journal.events.isEmpty)
        if method == .post, fault.server == .primary {
            let stats = try await Self.stats(key: key)
            #expect(stats.attempts == fault.attempts, "attempts for \(fault.name)")
        }
    }

    private func check(_ error: HTTPError, against expectation: Expectation) {
        switch (expectation, error) {
        case (.unreachable, .unreachable), (.connectionLost, .connectionLost), (.timedOut, .timedOut), (.tls, .tls),
            (.tooManyRedirects, .tooManyRedirects), (.bodyTooLarge, .bodyTooLarge),
            (.unexpectedContentType, .unexpectedContentType):
            return
        case (.undecodable(let path), .undecodable(let failure)):
            if let path { #expect(failure.path == path) }
        case (.status(let status, let code, let sentence), .status(let failure)):
            #expect(failure.status == status)
            if let code { #expect(failure.envelope?.code == code) }
            if let sentence { #expect(failure.envelope?.summary == sentence) }
            if status == 500 { #expect(failure.envelope?.summary?.isEmpty == false, "HTML title as the sentence") }
        default:
            Issue.record("expected \(expectation), got \(error) — \(error.description)")
        }
    }

    struct Stats: Decodable {
        var attempts: Int
        var effects: Int
    }

    static func stats(key: String) async throws -> Stats {
        let client = try TestClients.fault()
        return try await client.send(Request<Stats>.get("/_stats", query: ["key": key]))
    }

    @Test("a keyed write that fails after its effect is applied once", arguments: ["503", "reset", "stall"])
    func oneEffectPerKey(mode: String) async throws {
        let client = TestClients.loopback(
            try TestServers.fault(), retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)),
            timeout: .seconds(1), sleeper: RecordingSleeper())
        let key = "write-\(mode)-\(UUID().uuidString.lowercased())"
        let request = Request<JSONValue>(
            method: .post, path: "/write?fail_first=1&mode=\(mode)&stall=3",
            headers: ["Content-Type": "application/json"],
            body: Data("{\"title\":\"x\"}".utf8)
        ).idempotencyKey(key)
        let value = try await client.send(request)
        #expect(value["key"]?.stringValue == key)
        let stats = try await Self.stats(key: key)
        #expect(stats.effects == 1)
        #expect(stats.attempts == 2)
    }

    @Test func automaticKeyMakesAWriteApplyOnce() async throws {
        let client = Client(
            baseURL: try TestServers.fault(),
            configuration: Client.Configuration(
                retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)), automaticIdempotencyKeys: true,
                transportPolicy: .allowingInsecureLoopback, sleeper: RecordingSleeper()))
        let value = try await client.send(
            Request<JSONValue>(method: .post, path: "/write?fail_first=2&mode=reset", body: Data("{}".utf8)))
        let key = try #require(value["key"]?.stringValue)
        let stats = try await Self.stats(key: key)
        #expect(stats.effects == 1)
        #expect(stats.attempts == 3)
    }

    @Test func credentialsAreDroppedOnACrossOriginRedirect() async throws {
        let fault = try TestServers.fault()
        // No `/_reset` here: other suites use the fault server at the same time; the secrets are unique.
        let reset = TestClients.loopback(fault)
        let client = TestClients.loopback(fault, retry: RetryPolicy())
        // Unique to this run: the secondary server's log outlives a run (scripts/mutate runs this test many times
        // against one server), so fixed secrets would be found there from an earlier run.
        let run = UUID().uuidString.prefix(8)
        let secrets = ["cross-origin-secret-1-\(run)", "ctk_cross_origin_2_\(run)", "cookie-3-\(run)"]
        let request = Request<JSONValue>(
            path: "/redirect-cross-origin?code=302&path=/echo-headers",
            headers: [
                "Authorization": "Bearer \(secrets[0])", "X-Certain-Token": secrets[1],
                "Cookie": "ap_session=\(secrets[2])",
            ])
        let echoed = try await client.send(request)
        let headers = try #require(echoed["headers"]?.objectValue)
        #expect(headers["authorization"] == nil)
        #expect(headers["x-certain-token"] == nil)
        #expect(headers["cookie"] == nil)
        let log = try await reset.send(Request<JSONValue>.get("/_secondary_log"))
        let text = log.jsonString()
        #expect(text.contains("/echo-headers"))
        for secret in secrets { #expect(!text.contains(secret)) }
    }

    @Test func credentialsStayOnASameOriginRedirect() async throws {
        let client = try TestClients.fault(retry: RetryPolicy())
        let request = Request<JSONValue>(
            path: "/redirect?to=/echo-headers&code=302", headers: ["Authorization": "Bearer same-origin-token"])
        let echoed = try await client.send(request)
        #expect(echoed["headers"]?["authorization"]?.stringValue == "Bearer same-origin-token")
    }

    @Test func plainHTTPIsRefusedByPolicyBeforeAnyRequest() async throws {
        let client = Client(
            baseURL: try TestServers.fault(), configuration: Client.Configuration(transportPolicy: .httpsOnly))
        await #expect {
            try await client.send(Request<JSONValue>.get("/ok"))
        } throws: { error in
            if case .insecureTransport = error as? HTTPError { return true }
            return false
        }
    }
}

extension Expectation {
    var isSuccessLike: Bool {
        if case .success = self { return true }
        return false
    }
}
