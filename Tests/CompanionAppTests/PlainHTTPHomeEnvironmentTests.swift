import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

/// How `AppEnvironment` applies a server's plain-http choice (H-NET-3 for every app): to that server's clients,
/// channels and typed addresses, never to another server. A LAN host cannot be shown on 127.0.0.1, so the transport
/// below is scripted: what is asserted is whether a request reaches it or the policy refuses it first.
@Suite struct PlainHTTPHomeEnvironmentTests {
    let profile = AppProfile(userAgent: "test")

    @Test("NET-HTTP-4: the environment applies a server's home http choice to that server's clients and addresses only")
    func appliedPerServer() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: "{}")])
        let secrets = InMemorySecretStore()
        let environment = AppEnvironment(
            transportPolicy: .httpsOnly, stores: StoreRegistry(location: .memory), secrets: secrets,
            transport: transport)
        let home = URL(string: "http://nas.lan:8123")!
        let other = URL(string: "http://nas2.lan:8123")!
        // Before the choice: refused before anything is sent, and the typed address is refused.
        await #expect(throws: HTTPError.self) {
            _ = try await environment.client(for: home, profile: profile).reply(Request<JSONValue>.get("/api/"))
        }
        #expect(throws: ServerAddressError.self) { try environment.address("http://nas.lan:8123") }
        #expect(transport.requests.isEmpty)
        let server = try ServerAddress(parsing: "https://ha.example.org")
        let homeAddress = try ServerAddress(parsing: "http://nas.lan:8123", policy: .development)
        // The choice, for the server signed in at its home address.
        try NetworkSettings(store: secrets).update(homeAddress) {
            $0.allowPlainHTTPAtHome(homeAddress, accepting: .homeNetworkCanReadAndChangeTraffic)
        }
        _ = try await environment.client(for: home, profile: profile).reply(Request<JSONValue>.get("/api/"))
        #expect(transport.requests.map(\.url.absoluteString) == ["http://nas.lan:8123/api/"])
        #expect(try environment.address("http://nas.lan:8123") == homeAddress)
        #expect(environment.transportPolicy(for: home).permits(home))
        // Another server, and the away address, do not gain it.
        await #expect(throws: HTTPError.self) {
            _ = try await environment.client(for: other, profile: profile).reply(Request<JSONValue>.get("/api/"))
        }
        #expect(!environment.transportPolicy(for: server.url).permits(home))
        #expect(!environment.transportPolicy(for: other).permits(other))
        #expect(transport.requests.count == 1)
    }
}
