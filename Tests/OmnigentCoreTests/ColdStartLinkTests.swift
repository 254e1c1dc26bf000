import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Cold-start links, typed conversation URLs, the workspace-root bounce, presets that never connect, and the
/// development build's explicit http, against the real Omnigent 0.19.1 where a server is involved.
@Suite("Omnigent cold-start links and smaller rules", .serialized)
@MainActor
struct ColdStartLinkTests {
    let journal = Journal()

    func realServer() throws -> ServerAddress {
        try ServerAddress(parsing: try TestServers.omnigent().absoluteString, policy: .allowingInsecureLoopback)
    }

    @Test("O-ROUTE-2: a cold-start link to the saved server is held for its first load: no consent, no second load")
    func coldStartLinkToSavedServer() async throws {
        let saved = try realServer()
        let model = ServerSetupModel(saved: saved, policy: .allowingInsecureLoopback, journal: journal)
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

    @Test("O-ROUTE-6: a held path does not survive a failed connect onto whichever server loads next")
    func heldPathDroppedOnFailedConnect() async throws {
        let real = try realServer()
        // A port that refuses connections at once: bind, learn the port, close.
        let refused = try ListeningSocket().port
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
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
            saved: try ServerAddress(parsing: "https://a.example.com"), policy: .httpsOnly, journal: journal)
        _ = model.handle(link: "omnigent://a.example.com/c/conv_a")
        #expect(model.deferred.pending == "/c/conv_a")
        #expect(model.pageDidLoad(try ServerAddress(parsing: "https://b.example.com")) == nil)
    }

    @Test("O-RECENT-4: a typed …/c/<id> URL connects to the server and opens the conversation; /c/ is never stored")
    func typedConversationURL() async throws {
        let real = try realServer()
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
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
        let model = ServerSetupModel(saved: real, policy: .allowingInsecureLoopback, journal: journal)
        let unknown = try ListeningSocket()
        guard case .success(.askConsent) = model.handle(link: "omnigent://127.0.0.1:\(unknown.port)/c/conv_1") else {
            Issue.record("expected a consent question")
            return
        }
        var bridge = try #require(model.bridge(clock: ManualWallClock()))
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
        let model = ServerSetupModel(
            recents: RecentServers([real]), saved: other, policy: .allowingInsecureLoopback, journal: journal)
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
        let preset = try ListeningSocket()
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
        model.applyManagedConfiguration(
            declarative: .dictionary(["serverUrls": .array([.string("https://preset.example.com")])]), classic: nil)
        #expect(model.presets.map(\.description) == ["https://preset.example.com"])
        #expect(model.phase == .idle && model.current == nil)
        #expect(!preset.hasPendingConnection)
        model.addressText = try TestServers.omnigent().absoluteString
        await model.connect()
        guard case .connected = model.phase else {
            Issue.record("a typed server must still connect, got \(model.phase)")
            return
        }
    }

    @Test("O-MOUNT-2: the probe is exactly one HEAD to the origin root, and it carries no cookie")
    func probeIsOneHeadWithoutCookies() async throws {
        let control = SignInFixture.client(try TestServers.fault(), journal: Journal())
        // The browser-wide cookie store holds a cookie for the workspace host, which the probe must not send.
        _ = try? await control.send(Request<JSONValue>.get("/cookie/set"))
        let before = try await control.send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
        let workspace = try TestServers.faultSecondOrigin().appendingPathComponent("/")
        let discovered = await WorkspaceDiscovery.discover(workspace, journal: journal, requiringHTTPS: false)
        #expect(discovered.path == WorkspaceDiscovery.mount)
        let after = try await control.send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
        try #require(after.count < 1_000, "the fault server's log is full; restart it")
        // Other suites use the second origin's other routes meanwhile; only this test asks for its root.
        let seen = after.dropFirst(before.count).filter {
            $0["path"] == .string("/") || $0["path"]?.stringValue?.hasPrefix("/?") == true
        }
        #expect(seen.map { $0["method"] } == [.string("HEAD")], "exactly one request to the root, a HEAD")
        #expect(seen.first?["path"] == .string("/"))
        let headers = (seen.first?["headers"]?.objectValue ?? [:]).keys.map { $0.lowercased() }
        #expect(!headers.contains("cookie"))
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
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
