import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@Suite("Retry, idempotency and redirect rules")
struct PolicyTests {
    private let base = URL(string: "https://api.example.com/mount")

    private func client(
        _ transport: ScriptedTransport, policy: RetryPolicy = RetryPolicy(),
        sleeper: RecordingSleeper = RecordingSleeper(),
        journal: Journal = Journal()
    ) throws -> Client {
        let url = try #require(base)
        let configuration = Client.Configuration(
            retryPolicy: policy, automaticIdempotencyKeys: true, transportPolicy: .allowingInsecureLoopback,
            journal: journal, clock: ManualWallClock(),
            sleeper: sleeper,
            random: SeededRandomSource(seed: 7))
        return Client(baseURL: url, configuration: configuration, transport: transport)
    }

    @Test("idempotent methods per RFC 9110", arguments: ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])
    func idempotent(method: String) { #expect(HTTPMethod(rawValue: method).isIdempotent) }

    @Test("writes are not idempotent", arguments: ["POST", "PATCH"])
    func notIdempotent(method: String) { #expect(!HTTPMethod(rawValue: method).isIdempotent) }

    @Test func backoffIsBoundedByTheCappedExponential() {
        let policy = RetryPolicy(baseDelay: .milliseconds(500), maxDelay: .seconds(4))
        let random = SeededRandomSource(seed: 1)
        for attempt in 1...10 {
            let cap = min(4.0, 0.5 * pow(2, Double(attempt - 1)))
            for _ in 0..<50 {
                let delay = policy.backoff(afterAttempt: attempt, random: random).seconds
                #expect(delay >= 0 && delay <= cap + 0.001)
            }
        }
    }

    @Test func retryAfterSecondsAndHTTPDate() throws {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.retryAfter("120", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:00 GMT", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("-3", now: now) == nil)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }

    /// The retry middleware reads a final error reply of up to 1 MiB (whatever the request's own limit), so the
    /// server's own sentence is surfaced from a large error page too.
    @Test func anErrorReplyOfAlmostOneMebibyteIsReadForTheServersSentence() async throws {
        // A policy that retries, as the kit's default does: the bounded read is the retry middleware's.
        let client = TestClients.loopback(try TestServers.fault(), retry: RetryPolicy(maxAttempts: 2))
        do {
            _ = try await client.send(Request<JSONValue>.get("/status/422", query: ["pad": "900000"]))
            Issue.record("a 422 was taken as a success")
        } catch {
            guard case .status(let failure) = error else {
                Issue.record("expected the server's 422 with its sentence, got \(error)")
                return
            }
            #expect(failure.status == 422)
            #expect(failure.envelope?.message == "The fault server answered 422 Unprocessable Entity.")
        }
    }

    @Test func getIsRetriedOn503AndHonoursRetryAfter() async throws {
        let transport = ScriptedTransport([
            .respond(status: 503, headers: ["Retry-After": "2"]), .respond(status: 503),
            .respond(status: 200, body: "{\"ok\":true}"),
        ])
        let sleeper = RecordingSleeper()
        let value = try await client(transport, sleeper: sleeper).send(Request<JSONValue>.get("/x"))
        #expect(value["ok"]?.boolValue == true)
        #expect(transport.requests.count == 3)
        #expect(sleeper.delays.first == .seconds(2))
        #expect(sleeper.delays.count == 2)
    }

    @Test func retriesStopAtMaxAttemptsAndSurfaceTheLastStatus() async throws {
        let transport = ScriptedTransport([
            .respond(status: 502, body: #"{"error":{"code":"bad_gateway","message":"upstream down"}}"#)
        ])
        let client = try client(transport, policy: RetryPolicy(maxAttempts: 4))
        await #expect {
            try await client.send(Request<JSONValue>.get("/x"))
        } throws: { error in
            (error as? HTTPError)?.envelope?.message == "upstream down"
        }
        #expect(transport.requests.count == 4)
    }

    /// RetryPolicy (RFC 9110 §10.2.3): `Retry-After: 0` means "now", a wait of zero, not an invalid value.
    @Test func retryAfterZeroIsAWaitOfZero() {
        #expect(RetryPolicy.retryAfter("0", now: Date(timeIntervalSince1970: 0)) == .zero)
        #expect(RetryPolicy.retryAfter("-1", now: Date(timeIntervalSince1970: 0)) == nil)
    }

    /// RetryPolicy's default: at most 3 sends in all, the first included, so a GET that keeps failing waits twice.
    @Test func theDefaultPolicySendsAtMostThreeTimes() async throws {
        let transport = ScriptedTransport([.respond(status: 503)])
        let sleeper = RecordingSleeper()
        let client = try client(transport, sleeper: sleeper)
        await #expect(throws: HTTPError.self) { try await client.send(Request<JSONValue>.get("/x")) }
        #expect(transport.requests.count == 3)
        #expect(sleeper.delays.count == 2)
    }

    @Test func retryAfterBeyondTheCapIsNotWaited() async throws {
        let transport = ScriptedTransport([.respond(status: 429, headers: ["Retry-After": "3600"])])
        let sleeper = RecordingSleeper()
        let client = try client(transport, sleeper: sleeper)
        await #expect(throws: HTTPError.self) { try await client.send(Request<JSONValue>.get("/x")) }
        #expect(transport.requests.count == 1)
        #expect(sleeper.delays.isEmpty)
    }

    @Test("4xx other than 408 and 429 are not retried", arguments: [400, 401, 403, 404, 409, 422])
    func clientErrorsAreFinal(status: Int) async throws {
        let transport = ScriptedTransport([.respond(status: status)])
        let client = try client(transport)
        await #expect(throws: HTTPError.self) { try await client.send(Request<JSONValue>.get("/x")) }
        #expect(transport.requests.count == 1)
    }

    @Test func postGetsOneIdempotencyKeyReusedByEveryRetry() async throws {
        let transport = ScriptedTransport([
            .fail(.connectionLost(url: "x", receivedBytes: 0)), .respond(status: 503),
            .respond(status: 201, body: "{}"),
        ])
        let client = try client(transport)
        _ = try await client.send(Request<JSONValue>(method: .post, path: "/write", body: Data("{}".utf8)))
        let keys = transport.requests.map(\.idempotencyKey)
        #expect(keys.count == 3)
        #expect(keys.allSatisfy { $0 != nil && $0 == keys[0] })
    }

    @Test func postWithoutKeyIsNeverRetried() async throws {
        let transport = ScriptedTransport([.respond(status: 503), .respond(status: 201, body: "{}")])
        let url = try #require(base)
        let configuration = Client.Configuration(
            automaticIdempotencyKeys: false, transportPolicy: .allowingInsecureLoopback, sleeper: RecordingSleeper())
        let client = Client(baseURL: url, configuration: configuration, transport: transport)
        await #expect(throws: HTTPError.self) {
            try await client.send(Request<JSONValue>(method: .post, path: "/write", body: Data("{}".utf8)))
        }
        #expect(transport.requests.count == 1)
        #expect(transport.requests[0].idempotencyKey == nil)
    }

    @Test func aKeyTheCallerSetIsKept() async throws {
        let transport = ScriptedTransport([.respond(status: 201, body: "{}")])
        _ = try await client(transport).send(
            Request<JSONValue>(method: .patch, path: "/w").idempotencyKey("outbox-row-17"))
        #expect(transport.requests.first?.idempotencyKey == "outbox-row-17")
    }

    @Test(
        "offline, TLS and cancellation are not retried",
        arguments: [HTTPError.offline(detail: ""), .tls(host: "h", detail: ""), .cancelled])
    func finalFailures(error: HTTPError) async throws {
        let transport = ScriptedTransport([.fail(error)])
        let client = try client(transport)
        await #expect(throws: error) { try await client.send(Request<JSONValue>.get("/x")) }
        #expect(transport.requests.count == 1)
    }

    @Test func urlsJoinBelowTheMountPath() throws {
        let client = try client(ScriptedTransport([]))
        #expect(try client.url(for: "/v1/sessions").absoluteString == "https://api.example.com/mount/v1/sessions")
        #expect(
            try client.url(for: "v1/sessions?limit=2").absoluteString
                == "https://api.example.com/mount/v1/sessions?limit=2")
        let withQuery = try client.url(for: "/v1/s", query: [URLQueryItem(name: "q", value: "a b&c")])
        #expect(withQuery.absoluteString == "https://api.example.com/mount/v1/s?q=a%20b%26c")
    }

    @Test func redirectRules() throws {
        let policy = RedirectPolicy()
        let headers: HTTPHeaders = [
            "Authorization": "Bearer s3cr3t-value", "X-Certain-Token": "ctk_abc", "Cookie": "a=b",
            "Accept": "application/json",
        ]
        let https = try #require(URL(string: "https://a.example.com/x"))
        #expect(
            policy.decide(from: https, to: try #require(URL(string: "http://a.example.com/x")), headers: headers)
                == .refuse(.downgrade))
        #expect(
            policy.decide(from: https, to: try #require(URL(string: "https://a.example.com/y")), headers: headers)
                == .follow(headers))
        #expect(
            policy.decide(from: https, to: try #require(URL(string: "https://a.example.com:443/y")), headers: headers)
                == .follow(headers))
        let crossed = policy.decide(
            from: https, to: try #require(URL(string: "https://a.example.com:8443/y")), headers: headers)
        #expect(crossed == .follow(["Accept": "application/json"]))
        // http's default port is 80: a redirect to the same host at :80 stays on the origin, at another port it leaves.
        let open = RedirectPolicy(permits: { _ in true })
        let http = try #require(URL(string: "http://127.0.0.1/x"))
        #expect(
            open.decide(from: http, to: try #require(URL(string: "http://127.0.0.1:80/y")), headers: headers)
                == .follow(headers))
        #expect(
            open.decide(from: http, to: try #require(URL(string: "http://127.0.0.1:8080/y")), headers: headers)
                == .follow(["Accept": "application/json"]))
        let strict = RedirectPolicy(permits: { $0.host != "evil.example" })
        #expect(
            strict.decide(from: https, to: try #require(URL(string: "https://evil.example/")), headers: headers)
                == .refuse(.policy))
    }

    @Test func journalRedactsWhatTheChainSent() async throws {
        let journal = Journal()
        let transport = ScriptedTransport([
            .respond(
                status: 200, headers: ["Set-Cookie": "ap_session=zzz-cookie-value"], body: #"{"token":"tok-abcdef123"}"#
            )
        ])
        var request = Request<JSONValue>.post(
            "/auth/login?token=query-secret-1", body: ["username": "root", "password": "hunter2-pass"])
        request.headers["Authorization"] = "Bearer header-secret-99"
        _ = try await client(transport, journal: journal).send(request)
        let text = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        for secret in ["hunter2-pass", "header-secret-99", "query-secret-1", "zzz-cookie-value"] {
            #expect(!text.contains(secret), "journal leaked \(secret)")
        }
        #expect(text.contains("root"))
        #expect(journal.events.map(\.kind) == [.request, .response])
    }
}
