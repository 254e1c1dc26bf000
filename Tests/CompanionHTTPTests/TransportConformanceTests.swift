import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The HTTP transport contract (docs/adding-a-transport.md, T-1..T-7): every case runs once per transport that claims
/// it (`ConformingTransport.all`: the platform's transports and the kit's transports wrapped around one), against the
/// fault server and sockets of the test's own. A new transport adds its case to `ConformingTransport`.
@Suite("The transport contract, on every transport (docs/adding-a-transport.md)")
struct TransportConformanceTests {
    private func send(_ kind: ConformingTransport, _ path: String, policy: RedirectPolicy = RedirectPolicy())
        async throws -> (HTTPResponse, HTTPBody)
    {
        let url = try #require(URL(string: try TestServers.fault().absoluteString + path))
        return try await kind.make(redirectPolicy: policy).send(HTTPRequest(url: url, timeout: .seconds(10)))
    }

    /// A client of the fault server over `kind`, which never retries.
    private func client(_ kind: ConformingTransport, timeout: Duration = .seconds(10)) throws -> Client {
        try client(kind, base: try TestServers.fault(), timeout: timeout)
    }

    /// A client of `base` over `kind`, which never retries.
    private func client(_ kind: ConformingTransport, base: URL, timeout: Duration) throws -> Client {
        Client(
            baseURL: base,
            configuration: Client.Configuration(
                timeout: timeout, retryPolicy: .never, transportPolicy: .allowingInsecureLoopback,
                sleeper: RecordingSleeper()),
            transport: try kind.make())
    }

