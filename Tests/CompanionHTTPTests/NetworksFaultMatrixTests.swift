import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The fault matrix (FaultMatrixTests) once more, through nginx in front of the fault server (its private CA
/// trusted for that server, the whole network stack of `ServerNetwork.transport`): every fault ends the same way
/// and a retry-safe request is sent as often, except where a proxy itself answers instead (NET-PROXY-5).
@Suite("Self-hosted networks: the fault matrix over the proxy", .serialized)
struct NetworksFaultMatrixTests {
    /// The matrix as seen through a proxy: a connection the server resets before any byte is nginx's
    /// `502 Bad Gateway` (retried like one).
    static let overProxy: [FaultCase] = FaultCase.all.map { fault in
        var row = fault
        if fault.path == "/reset-before" { row.expectation = .status(502, code: nil, sentence: nil) }
        return row
    }

    static let variants: [MethodOverTransport] = MethodOverTransport.all.filter { $0.transport.appliesServerSecurity }

    @Test("NET-PROXY-5: each fault, with GET and with a keyed POST, through nginx", arguments: overProxy, variants)
    func faultOverTheProxy(_ fault: FaultCase, over variant: MethodOverTransport) async throws {
        let proxy = try NginxServer.url(.fault)
        let base: URL
        switch fault.server {
        case .primary: base = proxy
        case .tls: base = try TestServers.faultTLS()
        case .closedPort: base = try #require(URL(string: "http://127.0.0.1:1"))
        }
        let server = try ServerAddress(parsing: proxy.absoluteString)
        let network = ServerNetwork(server: server, trust: try privateCATrust())
        let security = ConnectionSecurity(trust: network.trust, scope: network.addresses.map(\.url))
        let transport = network.transport(identity: nil, platform: variant.transport.make(security: security))
        try await FaultMatrixTests.exercise(fault, method: variant.method, base: base, transport: transport)
    }
}
