import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The transport contract's rules that no other suite holds every transport to (docs/adding-a-transport.md: T-1,
/// T-4, T-6), run once per transport against the fault server. A new transport adds its case to `TransportKind`.
@Suite("The transport contract, on every transport (docs/adding-a-transport.md)")
struct TransportConformanceTests {
    private func send(_ kind: TransportKind, _ path: String, policy: RedirectPolicy = RedirectPolicy()) async throws
        -> (HTTPResponse, HTTPBody)
    {
        let url = try #require(URL(string: try TestServers.fault().absoluteString + path))
        return try await kind.make(redirectPolicy: policy).send(HTTPRequest(url: url, timeout: .seconds(10)))
    }

    @Test(
        "T-1: every redirect hop is the policy's: a refused hop is never requested; a loop ends",
        arguments: TransportKind.available)
    func redirectsUnderThePolicy(_ kind: TransportKind) async throws {
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
        "T-4: a body over its limit is bodyTooLarge, and one within it arrives whole",
        arguments: TransportKind.available)
    func bodyLimit(_ kind: TransportKind) async throws {
        let (_, big) = try await send(kind, "/json?bytes=200000")
        let error = await #expect(throws: HTTPError.self) { _ = try await big.collect(upTo: 100_000) }
        #expect(error == .bodyTooLarge(limit: 100_000, url: ""))
        let (_, small) = try await send(kind, "/json?bytes=50000")
        #expect(try await small.collect(upTo: 100_000).count >= 50_000)
    }

    @Test(
        "T-6: a refused connection is unreachable, a reset connectionLost, a 503 a response",
        arguments: TransportKind.available)
    func errorClasses(_ kind: TransportKind) async throws {
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
}
