import CompanionApp
import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cold-start links, links during a server switch, typed conversation URLs, the workspace-root bounce, presets
/// that never connect, the probe's shape, and the development build's explicit http, against the real
/// Omnigent 0.19.1 where a server is involved.
@Suite("Omnigent cold-start links and smaller rules", .serialized)
@MainActor
struct ColdStartLinkTests {
    let journal = Journal()

    func environment(policy: TransportPolicy = .allowingInsecureLoopback) -> AppEnvironment {
        OmnigentFixture.environment(journal: journal, clock: ManualWallClock(), policy: policy)
    }

    func realServer() throws -> ServerAddress { try OmnigentFixture.address(try TestServers.omnigent()) }

    /// The requests this test's journal saw leave a client, as `METHOD url` lines.
    var requests: [String] { journal.events.filter { $0.kind == .request }.map(\.message) }

    @Test("O-ROUTE-2: a cold-start link to the saved server is held for its first load: no consent, no second load")
    func coldStartLinkToSavedServer() async throws {
        let saved = try realServer()
        let model = ServerSetupModel(saved: saved, environment: environment())
        // Before any manifest answered, the saved server is current.
        #expect(model.current == saved)
        let decision = model.handle(link: "omnigent://127.0.0.1:\(saved.port ?? 80)/c/conv_cold")
        #expect(decision == .success(.deferUntilLoaded(path: "/c/conv_cold")), "no consent and no switch (load)")
        await model.connect(to: saved)
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        #expect(model.pageDidLoad(connection.address) == "/c/conv_cold")
        #expect(model.pageDidLoad(connection.address) == nil, "emitted exactly once")
    }

