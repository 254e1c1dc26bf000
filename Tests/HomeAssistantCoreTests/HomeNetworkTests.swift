import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// Home and away (H-NET-1..6, H-MOB-9): the account's addresses, which one is used, when the socket is replaced.
@Suite struct HomeNetworkTests {
    func address(_ text: String) throws -> ServerAddress { try ServerAddress(parsing: text, policy: .development) }

    func addresses(internal inside: String?, external outside: String?, signedIn: String = "https://ha.example.org")
        throws
        -> HomeAddresses
    {
        HomeAddresses(
            signedIn: try address(signedIn),
            config: ServerConfig(version: "2025.4.4", components: [], internalURL: inside, externalURL: outside))
    }

    @Test(
        "H-NET-4 H-NET-5: iOS ConnectionInfo vectors: home → internal, away or unknown → external; https internal alone is used away; none → none"
    )
    func activeAddress() throws {
        let both = try addresses(internal: "https://internal.com:8123", external: "https://external.com:8123")
        #expect(both.active(atHome: true, policy: .httpsOnly).address == (try address("https://internal.com:8123")))
        #expect(both.active(atHome: false, policy: .httpsOnly).address == (try address("https://external.com:8123")))
        #expect(both.active(atHome: nil, policy: .httpsOnly).role == .away)
        let internalOnly = try addresses(internal: "https://internal.com:8123", external: nil)
        #expect(
            internalOnly.active(atHome: false, policy: .httpsOnly).address == (try address("https://internal.com:8123"))
        )
        let httpInternalOnly = try addresses(internal: "http://internal.com:8123", external: nil)
        #expect(httpInternalOnly.active(atHome: false, policy: .development).address == nil)
        // The cloud's address away when it is used and known.
        var cloud = both
        cloud.remoteUIURL = "https://remote.ui.nabu.casa"
        cloud.usesCloud = true
        #expect(cloud.active(atHome: false, policy: .httpsOnly).address == (try address("https://remote.ui.nabu.casa")))
        #expect(cloud.active(atHome: true, policy: .httpsOnly).role == .home)
        // Nothing named: the address signed in with is the only one.
        let none = try addresses(internal: nil, external: nil)
        #expect(none.active(atHome: false, policy: .httpsOnly).address == (try address("https://ha.example.org")))
    }

    @Test(
        "H-NET-3: an http home address is not used until the person allows it for this server; an http away address never is"
    )
    func plainHTTPAtHome() throws {
        let lan = try addresses(internal: "http://nas.lan:8123", external: "http://ha.example.org")
        #expect(lan.active(atHome: true, policy: .httpsOnly).address == nil)
        #expect(lan.refusals(under: .httpsOnly).map(\.reason) == [.insecureHTTP, .insecureHTTP])
        #expect(lan.refusals(under: .httpsOnly).first?.sentence.contains("allow plain http") == true)
        var network = ServerNetwork(server: lan.signedIn)
        network.allowPlainHTTPAtHome(
            try address("http://nas.lan:8123"), accepting: .homeNetworkCanReadAndChangeTraffic)
        let allowed = network.policy(under: .httpsOnly)
        #expect(lan.active(atHome: true, policy: allowed).address == (try address("http://nas.lan:8123")))
        #expect(lan.active(atHome: false, policy: allowed).address == nil)
        #expect(lan.refusals(under: allowed).map(\.role) == [.away])
        // The test build's loopback http is used.
        let loopback = try addresses(
            internal: "http://127.0.0.1:18123", external: nil, signedIn: "http://127.0.0.1:18123")
        #expect(
            loopback.active(atHome: true, policy: .allowingInsecureLoopback).address
                == (try address("http://127.0.0.1:18123")))
        #expect(
            try addresses(internal: "not a url at all", external: nil).refusals(under: .httpsOnly).map(\.reason) == [
                .notAnAddress
            ])
    }

    @Test("H-NET-2: the home address becomes the kit's internal address of the account's one network record")
    func oneIdentity() throws {
        let both = try addresses(internal: "https://nas.lan:8123", external: "https://ha.example.org")
        let network = both.network(ServerNetwork(server: both.signedIn), policy: .httpsOnly)
        #expect(network.server == both.signedIn)
        #expect(network.internalAddress == (try address("https://nas.lan:8123")))
        #expect(network.addresses.count == 2)
        // An http home address without the choice is not given to the kit (it is kept in HomeAddresses only).
        let lan = try addresses(internal: "http://nas.lan:8123", external: "https://ha.example.org")
        #expect(lan.network(ServerNetwork(server: lan.signedIn), policy: .httpsOnly).internalAddress == nil)
    }

    @Test(
        "H-NET-2 H-NET-3: the kit's internal address: cleared when the server names no home address (kept with the person's choice), kept when refused, not set when it is the address signed in with"
    )
    func internalAddressEdges() throws {
        let nas = try address("http://nas.lan:8123")
        let none = try addresses(internal: nil, external: "https://ha.example.org")
        let stored = ServerNetwork(server: none.signedIn, internalAddress: try address("https://old.lan"))
        #expect(none.network(stored, policy: .httpsOnly).internalAddress == nil)
        var chosen = ServerNetwork(server: none.signedIn)
        chosen.allowPlainHTTPAtHome(nas, accepting: .homeNetworkCanReadAndChangeTraffic)
        #expect(none.network(chosen, policy: .httpsOnly).internalAddress == nas)
        // An http home address without the choice: whatever the settings held stays, unused.
        let lan = try addresses(internal: "http://nas.lan:8123", external: "https://ha.example.org")
        let held = ServerNetwork(server: lan.signedIn, internalAddress: nas)
        #expect(lan.network(held, policy: .httpsOnly).internalAddress == nas)
        // The home address is the address signed in with: no second address.
        let same = try addresses(internal: "https://ha.example.org", external: nil)
        #expect(same.network(ServerNetwork(server: same.signedIn), policy: .httpsOnly).internalAddress == nil)
    }

    @Test(
        "H-NET-3 H-NET-4: an away address alone is used away and at home; a known cloud address only when chosen; an http away address's sentence"
    )
    func awayAndCloudEdges() throws {
        let awayOnly = try addresses(internal: nil, external: "https://external.com")
        #expect(awayOnly.active(atHome: false, policy: .httpsOnly).address == (try address("https://external.com")))
        #expect(awayOnly.active(atHome: true, policy: .httpsOnly).role == .away)
        // The cloud's address known but not chosen (the default): the away address.
        let notChosen = HomeAddresses(
            signedIn: try address("https://ha.example.org"),
            config: ServerConfig(
                version: "2025.4.4", components: [], internalURL: nil, externalURL: "https://external.com"),
            remoteUIURL: "https://remote.ui.nabu.casa")
        #expect(notChosen.usesCloud == false)
        #expect(notChosen.active(atHome: false, policy: .httpsOnly).role == .away)
        // A loopback http away address under the test build's policy is used; under https only it is refused.
        let loopback = try addresses(
            internal: nil, external: "http://127.0.0.1:18123", signedIn: "http://127.0.0.1:18123")
        #expect(
            loopback.active(atHome: false, policy: .allowingInsecureLoopback).address
                == (try address("http://127.0.0.1:18123")))
        let refusals = loopback.refusals(under: .httpsOnly)
        #expect(refusals.map(\.role) == [.away])
        #expect(
            refusals.first?.sentence
                == "The away address http://127.0.0.1:18123 is plain http and is never used: away from home only https is."
        )
        // A cloudhook that is not https is never used; unknown (nil) counts as away.
        let both = try addresses(internal: "https://internal", external: "https://external")
        #expect(
            both.webhookURL(webhookID: "w", cloudhookURL: "http://hooks.example/w", atHome: false, policy: .httpsOnly)?
                .absoluteString == "https://external/api/webhook/w")
        #expect(
            both.webhookURL(webhookID: "w", cloudhookURL: "https://hooks.example/w", atHome: nil, policy: .httpsOnly)?
                .absoluteString == "https://hooks.example/w")
    }

    @Test(
        "H-NET-6: a changed active address replaces the socket (close 1001, connect the new one); the same address keeps it"
    )
    func socketReplaced() throws {
        var tracker = AddressTracker()
        let home = ActiveAddress(address: try address("http://127.0.0.1:18123"), role: .home)
        let away = ActiveAddress(address: try address("https://ha.example.org"), role: .away)
        #expect(tracker.update(home) == .connect(try address("http://127.0.0.1:18123")))
        #expect(tracker.update(home) == nil)
        #expect(
            tracker.update(away)
                == .replaceSocket(
                    from: try address("http://127.0.0.1:18123"), to: try address("https://ha.example.org"),
                    closeCode: 1001))
        #expect(away.webSocketURL?.absoluteString == "wss://ha.example.org/api/websocket")
        #expect(home.webSocketURL?.absoluteString == "ws://127.0.0.1:18123/api/websocket")
        #expect(
            tracker.update(ActiveAddress(address: nil, role: nil))
                == .disconnect(from: try address("https://ha.example.org"), closeCode: 1001))
    }

    @Test(
        "H-CONN-2: HAKit's testCreationWithNonstandardPort: wss with the port kept, Host with the port only when it is not the scheme's"
    )
    func webSocketUpgrade() throws {
        let handshake = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        let nonstandard = ActiveAddress(address: try address("https://ha.example:8443"), role: .away)
        let url = try #require(nonstandard.webSocketURL)
        #expect(url.absoluteString == "wss://ha.example:8443/api/websocket")
        let request = String(decoding: handshake.request(for: url), as: UTF8.self)
        #expect(request.hasPrefix("GET /api/websocket HTTP/1.1\r\nHost: ha.example:8443\r\n"))
        let standard = ActiveAddress(address: try address("http://example.com:80"), role: .home)
        let plain = try #require(standard.webSocketURL)
        #expect(plain.scheme == "ws" && plain.path == "/api/websocket")
        let plainRequest = String(decoding: handshake.request(for: plain), as: UTF8.self)
        #expect(plainRequest.hasPrefix("GET /api/websocket HTTP/1.1\r\nHost: example.com\r\n"))
        #expect(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("H-MOB-9: iOS testWebhookURL: away with a cloudhook → the cloudhook; at home → <internal>/api/webhook/<id>")
    func webhookURL() throws {
        let both = try addresses(internal: "https://internal", external: "https://external")
        let cloudhook = "https://hooks.nabu.casa/webhook_id1"
        #expect(
            both.webhookURL(webhookID: "webhook_id1", cloudhookURL: cloudhook, atHome: false, policy: .httpsOnly)?
                .absoluteString == cloudhook)
        #expect(
            both.webhookURL(webhookID: "webhook_id1", cloudhookURL: cloudhook, atHome: true, policy: .httpsOnly)?
                .absoluteString == "https://internal/api/webhook/webhook_id1")
        #expect(
            both.webhookURL(webhookID: "webhook_id1", cloudhookURL: nil, atHome: false, policy: .httpsOnly)?
                .absoluteString == "https://external/api/webhook/webhook_id1")
    }

    @Test(
        "H-NET-4: the headless probe answers at home while the home address accepts a TCP connect, remembered for 60 s")
    func probe() async throws {
        let clock = ManualWallClock()
        let listener = try ListeningSocket()
        let answers = SwitchProbe()
        let probe = HomeProbe(probe: answers, clock: clock)
        let home = try address("http://127.0.0.1:\(listener.port)")
        // The real TCP probe: a listening socket answers.
        #expect(await HomeProbe(clock: clock).atHome(home) == true)
        #expect(await probe.atHome(home) == true)
        answers.reachable.withLock { $0 = false }
        clock.advance(by: 59)
        #expect(await probe.atHome(home) == true)
        clock.advance(by: 2)
        #expect(await probe.atHome(home) == false)
        #expect(answers.calls.withLock { $0 } == 2)
        #expect(await probe.atHome(nil) == nil)
    }

    @Test(
        "H-NET-4: the probe's answer is remembered for less than 60 s: at exactly 60 s, and for another address, it asks"
    )
    func probeMemoryEdges() async throws {
        let clock = ManualWallClock()
        let answers = SwitchProbe()
        let probe = HomeProbe(probe: answers, clock: clock)
        let home = try address("http://nas.lan:8123")
        #expect(await probe.atHome(home) == true)
        #expect(await probe.atHome(try address("http://other.lan:8123")) == true)
        #expect(answers.calls.withLock { $0 } == 2)
        #expect(await probe.atHome(home) == true)
        #expect(answers.calls.withLock { $0 } == 3)
        answers.reachable.withLock { $0 = false }
        clock.advance(by: 60)
        #expect(await probe.atHome(home) == false)
        #expect(answers.calls.withLock { $0 } == 4)
    }

    @Test("H-NET-4: a home address without a port is probed on its scheme's port: 443 for https, 80 for http")
    func probePorts() async throws {
        let answers = SwitchProbe()
        let probe = HomeProbe(probe: answers, clock: ManualWallClock())
        #expect(await probe.atHome(try address("https://ha.example.org")) == true)
        #expect(await probe.atHome(try address("http://homeassistant.lan")) == true)
        #expect(await probe.atHome(try address("http://homeassistant.lan:8123")) == true)
        #expect(
            answers.asked.withLock { $0 } == ["ha.example.org:443", "homeassistant.lan:80", "homeassistant.lan:8123"])
    }
}

