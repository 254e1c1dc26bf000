import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// The last rules of the catalog that hold in server setup, links, mount discovery, managed configuration,
/// error envelopes and list pages; against the real Omnigent 0.19.1 and the fault server where a server is
/// involved.
@Suite("Omnigent catalog rules: setup, links, mount, managed configuration, errors, lists", .serialized)
@MainActor
struct CatalogRuleTests {
    let journal = Journal()

    func realServer() throws -> ServerAddress {
        try ServerAddress(parsing: try TestServers.omnigent().absoluteString, policy: .allowingInsecureLoopback)
    }

    func client(_ url: URL) -> Client { TestClients.loopback(url, journal: journal) }

    func environment(policy: TransportPolicy = .allowingInsecureLoopback) -> AppEnvironment {
        OmnigentFixture.environment(journal: journal, clock: ManualWallClock(), policy: policy)
    }

    /// Requests this test's journal saw leave the client, as `METHOD url` lines.
    var requests: [String] { journal.events.filter { $0.kind == .request }.map(\.message) }

    // MARK: O-LINK-9

    @Test(
        "O-LINK-9: a rejected link gets a typed reason, and no navigation, no state change, no network request",
        arguments: [
            ("https://127.0.0.1:PORT/c/x", LinkError.wrongScheme("https")),
            ("omnigen://127.0.0.1:PORT/c/x", LinkError.wrongScheme("omnigen")),
            ("omnigent:///c/x", LinkError.missingHost),
            ("omnigent://127.0.0.1:PORT/s/x", LinkError.unsupportedPath),
            ("omnigent://127.0.0.1:PORT/c/x/y", LinkError.unsupportedPath),
            ("omnigent://127.0.0.1:PORT/c/%zz", LinkError.malformedEscape),
            ("omnigent://user@127.0.0.1:PORT/c/x", LinkError.userInfoNotAllowed),
            ("omnigent://127.0.0.1:PORT/c/x%3Fy=1", LinkError.forbiddenCharacter),
        ])
    func rejectedLinkChangesNothing(_ template: String, _ reason: LinkError) async throws {
        // The host a rejected link names listens, so any connection to it would show.
        let named = try ListeningSocket()
        let real = try realServer()
        let model = ServerSetupModel(recents: RecentServers([real]), saved: real, environment: environment())
        _ = model.pageDidLoad(real)
        let before = (model.current, model.saved, model.recents, model.phase, model.pageLoaded, model.deferred)
        let link = template.replacingOccurrences(of: "PORT", with: "\(named.port)")
        #expect(model.handle(link: link) == .failure(reason))
        #expect(!reason.description.isEmpty, "the reason is a sentence")
        // No navigation: nothing held for a load, no emit, the same page; no state change.
        #expect(model.deferred == before.5 && model.deferred.pending == nil)
        #expect(model.current == before.0 && model.saved == before.1 && model.recents == before.2)
        #expect(model.phase == before.3 && model.pageLoaded == before.4)
        // No network request: not to the named host, and none at all.
        #expect(!named.hasPendingConnection)
        #expect(requests.isEmpty)
    }

    // MARK: O-RECENT-3

    @Test(
        "O-RECENT-3: a server joins recents only after its page loaded; a failed load or a cancelled consent changes nothing"
    )
    func recentsOnlyAfterASuccessfulLoad() async throws {
        let real = try realServer()
        let model = ServerSetupModel(environment: environment())
        // Connected is not loaded: recents stay empty until the page says it loaded.
        await model.connect(to: real)
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        #expect(model.recents.servers.isEmpty)
        // The page fails to load: still nothing recorded, nothing saved.
        model.pageDidFailToLoad(connection.address, reason: "The server UI did not load.")
        #expect(model.recents.servers.isEmpty && model.saved == nil)
        #expect(model.phase == .failed("The server UI did not load."))
        // The page loads: now it joins.
        await model.connect(to: real)
        _ = model.pageDidLoad(connection.address)
        #expect(model.recents.servers == [connection.address])

        // A failed connect to another server leaves recents as they were.
        let refused = try ListeningSocket().port
        let other = try ServerAddress(parsing: "http://127.0.0.1:\(refused)", policy: .allowingInsecureLoopback)
        await model.connect(to: other)
        guard case .failed = model.phase else {
            Issue.record("expected the connect to fail, got \(model.phase)")
            return
        }
        #expect(model.recents.servers == [connection.address])

        // A consent question answered Cancel: no request, recents, saved and current unchanged.
        let unknown = try ListeningSocket()
        _ = model.pageDidLoad(connection.address)
        let sent = requests.count
        guard case .success(.askConsent(let request)) = model.handle(link: "omnigent://127.0.0.1:\(unknown.port)/c/x")
        else {
            Issue.record("expected a consent question")
            return
        }
        model.cancelConsent(to: request)
        #expect(model.recents.servers == [connection.address])
        #expect(model.saved == connection.address && model.current == connection.address)
        #expect(requests.count == sent && !unknown.hasPendingConnection)
    }

