import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// A connect timeout is a request that never left: `unreachable`, like a refused connection, so no resend rule for
/// lost replies sends it again and an app can say that nothing was sent. A server that took the request and then
/// said nothing is `timedOut`: it may have acted on it.
@Suite("A connect timeout is a request that never left, on every transport")
struct ConnectTimeoutTests {
    private func client(_ port: Int, _ kind: TransportKind) throws -> Client {
        Client(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")),
            configuration: Client.Configuration(
                timeout: .seconds(1), retryPolicy: .never, transportPolicy: .allowingInsecureLoopback,
                sleeper: RecordingSleeper()),
            transport: kind.make())
    }

    private static let write = Request<JSONValue>.post("/decisions", body: ["answer": "flaky"] as JSONValue)
        .idempotencyKey("connect-timeout")

    @Test(
        "a write to a server whose accept queue is full is unreachable, not timed out",
        arguments: TransportKind.available)
    func aConnectTimeoutIsUnreachable(_ kind: TransportKind) async throws {
        let socket = try UnacceptingSocket()
        let client = try client(socket.port, kind)
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

    @Test("a write the server took and never answered times out", arguments: TransportKind.available)
    func aSilentServerTimesOut(_ kind: TransportKind) async throws {
        let socket = try ListeningSocket()  // the kernel accepts the connection; nothing ever reads or answers
        let client = try client(socket.port, kind)
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
}