/// A connect probe whose answer a test sets.
final class SwitchProbe: ConnectProbe {
    let reachable = Locked(true)
    let calls = Locked(0)
    let asked = Locked<[String]>([])

    func canConnect(host: String, port: Int, timeout: Duration) async -> Bool {
        calls.withLock { $0 += 1 }
        asked.withLock { $0.append("\(host):\(port)") }
        return reachable.withLock { $0 }
    }
}

/// H-NET-1 against the real Home Assistant.
@Suite struct HomeNetworkServerTests {
    let server: HomeAssistantFixture

    init() throws { server = try HomeAssistantFixture() }

    @Test(
        "H-NET-1 H-NET-2: get_config's internal_url and external_url (null: none) are saved as the account's addresses, in its store, under the same account"
    )
    func savedFromConfig() async throws {
        let environment = TestEnvironments.loopback()
        let signIn = try environment.homeAssistantSignIn(try server.address(environment), recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        let home = try await HomeAssistantServer.open(stored.account, environment: environment)
        let config = try await home.config().value
        let saved = try await home.saveAddresses(from: config)
        #expect(saved.internalURL == config.internalURL && saved.externalURL == nil)
        #expect(saved.internalURL?.hasPrefix("http://127.0.0.1:") == true)
        let again = try await HomeAssistantServer.open(stored.account, environment: environment)
        #expect(try await again.addresses() == saved)
        #expect(again.bundle.account == home.bundle.account)
        let active = saved.active(
            atHome: await HomeProbe(clock: environment.clock).atHome(saved.home), policy: environment.transportPolicy)
        #expect(active.role == .home && active.address?.url.port == server.url.port)
    }
}