    // MARK: O-MOUNT-3, O-MOUNT-5, O-MOUNT-8

    func secondaryLog() async throws -> [JSONValue] {
        try await client(try TestServers.fault()).send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
    }

    @Test("O-MOUNT-3: the origin a redirect is held to names the scheme's default port (https 443, http 80)")
    func sameOriginNamesTheDefaultPort() throws {
        func origin(_ text: String) throws -> String? { WorkspaceDiscovery.origin(of: try #require(URL(string: text))) }
        #expect(try origin("https://W.Example.com/x?o=1") == "https://w.example.com:443")
        #expect(try origin("https://w.example.com:443/") == "https://w.example.com:443")
        #expect(try origin("http://w.example.com/") == "http://w.example.com:80")
        #expect(try origin("http://w.example.com:80") == "http://w.example.com:80")
        #expect(try origin("https://w.example.com:8443/") == "https://w.example.com:8443")
        // A redirect that names the default port stays on the same origin; the other scheme's port does not.
        #expect(try origin("https://w.example.com/") == origin("https://w.example.com:443/root"))
        #expect(try origin("https://w.example.com/") != origin("https://w.example.com:80/root"))
    }

    @Test("O-MOUNT-3: the probe follows a same-origin redirect; a cross-origin one stops it and the URL is kept")
    func probeFollowsSameOriginRedirectsOnly() async throws {
        // `/` → 302 `/workspace-root` on the same origin, which answers `server: databricks`.
        let same = try TestServers.faultRootSameOrigin().appendingPathComponent("/")
        let environment = environment()
        let discovered = await WorkspaceDiscovery.discover(same, environment: environment, requiringHTTPS: false)
        #expect(discovered.path == WorkspaceDiscovery.mount, "the same-origin redirect was followed")
        #expect(discovered.port == same.port)
        // `/` → 302 to the other origin's root, itself a workspace root: never asked, URL unchanged.
        let cross = try TestServers.faultRootCrossOrigin().appendingPathComponent("/")
        #expect(await WorkspaceDiscovery.discover(cross, environment: environment, requiringHTTPS: false) == cross)
        #expect(
            try await secondaryLog().filter { $0["path"]?.stringValue == "/?via=root-cross" }.isEmpty,
            "the other origin got no request")
    }

    @Test(
        "O-MOUNT-5: a TLS error, a refused connection or a reply without the header keeps the URL, and connecting goes on"
    )
    func probeErrorsKeepTheAddress() async throws {
        // TLS: the fault server's TLS port has a certificate nobody trusts.
        let tls = try TestServers.faultTLS().appendingPathComponent("/")
        let release = environment(policy: .httpsOnly)
        #expect(await WorkspaceDiscovery.discover(tls, environment: release) == tls)
        // A refused connection (nothing listens there any more).
        let refused = try #require(URL(string: "https://127.0.0.1:\(try ListeningSocket().port)/"))
        #expect(await WorkspaceDiscovery.discover(refused, environment: release) == refused)
        // A reply without `server: databricks` (the fault server's own 404 at its root).
        let plain = try TestServers.fault().appendingPathComponent("/")
        #expect(await WorkspaceDiscovery.discover(plain, environment: environment(), requiringHTTPS: false) == plain)
        #expect(journal.events.filter { $0.message == "workspace probe failed; address kept" }.count >= 2)

        // Connecting goes on with the address as typed: after the failed probe the manifest is asked for there.
        let address = try ServerAddress(parsing: tls.absoluteString)
        let manifestCalls = { self.requests.filter { $0.hasSuffix("/.well-known/omnigent.json") } }
        #expect(manifestCalls().isEmpty)
        do {
            _ = try await OmnigentConnector.connect(address, environment: release)
            Issue.record("an untrusted certificate must not connect")
        } catch {
            guard case .notOmnigent = error else {
                Issue.record("expected the manifest step to fail, got \(error)")
                return
            }
        }
        #expect(!manifestCalls().isEmpty, "the probe did not end setup")
        #expect(manifestCalls().allSatisfy { $0 == "GET \(address.origin)/.well-known/omnigent.json" })
    }

    // MARK: O-AUTH-1/2

    @Test(
        "O-AUTH-1/2: the unauthenticated manifest names the mode and the cookie; redirect URIs only for oidc; header mode is local"
    )
    func manifestsInEveryMode() async throws {
        let environment = environment()
        var modes: [String: Manifest] = [:]
        for name in ["OMNIGENT_URL", "OMNIGENT_ACCOUNTS_URL", "OMNIGENT_OIDC_URL"] {
            let connection = try await OmnigentFixture.connection(try TestServers.url(name), environment: environment)
            let manifest = try #require(connection.manifest)
            modes[manifest.auth.mode] = manifest
        }
        #expect(Set(modes.keys) == ["header", "accounts", "oidc"])
        for (mode, manifest) in modes {
            #expect(AuthMode(rawValue: mode) != nil)
            // The modes with a sign-in name their cookie; header mode has none.
            #expect(manifest.auth.sessionCookie == (mode == "header" ? nil : "ap_session"), "\(mode)'s cookie")
            let redirects = manifest.auth.nativeRedirectURIs
            #expect((redirects != nil) == (mode == "oidc"), "native_redirect_uris only for oidc (\(mode))")
        }
        #expect(modes["oidc"]?.auth.nativeRedirectURIs?.contains(SignInRoute.iOSRedirectURI) == true)
        // O-AUTH-2: header mode on loopback needs nothing from the app: `/v1/me` is `local`, an admin.
        let header = try await OmnigentFixture.connection(try TestServers.omnigent(), environment: environment)
        let me = try await TestClients.loopback(header.apiBase).send(OmnigentAPI.me())
        #expect(me.userID == "local" && me.isAdmin == true)
        #expect(try await OmnigentServer.account(of: header, environment: environment).userID == "local")
    }

    // MARK: O-URL-10

    @Test(
        "O-URL-10: a Databricks host asks for no manifest and goes on to sign in inside the web view, whatever its manifest answers (404, 401, 403, a sign-in redirect)"
    )
    func aWorkspaceSignsInInTheWebViewWithoutAManifest() async throws {
        // Host names the tests cannot resolve, sent to the fault server: its `/omnigent-refusing/<answer>` paths
        // answer the manifest as a workspace does to a person not yet signed in (its root path: a 404).
        let fault = try TestServers.fault()
        let transport = HostsTransport(["w.cloud.databricks.com": fault, "omni.example.com": fault])
        let environment = OmnigentFixture.environment(
            journal: journal, clock: ManualWallClock(), transport: transport, policy: .development)
        let model = ServerSetupModel(environment: environment)
        for path in ["", "/omnigent-refusing/401", "/omnigent-refusing/403", "/omnigent-refusing/signin"] {
            model.addressText = "http://w.cloud.databricks.com" + path
            await model.connect()
            guard case .needsSignIn(let connection) = model.phase else {
                Issue.record("expected the web view's sign-in for \(path), got \(model.phase)")
                continue
            }
            #expect(connection.manifest == nil)
            #expect(SignInRoute(connection) == .webView)
        }
        #expect(!requests.contains { $0.hasSuffix("/.well-known/omnigent.json") }, "no manifest was asked for")
        // On a generic host a missing manifest still means it is not an Omnigent server.
        model.addressText = "http://omni.example.com"
        await model.connect()
        guard case .failed(let sentence) = model.phase else {
            Issue.record("expected a failure, got \(model.phase)")
            return
        }
        #expect(sentence.contains("does not look like an Omnigent server"))
    }

    @Test("O-MOUNT-8: a link never carries the mount; the workspace it names gets the mount from discovery")
    func linksGetTheMountFromDiscovery() async throws {
        let workspace = try LinkParser.parse(
            "omnigent://my-workspace.cloud.databricks.com/c/x", grammar: .omnigent, policy: .httpsOnly)
        #expect(workspace.server.description == "https://my-workspace.cloud.databricks.com")
        #expect(workspace.server.path.isEmpty || workspace.server.path == "/")
        #expect(WorkspaceDiscovery.shouldProbe(workspace.server.url), "so the probe runs for it")
        // A link whose path names the mount is not a link at all.
        #expect(throws: LinkError.unsupportedPath) {
            try LinkParser.parse(
                "omnigent://my-workspace.cloud.databricks.com/omnigent/c/x", grammar: .omnigent, policy: .httpsOnly)
        }
        // A fault server origin whose root answers as a workspace (after a same-origin redirect): the link's bare
        // server gets its mount from the probe after consent. (The second origin's root is O-MOUNT-2's alone.)
        let second = try TestServers.faultRootSameOrigin()
        let model = ServerSetupModel(environment: environment())
        guard
            case .success(.askConsent(let request)) = model.handle(
                link: "omnigent://127.0.0.1:\(second.port ?? 0)/c/conv_ws")
        else {
            Issue.record("expected a consent question")
            return
        }
        let connection = request.open()
        #expect(connection.server.path.isEmpty || connection.server.path == "/")
        let discovered = await WorkspaceDiscovery.discover(
            connection.server.url, environment: environment(), requiringHTTPS: false)
        #expect(discovered.path == WorkspaceDiscovery.mount)
        #expect(WorkspaceDiscovery.apiBase(for: discovered).path == WorkspaceDiscovery.workspaceAPIBase)
    }

