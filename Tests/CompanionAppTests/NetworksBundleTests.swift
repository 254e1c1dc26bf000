import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The road gives every app core its server's network without code of its own (NET-ROAD-1): a bundle opened
/// for a server whose settings are in the environment's secret store reaches it through them.
@Suite("Self-hosted networks: on the kit road")
struct NetworksBundleTests {
    static let profile = AppProfile(userAgent: "NetworksBundleTests/1.0", retryPolicy: .never)

    struct Seen: Decodable, Sendable {
        var verify: String
    }

    @Test(
        "NET-ROAD-1: a server bundle uses the server's trust and client identity from the secret store, and only that server's"
    )
    func bundleUsesTheServersNetwork() async throws {
        let secrets = InMemorySecretStore()
        let environment = TestEnvironments.loopback(secrets: secrets)
        let url = try NginxServer.url(.omnigent)
        let account = AccountKey(serverKey: try ServerAddress(parsing: url.absoluteString).serverKey, userID: "local")
        // Nothing set: the shared transport, and the private CA's certificate is refused with what it presented.
        let bare = try await ServerBundle.open(url, account: account, profile: Self.profile, environment: environment)
        do {
            _ = try await bare.client.send(Request<Seen>.get("/_cert"))
            Issue.record("the private CA is not trusted yet")
        } catch {
            guard case .untrustedCertificate = error else {
                Issue.record("expected untrustedCertificate, got \(error)")
                return
            }
        }
        // The person trusts the CA and imports the identity for this server: the next bundle sends it.
        let settings = NetworkSettings(store: secrets)
        let server = try ServerAddress(parsing: url.absoluteString)
        try settings.trustCA(try NginxServer.rootDER(), for: server)
        try settings.assign(
            try ClientIdentity(
                importing: try NginxServer.clientP12(), passphrase: try NginxServer.p12Passphrase(), at: Date()),
            to: [server])
        let bundle = try await ServerBundle.open(url, account: account, profile: Self.profile, environment: environment)
        #expect(try await bundle.client.send(Request<Seen>.get("/_cert")).verify == "SUCCESS")
        #expect(try await bundle.client.send(Request<JSONValue>.get("/health"))["status"]?.stringValue == "ok")
        // Another server of the same environment is not given that trust.
        let other = environment.client(for: try NginxServer.url(.optional), profile: Self.profile)
        do {
            _ = try await other.send(Request<Seen>.get("/_cert"))
            Issue.record("another server must not be trusted by this one's CA")
        } catch {
            guard case .untrustedCertificate = error else {
                Issue.record("expected untrustedCertificate, got \(error)")
                return
            }
        }
    }
}
