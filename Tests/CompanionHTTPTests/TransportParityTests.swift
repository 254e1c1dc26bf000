import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The same exchanges over every live transport, against the fault server and the real Omnigent
/// server: SSE, streamed bodies, redirects, timeouts and cancellation. (The fault matrix runs over
/// both transports too; the rest of the suite runs over the default one, which
/// `COMPANION_TRANSPORT=urlsession` switches.)
@Suite("Every transport against real servers")
struct TransportParityTests {
    private func client(_ kind: TransportKind, timeout: Duration = .seconds(30)) throws -> Client {
        Client(
            baseURL: try TestServers.fault(),
            configuration: Client.Configuration(
                timeout: timeout, retryPolicy: .never, transportPolicy: .allowingInsecureLoopback,
                sleeper: RecordingSleeper()),
            transport: kind.make())
    }

    private func collect(_ stream: AsyncThrowingStream<ServerSentEvent, any Error>, limit: Int = .max) async throws
        -> [ServerSentEvent]
    {
        var events: [ServerSentEvent] = []
        for try await event in stream {
            events.append(event)
            if events.count >= limit { break }
        }
        return events
    }

    #if os(Linux)
        @Test("a reply that is not HTTP at all is a lost connection (retried), not a request that cannot be built")
        func aNonHTTPReplyIsALostConnection() async throws {
            let client = try client(.curl)
            do {
                _ = try await client.send(Request<JSONValue>.get("/http09"))
                Issue.record("expected an error")
            } catch {
                guard case .connectionLost = error else {
                    Issue.record("expected connectionLost, got \(error)")
                    return
                }
            }
        }
    #endif

    @Test("a dropped SSE stream resumes after the last event id", arguments: TransportKind.available)
    func sseResumes(_ kind: TransportKind) async throws {
        let stream = "parity-\(kind.rawValue)-\(UUID().uuidString.prefix(8))"
        let events = try await collect(
            try client(kind).events(.empty(.get, "/sse?count=6&interval_ms=5&drop_after=3&stream=\(stream)")),
            limit: 6)
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5", "6"])
        let stats = try await client(kind).send(Request<JSONValue>.get("/_sse_stats", query: ["stream": stream]))
        #expect(stats["last_event_ids"]?[1] == .string("3"))
    }

    @Test("a silent SSE stream times out and reconnects", arguments: TransportKind.available)
    func sseIdle(_ kind: TransportKind) async throws {
        let stream = "parity-idle-\(kind.rawValue)-\(UUID().uuidString.prefix(8))"
        let events = try await collect(
            try client(kind).events(
                .empty(.get, "/sse?count=3&interval_ms=5&stall_after=2&stream=\(stream)"),
                configuration: EventSourceConfiguration(idleTimeout: .seconds(1))),
            limit: 3)
        #expect(events.map(\.id) == ["1", "2", "3"])
    }

    @Test("a sub-second timeout is honoured: not fired at once, and fired on a stall")
    func subSecondTimeout() async throws {
        #if os(Linux)
            // URLSession on Linux fires any sub-second timeout at once. A loaded machine can delay one answer past
            // 900 ms, so the GET may be retried; what matters is that it can succeed at all.
            let client = Client(
                baseURL: try TestServers.fault(),
                configuration: Client.Configuration(
                    timeout: .milliseconds(900), retryPolicy: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(10)),
                    transportPolicy: .allowingInsecureLoopback, sleeper: RecordingSleeper()),
                transport: TransportKind.curl.make())
            let value = try await client.send(Request<JSONValue>.get("/ok"))
            #expect(value["ok"]?.boolValue == true)
            await #expect {
                _ = try await client.send(Request<JSONValue>.get("/stall?seconds=5"))
            } throws: { error in
                if case .timedOut = error as? HTTPError { return true }
                return false
            }
        #endif
    }

    @Test("a write whose reply is lost is sent once: the transport never resends it")
    func aLostWriteIsSentOnce() async throws {
        // URLSession on Linux fails this: FoundationNetworking lets libcurl silently resend a request whose reused
        // connection died before any reply byte, writes included (seen here: 2 attempts for one send).
        #if os(Linux)
            let kind = TransportKind.curl
        #else
            let kind = TransportKind.urlSession
        #endif
        let client = try client(kind)
        // A GET first, so a kept-alive connection is there to be reused.
        _ = try await client.send(Request<JSONValue>.get("/ok"))
        let key = "parity-once-\(kind.rawValue)-\(UUID().uuidString.lowercased())"
        let write = Request<JSONValue>(
            method: .post, path: "/write?fail_first=1&mode=reset", headers: ["Content-Type": "application/json"],
            body: Data("{}".utf8)
        ).idempotencyKey(key)
        await #expect(throws: HTTPError.self) { try await client.send(write) }
        let stats = try await client.send(Request<JSONValue>.get("/_stats", query: ["key": key]))
        #expect(stats["attempts"]?.intValue == 1)
    }

    @Test("the credentials of a cross-origin redirect are dropped", arguments: TransportKind.available)
    func crossOriginRedirect(_ kind: TransportKind) async throws {
        let echoed = try await client(kind).send(
            Request<JSONValue>(
                path: "/redirect-cross-origin?code=302&path=/echo-headers",
                headers: ["Authorization": "Bearer parity-secret"]))
        #expect(echoed["origin"]?.stringValue == "secondary")
        #expect(echoed["headers"]?["authorization"] == nil)
    }

    @Test("an Omnigent event posted to a session arrives over its stream", arguments: TransportKind.available)
    func omnigentStream(_ kind: TransportKind) async throws {
        let client = TestClients.loopback(try TestServers.omnigent(), retry: RetryPolicy(), transport: kind.make())
        let agents = try await client.send(Request<JSONValue>.get("/v1/agents"))
        let agent = try #require(agents["data"]?[0]?["id"]?.stringValue)
        let session = try await client.send(
            Request<JSONValue>(
                method: .post, path: "/v1/sessions", headers: ["Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: ["agent_id": agent, "title": "parity \(kind)"])))
        let id = try #require(session["id"]?.stringValue)
        let events = client.events(
            .empty(.get, "/v1/sessions/\(id)/stream"), configuration: EventSourceConfiguration(reconnects: false))
        let text = "Parity \(UUID().uuidString)"
        let received = Task {
            for try await event in events {
                if event.event == "session.presence" {
                    let body = try JSONSerialization.data(withJSONObject: [
                        "type": "external_assistant_message", "data": ["agent": "debby", "text": text],
                    ])
                    _ = try await client.send(
                        Request<JSONValue>(
                            method: .post, path: "/v1/sessions/\(id)/events",
                            headers: ["Content-Type": "application/json"], body: body))
                }
                if event.event == "response.output_item.done", event.data.contains(text) { return true }
            }
            return false
        }
        #expect(try await received.value)
    }
}