    @Test(
        "T-1: every redirect hop is the policy's: a refused hop is never requested; a loop ends",
        arguments: ConformingTransport.all)
    func redirectsUnderThePolicy(_ kind: ConformingTransport) async throws {
        let refusing = RedirectPolicy(permits: { !$0.path.hasPrefix("/echo") })
        let refused = await #expect(throws: HTTPError.self) {
            _ = try await send(kind, "/redirect?to=/echo&code=302", policy: refusing)
        }
        guard case .redirectRefused(_, _, .policy) = refused else {
            Issue.record("expected a refused redirect, got \(String(describing: refused))")
            return
        }
        let loop = await #expect(throws: HTTPError.self) {
            _ = try await send(kind, "/redirect-loop", policy: RedirectPolicy(maxRedirects: 3))
        }
        guard case .tooManyRedirects = loop else {
            Issue.record("expected tooManyRedirects, got \(String(describing: loop))")
            return
        }
        let (followed, _) = try await send(kind, "/redirect?to=/ok&code=302")
        #expect(followed.status == 200)
    }

    @Test(
        "T-1: a POST redirected by 307 keeps its method and body; by 303 it becomes a GET",
        arguments: ConformingTransport.keepingBodiesAcross307)
    func redirectMethods(_ kind: ConformingTransport) async throws {
        let client = try client(kind)
        let body = Data("{\"n\":42}".utf8)
        let kept = try await client.send(
            Request<JSONValue>(
                method: .post, path: "/redirect?to=/echo&code=307", headers: ["Content-Type": "application/json"],
                body: body))
        #expect(kept["method"]?.stringValue == "POST")
        #expect(kept["body_bytes"]?.intValue == Int64(body.count))
        let changed = try await client.send(
            Request<JSONValue>(method: .post, path: "/redirect?to=/echo&code=303", body: body))
        #expect(changed["method"]?.stringValue == "GET")
        #expect(changed["body_bytes"]?.intValue == 0)
    }

    private static let write = Request<JSONValue>.post("/decisions", body: ["answer": "flaky"] as JSONValue)
        .idempotencyKey("connect-timeout")

    @Test(
        "T-2: a write to a server whose accept queue is full is unreachable (nothing was sent), not timed out",
        arguments: ConformingTransport.all)
    func aConnectTimeoutIsUnreachable(_ kind: ConformingTransport) async throws {
        let socket = try UnacceptingSocket()
        let client = try client(
            kind, base: try #require(URL(string: "http://127.0.0.1:\(socket.port)")), timeout: .seconds(1))
        do {
            _ = try await client.send(Self.write)
            Issue.record("a server that accepts nothing answered")
        } catch {
            guard case .unreachable(_, let detail) = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
            #expect(detail.contains("nothing was sent"))
        }
    }

    @Test("T-2: a write the server took and never answered times out", arguments: ConformingTransport.all)
    func aSilentServerTimesOut(_ kind: ConformingTransport) async throws {
        let socket = try ListeningSocket()  // the kernel accepts the connection; nothing ever reads or answers
        let client = try client(
            kind, base: try #require(URL(string: "http://127.0.0.1:\(socket.port)")), timeout: .seconds(1))
        do {
            _ = try await client.send(Self.write)
            Issue.record("a silent server answered")
        } catch {
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
        }
    }

    @Test(
        "T-3: a write goes once, on a fresh connection, and its lost reply is connectionLost",
        arguments: ConformingTransport.all)
    func aWriteIsNeverOnAReusedConnection(_ kind: ConformingTransport) async throws {
        let client = try client(kind)
        // A GET first, so a connection to reuse is there.
        _ = try await client.send(Request<JSONValue>.get("/lost-reply"))
        let command = WriteCommand(
            Request<JSONValue>.post("/lost-reply", body: ["answer": "yes"]), random: SystemRandomSource())
        // A lost connection, not a timeout: a resend that carries the headers but not the body would wait out the
        // 10 s timeout and end as `.timedOut`.
        await #expect {
            _ = try await client.send(command.request)
        } throws: { error in
            guard case .connectionLost = error as? HTTPError else { return false }
            return true
        }
        let writes = try await LostReplyTests.writes(carrying: command.key)
        #expect(writes.count == 1)
        #expect(writes.first?.committed == true)
        #expect(writes.first?.connectionRequest == 1)
    }

    @Test(
        "T-4: a body over its limit is bodyTooLarge, and one within it arrives whole",
        arguments: ConformingTransport.all)
    func bodyLimit(_ kind: ConformingTransport) async throws {
        let (_, big) = try await send(kind, "/json?bytes=200000")
        let error = await #expect(throws: HTTPError.self) { _ = try await big.collect(upTo: 100_000) }
        #expect(error == .bodyTooLarge(limit: 100_000, url: ""))
        let (_, small) = try await send(kind, "/json?bytes=50000")
        #expect(try await small.collect(upTo: 100_000).count >= 50_000)
    }

    @Test("T-5: cancelling the calling task aborts the request", arguments: ConformingTransport.all)
    func cancellation(_ kind: ConformingTransport) async throws {
        let client = try client(kind, timeout: .seconds(30))
        let task = Task { try await client.send(Request<JSONValue>.get("/stall?seconds=20")) }
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            if case .cancelled = error as? HTTPError { return true }
            return error is CancellationError
        }
    }

    @Test(
        "T-6: a refused connection is unreachable, a reset connectionLost, a 503 a response",
        arguments: ConformingTransport.all)
    func errorClasses(_ kind: ConformingTransport) async throws {
        // Port 1 on loopback: nothing listens there, so the kernel refuses the connection.
        let refusedURL = try #require(URL(string: "http://127.0.0.1:1/"))
        let refused = await #expect(throws: HTTPError.self) {
            _ = try await kind.make().send(HTTPRequest(url: refusedURL, timeout: .seconds(5)))
        }
        guard case .unreachable = refused else {
            Issue.record("expected unreachable, got \(String(describing: refused))")
            return
        }
        let reset = await #expect(throws: HTTPError.self) {
            let (_, body) = try await send(kind, "/reset")
            _ = try await body.collect(upTo: 1 << 20)
        }
        guard case .connectionLost = reset else {
            Issue.record("expected connectionLost, got \(String(describing: reset))")
            return
        }
        let (status, _) = try await send(kind, "/status/503")
        #expect(status.status == 503)
    }

    @Test("T-7: SSE events arrive in order and the stream ends", arguments: ConformingTransport.all)
    func sseInOrder(_ kind: ConformingTransport) async throws {
        var ids: [String?] = []
        for try await event in try client(kind, timeout: .seconds(30)).events(
            .get("/sse?count=5&interval_ms=5&comment=1&multiline=1"),
            configuration: EventSourceConfiguration(reconnects: false))
        {
            ids.append(event.id)
        }
        #expect(ids == ["1", "2", "3", "4", "5"])
    }

    @Test("T-7: a large body streams in chunks and arrives whole", arguments: ConformingTransport.all)
    func largeBodyStreams(_ kind: ConformingTransport) async throws {
        let size = 8 << 20
        let (response, body) = try await client(kind, timeout: .seconds(30)).open(.get("/oversized?bytes=\(size)"))
        #expect(response.status == 200)
        var total = 0
        var chunks = 0
        for try await chunk in body {
            total += chunk.count
            chunks += 1
        }
        #expect(total == size)
        #expect(chunks > 1)
    }
}
