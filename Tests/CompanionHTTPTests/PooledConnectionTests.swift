import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// A kept-alive connection the server has since closed (a restart, an idle timeout) is not the next request's
/// failure: the fault server answers `/drop-on-reuse` once per connection, then closes that connection its way.
@Suite("Pooled connections the server closed", .serialized)
struct PooledConnectionTests {
    /// A client over libcurl for the fault server's TLS port, its key pinned, no retries.
    static func pinnedClient() async throws -> Client {
        let base = try TestServers.faultTLS()
        let certificate = try #require(await CertificateInspection.presented(at: base))
        let security = ConnectionSecurity(trust: ServerTrust().pinning(certificate, at: Date()), scope: [base])
        return networkClient(base, TransportKind.curl.make(security: security))
    }

    @Test(
        "NET-POOL-1: a GET after the server closed its pooled TLS connection (close_notify, RST or FIN) is answered",
        arguments: ["after", "rst", "fin"])
    func closedPooledTLSConnection(_ how: String) async throws {
        let client = try await Self.pinnedClient()
        let first = try await client.send(Request<JSONValue>.get("/drop-on-reuse?how=\(how)"))
        #expect(first["request_on_connection"] == 1)
        let second = try await client.send(Request<JSONValue>.get("/drop-on-reuse?how=\(how)"))
        #expect(second["request_on_connection"] == 1, "answered on a fresh connection")
    }

    @Test("NET-POOL-2: a GET after a server restart closed every pooled TLS connection (close_notify) is answered")
    func everyPooledConnectionClosed() async throws {
        let client = try await Self.pinnedClient()
        // Eight connections at once, each closed by the server right after its reply, as a restart leaves them.
        let answers = try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<8 {
                group.addTask { try await client.send(Request<JSONValue>.get("/drop-on-reuse?how=after")) }
            }
            return try await group.reduce(into: [JSONValue]()) { $0.append($1) }
        }
        #expect(answers.count == 8)
        let value = try await client.send(Request<JSONValue>.get("/ok"))
        #expect(value["ok"] == true)
    }
}