    // MARK: O-MDM-15

    /// The declarative channel as the platform would hand it, changed by the test between activations.
    final class DeclarativeChannel: Sendable {
        let value = Locked<ManagedValue?>(nil)
    }

    @Test("O-MDM-15: the configuration is read again each time the app becomes active, and only then")
    func configurationIsReadOnEveryActivation() throws {
        let suite = "companion-omnigent-mdm15-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let declarative = DeclarativeChannel()
        let source = DefaultsManagedConfigurationSource(suiteName: suite) { declarative.value.withLock { $0 } }
        let real = try realServer()
        let model = ServerSetupModel(recents: RecentServers([real]), environment: environment())
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.isEmpty)

        // An administrator's write while the app is in the background shows up at the next activation.
        defaults.set(["serverUrls": ["https://one.example.com"]], forKey: DefaultsManagedConfigurationSource.classicKey)
        #expect(model.presets.isEmpty, "not before the app becomes active")
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.map(\.description) == ["https://one.example.com"])

        defaults.set(
            ["serverUrls": ["https://two.example.com", "three.example.com"]],
            forKey: DefaultsManagedConfigurationSource.classicKey)
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.map(\.description) == ["https://two.example.com", "https://three.example.com"])

        // The declarative channel, once non-empty, wins (O-MDM-2), read the same way.
        declarative.value.withLock { $0 = .dictionary(["serverUrls": .array([.string("https://decl.example.com")])]) }
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.map(\.description) == ["https://decl.example.com"])

        // Withdrawn: the presets vanish at the next activation, recents untouched (O-MDM-14).
        declarative.value.withLock { $0 = nil }
        defaults.removeObject(forKey: DefaultsManagedConfigurationSource.classicKey)
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.isEmpty)
        #expect(model.recents.servers == [real])
        #expect(requests.isEmpty, "reading the configuration asks nothing of the network")
    }

    // MARK: O-ERR-1

    @Test("O-ERR-1: the three error envelopes become typed errors carrying the server's own message")
    func errorEnvelopesCarryTheServersMessage() async throws {
        let omnigent = client(try TestServers.omnigent())
        // `{"error": {"code", "message"}}`: a session that does not exist.
        do {
            _ = try await omnigent.send(OmnigentAPI.session("conv_missing"))
            Issue.record("a missing session must fail")
        } catch {
            #expect(error.statusCode == 404)
            #expect(error.envelope?.code == "not_found")
            #expect(error.envelope?.message == "Not found.")
            #expect(error.description.contains("Not found."))
        }
        // 422 `{"detail": [...]}`: a page size the server refuses.
        do {
            _ = try await omnigent.send(OmnigentAPI.sessions(limit: 0))
            Issue.record("limit 0 must be refused")
        } catch {
            #expect(error.statusCode == 422)
            let problem = try #require(error.envelope?.fieldProblems.first)
            #expect(problem.field == "query.limit")
            #expect(problem.message == "Input should be greater than or equal to 1")
            #expect(error.description.contains("Input should be greater than or equal to 1"))
        }
        // The accounts form `{"error": "…"}`: a wrong password.
        let accounts = client(try TestServers.url("OMNIGENT_ACCOUNTS_URL"))
        do {
            _ = try await accounts.send(
                Request<JSONValue>.post("/auth/login", body: ["username": "root", "password": "wrong-password"]))
            Issue.record("a wrong password must fail")
        } catch {
            #expect(error.statusCode == 401)
            #expect(error.envelope?.message == "invalid username or password")
            #expect(error.description.contains("invalid username or password"))
        }
    }

    // MARK: O-ERR-3

    @Test(
        "O-ERR-3: lists are {object: list, data, first_id, last_id, has_more}, paged with after and before; Unix seconds"
    )
    func listsArePagedWithAfterAndBefore() async throws {
        let omnigent = client(try TestServers.omnigent())
        let agents = try await omnigent.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first(where: { $0.name == "debby" }) ?? agents.data.first)
        // Paged within this test's own sessions (a search for a word only their titles hold): other suites create
        // and update sessions on the same server meanwhile, which would move pages under the walk.
        let word = "pagetest" + UUID().uuidString.prefix(8).lowercased()
        var created: [Session] = []
        for index in 1...3 {
            created.append(
                try await omnigent.send(
                    try OmnigentAPI.createSession(agentID: agent.id, title: "\(word) page \(index)")))
        }
        // The wire shape, as the server sends it.
        let raw = try await omnigent.send(Request<JSONValue>.get("/v1/sessions", query: ["limit": "2"]))
        #expect(raw["object"] == .string("list"))
        #expect(raw["data"]?.arrayValue?.count == 2)
        #expect(raw["first_id"] == raw["data"]?[0]?["id"] && raw["last_id"] == raw["data"]?[1]?["id"])
        #expect(raw["has_more"] == .bool(true))

        let first = try await omnigent.send(OmnigentAPI.sessions(limit: 2, search: word))
        #expect(first.data.count == 2 && first.hasMore)
        #expect(first.firstID == first.data.first?.id && first.lastID == first.data.last?.id)
        let next = try await omnigent.send(OmnigentAPI.sessions(limit: 2, after: first.lastID, search: word))
        #expect(next.data.map(\.id) == [created[0].id], "after: the page that follows (the oldest of the three)")
        #expect(Set(next.data.map(\.id)).isDisjoint(with: first.data.map(\.id)), "after: the page that follows")
        let back = try await omnigent.send(OmnigentAPI.sessions(limit: 2, before: next.firstID, search: word))
        #expect(back.data.map(\.id) == first.data.map(\.id), "before: the page in front, in the same order")

        // Timestamps are Unix seconds: the raw number is the typed date.
        let mine = try #require(created.last)
        let detail = try await omnigent.send(Request<JSONValue>.get("/v1/sessions/\(mine.id)"))
        let seconds = try #require(detail["created_at"]?.doubleValue)
        #expect(abs(seconds - Date().timeIntervalSince1970) < 600, "seconds since 1970, not milliseconds")
        #expect(abs(mine.createdAt.timeIntervalSince1970 - seconds) < 1)
    }
}
