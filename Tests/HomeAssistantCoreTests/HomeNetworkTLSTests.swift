import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// The https instance (private CA, a client certificate required by Home Assistant's own `ssl_peer_certificate`)
/// reached through the kit's network settings only (H-NET-8, H-NET-9).
@Suite(.exclusive("homeassistant-tls")) struct HomeNetworkTLSTests {
    let server: HomeAssistantFixture
    let tlsURL: URL

    init() throws {
        server = try HomeAssistantFixture()
        tlsURL = try TestServers.url("HOMEASSISTANT_TLS_URL")
    }

    /// An environment whose secret store holds the server's CA and, when `withIdentity`, its client identity.
    func environment(ca: Bool = true, withIdentity: Bool) throws -> (AppEnvironment, ServerAddress) {
        let environment = TestEnvironments.loopback()
        let address = try HomeAssistantAddress.parse(tlsURL.absoluteString, policy: environment.transportPolicy)
        let settings = NetworkSettings(store: environment.secrets)
        if ca {
            let der = try Data(contentsOf: URL(fileURLWithPath: try TestServers.value("HOMEASSISTANT_TLS_ROOT_DER")))
            _ = try settings.trustCA(der, for: address)
        }
        if withIdentity {
            let p12 = try Data(contentsOf: URL(fileURLWithPath: try TestServers.value("HOMEASSISTANT_TLS_CLIENT_P12")))
            let passphrase = try HomeAssistantFixture.file("HOMEASSISTANT_TLS_P12_PASSPHRASE_FILE")
            try settings.assign(try ClientIdentity(importing: p12, passphrase: passphrase, at: Date()), to: [address])
        }
        return (environment, address)
    }

    @Test(
        "H-NET-8: the server's CA and client certificate from the kit's settings carry the sign-in, the token refresh and REST on the https instance"
    )
    func signInAndStatesOverMutualTLS() async throws {
        let (environment, address) = try environment(withIdentity: true)
        let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        let home = try await HomeAssistantServer.open(stored.account, environment: environment)
        let states = try await home.states().value
        #expect(states.count >= 100)
        #expect(try await home.config().value.version == "2025.4.4")
    }

    @Test("H-NET-8: without the server's CA the sign-in is refused as an untrusted certificate before anything is sent")
    func untrustedWithoutCA() async throws {
        let (environment, address) = try environment(ca: false, withIdentity: true)
        let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
        do {
            _ = try await signIn.signIn(username: server.user, password: server.password)
            Issue.record("signed in without trusting the server's CA")
        } catch {
            #expect("\(error)".contains("certificate"), "\(error)")
        }
    }

    @Test(
        "H-NET-9: with no client certificate set, Home Assistant's dropped connection reads as a server that may want one, not as a lost connection"
    )
    func noIdentity() async throws {
        let (environment, address) = try environment(withIdentity: false)
        let client = environment.client(for: address.url, profile: HomeAssistantServer.profile)
        do {
            _ = try await client.reply(HomeAssistantAPI.config())
            Issue.record("the https instance answered without a client certificate")
        } catch {
            guard case .clientCertificateRequired(let refusal) = error else {
                Issue.record("not read as a client certificate to set: \(error)")
                return
            }
            #expect(!refusal.offered)
        }
    }
}
