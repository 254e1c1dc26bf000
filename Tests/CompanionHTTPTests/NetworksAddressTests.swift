import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// Home and away addresses (docs/networks.md, NET-ADDR-*): one server at an internal address (a `TCPRelay` the
/// test takes down and brings back) and its external one, over both transports.
@Suite("Self-hosted networks: home and away addresses")
struct NetworksAddressTests {
    /// The live probe, counting how often it is asked.
    final class CountingProbe: ConnectProbe {
        let asked = Locked(0)
        let live = TCPConnectProbe()

        func canConnect(host: String, port: Int, timeout: Duration) async -> Bool {
            asked.withLock { $0 += 1 }
            return await live.canConnect(host: host, port: port, timeout: timeout)
        }

        var count: Int { asked.withLock { $0 } }
    }

    /// A probe that says every address answers (so a refused connection is found by the request itself).
    struct YesProbe: ConnectProbe {
        func canConnect(host: String, port: Int, timeout: Duration) async -> Bool { true }
    }

    struct Setup {
        var client: Client
        var transport: any Transport
        var journal: Journal
        var clock: ManualWallClock
        var external: ServerAddress
        var `internal`: ServerAddress
    }

    /// A client for the fault server as `external`, with `internalURL` as its internal address.
    func setup(
        _ kind: TransportKind, internal internalURL: URL, probe: any ConnectProbe, credential: ProxyCredential? = nil
    ) throws -> Setup {
        let external = try ServerAddress(
            parsing: try TestServers.fault().absoluteString, policy: .allowingInsecureLoopback)
        let internalAddress = try ServerAddress(parsing: internalURL.absoluteString, policy: .allowingInsecureLoopback)
        let journal = Journal()
        let clock = ManualWallClock()
        let network = ServerNetwork(server: external, internalAddress: internalAddress, proxyCredential: credential)
        let transport = network.transport(
            identity: nil, journal: journal, clock: clock, probe: probe, connectTimeout: .milliseconds(300),
            recheckAfter: .seconds(60), platform: kind.make())
        return Setup(
            client: networkClient(external.url, transport, journal: journal), transport: transport, journal: journal,
            clock: clock,
            external: external, internal: internalAddress)
    }

    func notes(_ journal: Journal) -> [String] {
        journal.events.filter { $0.kind == .note && $0.message.hasPrefix("network:") }.map(\.message)
    }

