import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@Suite("Channels made by AppEnvironment with a server's network settings (nginx, Servers/wsfault)")
struct ChannelEnvironmentTests {
    private static let token = WSFaultServer.token

    /// An environment whose secret store holds the nginx WebSocket site's settings: the private CA, the client
    /// identity signed by the intermediate, the proxy's Basic credential.
    private func environment(journal: Journal, identity: Bool = true, basic: Bool = true) throws -> (
        AppEnvironment, URL
    ) {
        let url = try NginxServer.url(.webSocket)
        let secrets = InMemorySecretStore()
        let environment = TestEnvironments.loopback(secrets: secrets, journal: journal)
        let address = try environment.address(url.absoluteString)
        let settings = NetworkSettings(store: secrets)
        let client = try ClientIdentity(
            importing: try NginxServer.clientP12(), passphrase: try NginxServer.p12Passphrase(),
            at: Date(timeIntervalSince1970: 1_764_400_000))
        if identity { try settings.assign(client, to: [address]) }
        let root = try NginxServer.rootDER()
        let basicCredential = ProxyCredential(
            user: try NginxServer.basicUser(), password: try NginxServer.basicPassword())
        try settings.update(address) { network in
            network.trust = ServerTrust(anchors: [root])
            if basic { network.proxyCredential = basicCredential }
        }
        return (environment, url)
    }

    @Test("K-CH-11: a channel through nginx with the private CA, a client certificate and proxy Basic signs in")
    func throughNginx() async throws {
        let journal = Journal()
        let (environment, url) = try environment(journal: journal)
        let channel = environment.channel(for: url, path: "/app", dialect: WSFaultServer.dialect())
        await channel.start()
        #expect(try await channel.send(["type": "echo", "payload": "through the proxy"]) == "through the proxy")
        await channel.stop()
        let text = journal.events.map { "\($0.message) \($0.fields)" }.joined(separator: "\n")
        #expect(text.contains("channel ready"))
        #expect(!text.contains(Self.token))
        #expect(!text.contains(try NginxServer.basicPassword()))
    }

    @Test("K-CH-12: without the proxy's Basic credential the channel says the proxy wants its sign-in")
    func proxyBasicRequired() async throws {
        let (environment, url) = try environment(journal: Journal(), basic: false)
        let transport = environment.channelTransport(for: url)
        let request = ChannelRequest(url: url.appendingPathComponent("app"))
        let error = await #expect(throws: ChannelError.self) { _ = try await transport.open(request) }
        guard case .connection(.proxySignInRequired) = error else {
            Issue.record("expected the proxy's sign-in, got \(String(describing: error))")
            return
        }
    }

    @Test("K-CH-13: without the client certificate nginx's refusal is clientCertificateRequired, not a 400")
    func clientCertificateRequired() async throws {
        let (environment, url) = try environment(journal: Journal(), identity: false)
        let transport = environment.channelTransport(for: url)
        let error = await #expect(throws: ChannelError.self) {
            _ = try await transport.open(ChannelRequest(url: url.appendingPathComponent("app")))
        }
        guard case .connection(.clientCertificateRequired) = error else {
            Issue.record("expected clientCertificateRequired, got \(String(describing: error))")
            return
        }
    }

    @Test("K-CH-14: the private CA is what makes the server trusted: without it the TLS connection is refused")
    func untrustedWithoutCA() async throws {
        let url = try NginxServer.url(.webSocket)
        let environment = TestEnvironments.loopback()
        let error = await #expect(throws: ChannelError.self) {
            _ = try await environment.channelTransport(for: url).open(
                ChannelRequest(url: url.appendingPathComponent("app")))
        }
        // The refusal carries the presented certificate when a second handshake could read it; a server that
        // requires a client certificate may end that one too, and the refusal is then the TLS error itself.
        switch error {
        case .connection(.untrustedCertificate), .connection(.tls): break
        default: Issue.record("expected the certificate refused, got \(String(describing: error))")
        }
    }

}