    @Test("O-OPEN-6: several links to the loading server: the last one wins and only it is emitted")
    func lastLinkWins() async throws {
        let saved = try realServer()
        let model = ServerSetupModel(saved: saved, environment: environment())
        for id in ["conv_one", "conv_two", "conv_three"] {
            #expect(
                model.handle(link: "omnigent://127.0.0.1:\(saved.port ?? 80)/c/\(id)")
                    == .success(.deferUntilLoaded(path: "/c/\(id)")))
        }
        await model.connect(to: saved)
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        #expect(model.pageDidLoad(connection.address) == "/c/conv_three")
        #expect(model.pageDidLoad(connection.address) == nil)
    }

    @Test(
        "O-ROUTE-2: a link arriving during a server switch is held for the server being switched to, or goes to the server it names"
    )
    func linkDuringAServerSwitch() async throws {
        let first = try realServer()
        // The server being switched to: a socket that never answers, so the switch stays under way.
        let next = try ListeningSocket()
        let nextAddress = try ServerAddress(parsing: "127.0.0.1:\(next.port)", policy: .allowingInsecureLoopback)
        let model = ServerSetupModel(recents: RecentServers([first]), saved: first, environment: environment())
        _ = model.pageDidLoad(first)
        let switching = Task { await model.connect(to: nextAddress) }
        defer { switching.cancel() }
        try #require(await waitUntilObserved(upTo: .seconds(30)) { model.phase == .connecting(nextAddress) })
        #expect(model.current == nextAddress, "the server being switched to is current at once")
        // A link to the server being switched to: held for its load, never asked about, never sent elsewhere.
        #expect(
            model.handle(link: "omnigent://127.0.0.1:\(next.port)/c/conv_next")
                == .success(.deferUntilLoaded(path: "/c/conv_next")))
        // The page of the new server loads: the held path opens there, once.
        #expect(model.pageDidLoad(nextAddress) == "/c/conv_next")
        #expect(model.pageDidLoad(nextAddress) == nil)
        // A link to the server switched away from goes back to it (it is known), not into the new page.
        guard
            case .success(.switchToKnownServer(let server, let loadURL)) = model.handle(
                link: "omnigent://127.0.0.1:\(first.port ?? 80)/c/conv_back")
        else {
            Issue.record("expected a switch back to the known server")
            return
        }
        #expect(server == first)
        #expect(loadURL.absoluteString == first.description + "/c/conv_back")
    }

    @Test("O-ROUTE-6: a held path does not survive a failed connect onto whichever server loads next")
    func heldPathDroppedOnFailedConnect() async throws {
        let real = try realServer()
        // A port that refuses connections at once: bind, learn the port, close.
        let refused = try ListeningSocket().port
        let model = ServerSetupModel(environment: environment())
        guard case .success(.askConsent(let request)) = model.handle(link: "omnigent://127.0.0.1:\(refused)/c/conv_x")
        else {
            Issue.record("expected a consent question")
            return
        }
        await model.consent(to: request)
        guard case .failed = model.phase else {
            Issue.record("expected the connect to fail, got \(model.phase)")
            return
        }
        #expect(model.current == nil, "a failed connect leaves no server current")
        await model.connect(to: real)
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        #expect(model.pageDidLoad(connection.address) == nil, "the failed link's path is not opened here")
        #expect(journal.events.contains { $0.message == "held deep-link path dropped" })
    }

    @Test("O-ROUTE-6: a held path is dropped when another server's page loads instead")
    func heldPathDroppedOnOtherServer() throws {
        let model = ServerSetupModel(
            saved: try ServerAddress(parsing: "https://a.example.com"), environment: environment(policy: .httpsOnly))
        _ = model.handle(link: "omnigent://a.example.com/c/conv_a")
        #expect(model.deferred.pending == "/c/conv_a")
        #expect(model.pageDidLoad(try ServerAddress(parsing: "https://b.example.com")) == nil)
    }

    @Test("O-ROUTE-6: after Open the workspace probe is the first request, then the manifest")
    func openProbesFirst() async throws {
        // The fault server's TLS port: an https origin at a bare root, so the probe runs (its certificate is
        // not trusted, so the probe fails and setup goes on to the manifest, which fails the same way).
        let tls = try TestServers.faultTLS()
        let model = ServerSetupModel(environment: environment(policy: .httpsOnly))
        guard
            case .success(.askConsent(let request)) = model.handle(link: "omnigent://127.0.0.1:\(tls.port ?? 0)/c/x")
        else {
            Issue.record("expected a consent question")
            return
        }
        #expect(requests.isEmpty, "nothing before Open")
        await model.consent(to: request)
        let origin = "https://127.0.0.1:\(tls.port ?? 0)"
        #expect(requests.first == "HEAD \(origin)/", "the probe is the first request")
        #expect(requests.dropFirst().first == "GET \(origin)/.well-known/omnigent.json", "then the manifest")
    }

    @Test("O-OPEN-4: a managed preset does not make a server known to a link: only a recent or the saved one does")
    func presetsAreNotKnownToLinks() throws {
        let model = ServerSetupModel(environment: environment(policy: .httpsOnly))
        model.applyManagedConfiguration(
            declarative: .dictionary(["serverUrls": .array([.string("https://corp.example.com/omnigent")])]),
            classic: nil)
        #expect(model.presets.map(\.description) == ["https://corp.example.com/omnigent"])
        guard case .success(.askConsent(let request)) = model.handle(link: "omnigent://corp.example.com/c/x") else {
            Issue.record("a preset's link must still ask")
            return
        }
        #expect(request.link.server.description == "https://corp.example.com")
        // The same server as a recent is known: it switches without a prompt and keeps its mount.
        let recent = try ServerAddress(parsing: "https://corp.example.com/omnigent")
        let withRecent = ServerSetupModel(
            recents: RecentServers([recent]), environment: environment(policy: .httpsOnly))
        #expect(
            withRecent.handle(link: "omnigent://corp.example.com/c/x")
                == .success(
                    .switchToKnownServer(server: recent, loadURL: fixtureURL("https://corp.example.com/omnigent/c/x"))))
    }

    @Test("O-RECENT-4: a typed …/c/<id> URL connects to the server and opens the conversation; /c/ is never stored")
    func typedConversationURL() async throws {
        let real = try realServer()
        let model = ServerSetupModel(environment: environment())
        model.addressText = real.description.trimmingSuffix("/") + "/c/conv_abc"
        await model.connect()
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        #expect(connection.address.origin == real.origin)
        #expect(!connection.address.path.contains("/c/"))
        #expect(model.pageDidLoad(connection.address) == "/c/conv_abc")
        #expect(model.listedRecents == [connection.address])
        #expect(model.saved == connection.address)
        // The spec's own example, parsed without a network: `https://h/omnigent/c/conv_abc` → `https://h/omnigent`.
        let (server, path) = try ServerSetupModel.splitConversation(
            try ServerAddress(parsing: "https://h.example.com/omnigent/c/conv_abc?o=42"), policy: .httpsOnly)
        #expect(server.description == "https://h.example.com/omnigent?o=42")
        #expect(path == "/c/conv_abc")
    }

    @Test("O-ROUTE-7: until consent the pinned bridge origin is unchanged; the unconsented origin gets no bridge")
    func pinnedOriginUnchangedUntilConsent() async throws {
        let real = try realServer()
        let model = ServerSetupModel(saved: real, environment: environment())
        let unknown = try ListeningSocket()
        guard case .success(.askConsent) = model.handle(link: "omnigent://127.0.0.1:\(unknown.port)/c/conv_1") else {
            Issue.record("expected a consent question")
            return
        }
        var bridge = try #require(model.bridge())
        #expect(bridge.pinned == real)
        let foreign = "http://127.0.0.1:\(unknown.port)"
        let effects = bridge.receive(
            .object(["method": "setBadgeCount", "count": 3]),
            from: .init(isMainFrame: true, frameOrigin: foreign, pageURL: foreign + "/c/conv_1"))
        #expect(effects.isEmpty)
        #expect(!unknown.hasPendingConnection)
    }

    @Test("O-ROUTE-8: one web view: a link to a known server replaces the current server, never adds one")
    func singleWindow() async throws {
        let real = try realServer()
        let other = try ServerAddress(parsing: "https://other.example.com")
        let model = ServerSetupModel(recents: RecentServers([real]), saved: other, environment: environment())
        guard
            case .success(.switchToKnownServer(let server, let loadURL)) = model.handle(
                link: "omnigent://127.0.0.1:\(real.port ?? 80)/c/conv_8")
        else {
            Issue.record("expected a switch to the known server")
            return
        }
        #expect(server == real)
        #expect(loadURL.absoluteString == real.description.trimmingSuffix("/") + "/c/conv_8")
        await model.connect(to: server)
        #expect(model.current?.origin == real.origin, "the one current server is replaced")
    }

    @Test("O-MDM-12: presets are offered, not enforced: no connection at launch, and any typed URL still works")
    func presetsOfferedNotEnforced() async throws {
        // The preset names this socket: a connection at launch would show on it.
        let preset = try ListeningSocket()
        let model = ServerSetupModel(environment: environment())
        // The launch: the app becomes active and reads the configuration.
        model.appDidBecomeActive(
            reading: StaticManagedConfiguration(
                declarative: .dictionary(["serverUrls": .array([.string("https://127.0.0.1:\(preset.port)")])]),
                classic: nil))
        #expect(model.presets.map(\.description) == ["https://127.0.0.1:\(preset.port)"])
        #expect(model.phase == .idle && model.current == nil)
        #expect(!preset.hasPendingConnection, "the preset was not connected to")
        #expect(requests.isEmpty, "no request at launch")
        model.addressText = try TestServers.omnigent().absoluteString
        await model.connect()
        guard case .connected = model.phase else {
            Issue.record("a typed server must still connect, got \(model.phase)")
            return
        }
        #expect(!preset.hasPendingConnection, "connecting to the typed server did not touch the preset")
    }

    @Test("O-MOUNT-2: the probe is exactly one HEAD to the origin root, with an 8 s limit, and it carries no cookie")
    func probeIsOneHeadWithoutCookies() async throws {
        let workspace = try TestServers.faultSecondOrigin()
        // A store that does hold a cookie for the workspace host: the process-wide cookie storage, filled by a
        // request of the system's shared session (as a browser-wide store would be). The probe must not send it.
        _ = try await URLSession.shared.data(from: workspace.appendingPathComponent("cookie/set"))
        let stored = HTTPCookieStorage.shared.cookies(for: workspace) ?? []
        try #require(stored.contains { $0.name == "fault_session" }, "the shared store holds the cookie")
        let control = TestClients.loopback(try TestServers.fault())
        let before = try await control.send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
        let transport = RecordingTransport()
        let environment = OmnigentFixture.environment(journal: journal, transport: transport)
        let discovered = await WorkspaceDiscovery.discover(
            workspace.appendingPathComponent("/"), environment: environment, requiringHTTPS: false)
        #expect(discovered.path == WorkspaceDiscovery.mount)
        #expect(transport.sent.map { "\($0.method) \($0.path)" } == ["HEAD /"], "exactly one request, a HEAD")
        #expect(transport.sent.first?.timeout == .seconds(8), "with an 8 s limit")
        let after = try await control.send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
        try #require(after.count < 1_000, "the fault server's log is full; restart it")
        // Other suites use the second origin's other routes meanwhile; only this test asks for its root.
        let seen = after.dropFirst(before.count).filter {
            $0["path"] == .string("/") || $0["path"]?.stringValue?.hasPrefix("/?") == true
        }
        #expect(seen.map { $0["method"] } == [.string("HEAD")], "the server saw one request to the root, a HEAD")
        let headers = (seen.first?["headers"]?.objectValue ?? [:]).keys.map { $0.lowercased() }
        #expect(!headers.contains("cookie"), "no cookie reached the server")
    }

    @Test(
        "O-MOUNT-6: a bare workspace root is bounced to the mount without a probe; other navigations are left alone",
        arguments: [
            ("https://w.cloud.databricks.com/?o=42", "https://w.cloud.databricks.com/omnigent?o=42"),
            ("https://adb-1.azuredatabricks.net", "https://adb-1.azuredatabricks.net/omnigent"),
            ("https://w.cloud.databricks.com/omnigent/c/x", nil),
            ("https://a.databricksapps.com/", nil),
            ("https://example.com/", nil),
        ] as [(String, String?)])
    func workspaceRootBounce(_ navigation: String, _ expected: String?) throws {
        let url = try #require(URL(string: navigation))
        #expect(WorkspaceDiscovery.bounce(navigationTo: url)?.absoluteString == expected)
    }

    @Test("O-URL-5: a development build keeps an explicit http:// LAN server; inference never picks http for it")
    func explicitHTTPInDevelopment() throws {
        let kept = try ServerAddress(parsing: "http://studio.local:6767", policy: .development)
        #expect(kept.description == "http://studio.local:6767")
        #expect(TransportPolicy.development.permits(kept.url))
        #expect(try ServerAddress(parsing: "http://example.com", policy: .development).scheme == "http")
        #expect(try ServerAddress(parsing: "studio.local:6767", policy: .development).scheme == "https")
        #expect(try ServerAddress(parsing: "localhost:6767", policy: .development).scheme == "http")
        #expect(throws: ServerAddressError.insecureHTTPNotAllowed(host: "example.com")) {
            try ServerAddress(parsing: "http://example.com", policy: .httpsOnly)
        }
        #expect(!TransportPolicy.allowingInsecureLoopback.permits(kept.url))
        let decoded = try JSONDecoder().decode(
            TransportPolicy.self, from: Data(#"{"allowsInsecureLoopback":true}"#.utf8))
        #expect(decoded == .allowingInsecureLoopback)
        // A stored recents list holding such a server reads back whole, and the others with it.
        let stored = try JSONEncoder().encode(
            RecentServers([kept, try ServerAddress(parsing: "https://a.example.com")]))
        #expect(try JSONDecoder().decode(RecentServers.self, from: stored).servers.count == 2)
    }
}

/// A managed configuration that says what it is told.
struct StaticManagedConfiguration: ManagedConfigurationSource {
    let declarative: ManagedValue?
    let classic: ManagedValue?
    func read() -> (declarative: ManagedValue?, classic: ManagedValue?) { (declarative, classic) }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