    @Test(
        "NET-ADDR-1..3: the internal address first; down, the external one (remembered, journaled); back, the internal one again",
        arguments: TransportKind.available)
    func internalDownThenBack(_ kind: TransportKind) async throws {
        let fault = try TestServers.fault()
        let relay = try TCPRelay(relayingTo: try #require(fault.port))
        defer { relay.stop() }
        let probe = CountingProbe()
        let internalURL = try #require(URL(string: "http://127.0.0.1:\(relay.port)"))
        let setup = try setup(kind, internal: internalURL, probe: probe)

        // Down: the connect hangs (a full accept queue), the probe gives up after its short timeout.
        let (first, response) = try await setup.client.exchange(Request<JSONValue>.get("/ok"))
        #expect(first["ok"]?.boolValue == true)
        #expect(response.url?.port == fault.port)
        #expect(notes(setup.journal).last == "network: using the external address \(setup.external)")
        let reason = setup.journal.events.last { $0.kind == .note }?.fields["reason"]
        #expect(reason?.contains("did not answer") == true, "\(reason ?? "")")
        // Remembered: the next requests ask no probe.
        _ = try await setup.client.send(Request<JSONValue>.get("/ok"))
        _ = try await setup.client.send(Request<JSONValue>.get("/ok"))
        #expect(probe.count == 1)
        #expect(relay.accepted == 0)

        // Back: after the recheck interval the internal address is tried again, and used.
        relay.start()
        setup.clock.advance(by: 61)
        let (_, again) = try await setup.client.exchange(Request<JSONValue>.get("/ok"))
        #expect(again.url?.port == relay.port)
        #expect(relay.accepted >= 1)
        #expect(probe.count == 2)
        #expect(notes(setup.journal).last == "network: using the internal address \(setup.internal)")
        // And stays: the internal address is kept while it answers, whatever the clock says.
        setup.clock.advance(by: 600)
        let (_, kept) = try await setup.client.exchange(Request<JSONValue>.get("/ok"))
        #expect(kept.url?.port == relay.port)
        #expect(probe.count == 2)
    }

    @Test(
        "NET-ADDR-4: credentials go to the configured addresses only (internal and external), never elsewhere",
        arguments: TransportKind.available)
    func credentialsOnlyToConfiguredAddresses(_ kind: TransportKind) async throws {
        let fault = try TestServers.fault()
        let relay = try TCPRelay(relayingTo: try #require(fault.port))
        defer { relay.stop() }
        relay.start()
        let credential = ProxyCredential(user: "home", password: "configured-addresses-only")
        let setup = try setup(
            kind, internal: try #require(URL(string: "http://127.0.0.1:\(relay.port)")), probe: TCPConnectProbe(),
            credential: credential)
        let (echoed, response) = try await setup.client.exchange(Request<JSONValue>.get("/echo-headers"))
        #expect(response.url?.port == relay.port, "sent to the internal address")
        #expect(echoed["headers"]?["authorization"]?.stringValue == credential.authorization)
        // The same transport, asked for another origin: no credential, and not moved to the internal address.
        let other = Client(
            baseURL: try TestServers.faultSecondOrigin(),
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback),
            transport: setup.transport)
        let (elsewhere, otherResponse) = try await other.exchange(Request<JSONValue>.get("/echo-headers"))
        #expect(elsewhere["headers"]?["authorization"] == nil)
        #expect(otherResponse.url?.port == (try TestServers.faultSecondOrigin().port))
    }

    @Test(
        "NET-ADDR-6: an internal address that refuses a write sends it to the external one, once",
        arguments: TransportKind.available)
    func refusedInternalSendsTheWriteOnce(_ kind: TransportKind) async throws {
        // A port that was just listening and is closed now refuses at once.
        let port = try { () throws -> Int in try ListeningSocket().port }()
        let setup = try setup(
            kind, internal: try #require(URL(string: "http://127.0.0.1:\(port)")), probe: YesProbe())
        let key = "addr-6-\(UUID().uuidString.lowercased())"
        let request = Request<JSONValue>(
            method: .post, path: "/write?key_required=1", headers: ["Content-Type": "application/json"],
            body: Data("{\"title\":\"x\"}".utf8)
        ).idempotencyKey(key)
        let (value, response) = try await setup.client.exchange(request)
        #expect(value["key"]?.stringValue == key)
        #expect(response.url?.port == (try TestServers.fault().port))
        #expect(try await FaultMatrixTests.stats(key: key).effects == 1)
        #expect(notes(setup.journal).last == "network: using the external address \(setup.external)")
    }

    @Test(
        "NET-ADDR-5: one server key for both addresses: the settings, the credential and the store are the external one's"
    )
    func oneServerKey() throws {
        let external = try ServerAddress(parsing: "https://home.example.com")
        let internalAddress = try ServerAddress(parsing: "https://127.0.0.1:8443")
        let network = ServerNetwork(server: external, internalAddress: internalAddress)
        #expect(network.addresses.map(\.serverKey) == [external.serverKey, internalAddress.serverKey])
        let failover = AddressFailover(external: external.url, internal: internalAddress.url)
        #expect(
            failover.internalURL(for: try #require(URL(string: "https://home.example.com/api/x?y=1")))?.absoluteString
                == "https://127.0.0.1:8443/api/x?y=1")
        #expect(failover.internalURL(for: try #require(URL(string: "https://home.example.com.evil/api"))) == nil)
        #expect(failover.internalURL(for: try #require(URL(string: "https://other.example.com/api"))) == nil)
    }

    @Test("NET-ADDR-1: the internal address over TLS is checked with the server's own trust (its CA names the IP)")
    func internalAddressOverTLS() async throws {
        let nginx = try NginxServer.url(.fault)
        let relay = try TCPRelay(relayingTo: try #require(nginx.port))
        defer { relay.stop() }
        relay.start()
        let external = try ServerAddress(parsing: nginx.absoluteString)
        let network = ServerNetwork(
            server: external, internalAddress: try ServerAddress(parsing: "https://127.0.0.1:\(relay.port)"),
            trust: try privateCATrust())
        for kind in TransportKind.available where kind.appliesServerSecurity {
            let journal = Journal()
            let transport = network.transport(
                identity: nil, journal: journal, connectTimeout: .milliseconds(300),
                platform: kind.make(
                    security: ConnectionSecurity(trust: network.trust, scope: network.addresses.map(\.url))))
            let (value, response) = try await networkClient(external.url, transport, journal: journal).exchange(
                Request<JSONValue>.get("/ok"))
            #expect(value["ok"]?.boolValue == true)
            #expect(response.url?.port == relay.port)
        }
    }
}
