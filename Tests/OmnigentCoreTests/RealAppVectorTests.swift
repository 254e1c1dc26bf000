import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

// Test vectors of the real Omnigent iOS app (omnigent-ai/omnigent, web/ios/OmnigentTests), ported as our own
// tests against this core's API: each test names the upstream test it follows. Where our core answers
// differently on purpose, the test asserts our answer and says so; docs/omnigent.md lists each difference and
// its reason. Vectors that need a server are in the suites that run one (`TicketSignInTests`,
// `WatchClientTests`, `ColdStartLinkTests`); the watchdog's are in CompanionBridgeTests' `WatchdogTests`.

/// `ServerURLTests` (ServerURL.normalize), with `.development` as the debug build's policy and `.httpsOnly` as
/// the release build's.
@Suite("Real app vectors: server address normalization")
struct RealAppServerURLVectors {
    /// `testReleasePolicyDefaultsBareHostToHTTPS`
    @Test func releaseDefaultsABareHostToHTTPS() throws {
        #expect(try ServerAddress(parsing: "example.com", policy: .httpsOnly).description == "https://example.com")
    }

    /// `testDebugPolicyDefaultsBareHostToHTTP`, `testDebugPolicyDefaultsLoopbackVariantsToHTTP`
    @Test(arguments: ["localhost:6767", "127.0.0.1:6767"])
    func debugDefaultsLoopbackToHTTP(_ input: String) throws {
        #expect(try ServerAddress(parsing: input, policy: .development).description == "http://\(input)")
    }

    /// `testDebugPolicyStillDefaultsRemoteHostToHTTPS`
    @Test func debugStillDefaultsARemoteHostToHTTPS() throws {
        #expect(
            try ServerAddress(parsing: "dbc-b7cf3f6a-ac9f.cloud.databricks.com", policy: .development).description
                == "https://dbc-b7cf3f6a-ac9f.cloud.databricks.com")
    }

    /// `testDebugPolicyHonoursExplicitHTTPForRemoteHost`
    @Test func debugHonoursAnExplicitHTTPForARemoteHost() throws {
        #expect(
            try ServerAddress(parsing: "http://example.com", policy: .development).description == "http://example.com")
    }

    /// `testReleasePolicyRejectsHTTP`
    @Test func releaseRejectsHTTP() {
        #expect(throws: ServerAddressError.insecureHTTPNotAllowed(host: "example.com")) {
            try ServerAddress(parsing: "http://example.com", policy: .httpsOnly)
        }
    }

    /// `testRejectsNonWebSchemes`
    @Test func rejectsNonWebSchemes() {
        #expect(throws: ServerAddressError.unsupportedScheme("ftp")) {
            try ServerAddress(parsing: "ftp://example.com", policy: .development)
        }
    }
}

/// `ServerAuthenticationTests` (host classification), as `HostKind`.
@Suite("Real app vectors: host kinds")
struct RealAppHostKindVectors {
    /// `testClassifiesWorkspaceHosts`
    @Test(
        "O-URL-9: workspace hosts",
        arguments: [
            "https://databricks.com", "https://dbc-123.cloud.databricks.com", "https://azuredatabricks.net",
            "https://adb-123.azuredatabricks.net", "https://DBC-123.CLOUD.DATABRICKS.COM",
            "https://ADB-123.AZUREDATABRICKS.NET",
        ])
    func workspaceHosts(_ origin: String) { #expect(HostKind(origin: origin) == .databricksWorkspace) }

    /// `testClassifiesAppsSeparatelyFromWorkspaces`
    @Test(
        "O-URL-9: Databricks App hosts",
        arguments: [
            "https://databricksapps.com", "https://my-app.aws.databricksapps.com",
            "https://MY-APP.AZURE.DATABRICKSAPPS.COM",
        ])
    func appHosts(_ origin: String) { #expect(HostKind(origin: origin) == .databricksApp) }

    /// `testOtherHostsAndLookalikesUseOIDC`
    @Test(
        "O-URL-9: other hosts and look-alikes are generic",
        arguments: [
            "https://example.com", "https://localhost:6767", "https://notdatabricks.com",
            "https://notazuredatabricks.net", "https://notdatabricksapps.com", "https://databricks.com.example.org",
            "https://azuredatabricks.net.example.org", "https://databricksapps.com.example.org",
            "https://databricks.com@example.org", "https://example.org/databricks.com", "not a URL", "",
        ])
    func lookalikesAreGeneric(_ origin: String) { #expect(HostKind(origin: origin) == .generic) }

    /// `testOtherHostsAndLookalikesUseOIDC` (no origin, no host)
    @Test func noHostIsGeneric() {
        #expect(HostKind(origin: nil) == .generic)
        #expect(HostKind(host: nil) == .generic)
        #expect(HostKind(host: "") == .generic)
    }

    /// `testClassificationDependsOnlyOnHost`
    @Test func onlyTheHostCounts() {
        #expect(HostKind(origin: "http://dbc-123.cloud.databricks.com") == .databricksWorkspace)
        #expect(
            HostKind(origin: "https://dbc-123.cloud.databricks.com:8443/omnigent?o=123#conversation")
                == .databricksWorkspace)
        #expect(HostKind(origin: "https://my-app.databricksapps.com:8443/c/abc") == .databricksApp)
    }

    /// `testHostAndOriginClassificationAgree`
    @Test(
        arguments: [
            "databricks.com", "DBC-123.CLOUD.DATABRICKS.COM", "adb-123.azuredatabricks.net", "databricksapps.com",
            "MY-APP.AWS.DATABRICKSAPPS.COM", "example.org", "notdatabricks.com", "azuredatabricks.net.example.org",
            "databricksapps.com.example.org",
        ])
    func hostAndOriginAgree(_ host: String) { #expect(HostKind(host: host) == HostKind(origin: "https://\(host)")) }

    /// `testPlatformAuthenticationRemainsInline`
    @Test("O-URL-10: Databricks hosts sign in inside the web view, a generic host does not")
    func databricksSignsInInTheWebView() {
        #expect(HostKind.databricksWorkspace.signsInInWebView)
        #expect(HostKind.databricksApp.signsInInWebView)
        #expect(!HostKind.generic.signsInInWebView)
    }
}

/// `SettingsStoreTests` (recent servers) and `ManagedServersTests` (presets and recents), as `RecentServers`,
/// `ServerOffer` and the link router.
@Suite("Real app vectors: recent servers")
struct RealAppRecentsVectors {
    static func address(_ text: String) throws -> ServerAddress {
        try ServerAddress(parsing: text, policy: .development)
    }

    /// `testRecentServersAreDedupedAndCapped`
    @Test("O-RECENT-1/2: five at most, newest first, the same server once")
    func dedupedAndCapped() throws {
        var recents = RecentServers()
        for host in ["a", "b", "c", "d", "e", "f", "c"] {
            recents.recordSuccessfulLoad(of: try Self.address("https://\(host).example.com"))
        }
        #expect(recents.servers.count == 5)
        #expect(recents.servers.first?.description == "https://c.example.com")
        #expect(!recents.servers.contains { $0.host == "a.example.com" })
    }

    /// `testRecentServersCanonicalizeDefaultPortsAndPreservePaths`. We differ in the stored text: the kit
    /// keeps the normalized address (`https://apps.example.com/first`), where the real app keeps the spelling
    /// last typed (`https://apps.example.com:443/first/`); both are one server by its key.
    @Test("O-RECENT-2: a default port and a trailing slash are the same server; another path is another")
    func defaultPortsCollapsePathsStay() throws {
        var recents = RecentServers()
        for text in [
            "https://apps.example.com/first", "https://apps.example.com:443/first/", "https://apps.example.com/second",
        ] {
            recents.recordSuccessfulLoad(of: try Self.address(text))
        }
        #expect(
            recents.servers.map(\.description) == ["https://apps.example.com/second", "https://apps.example.com/first"])
    }

    /// `testKnownServerURLMatchesByOrigin`, `testKnownServerURLReturnsNilForNeverConnectedOrigin`
    @Test("O-ROUTE-3: a recent matches a link by origin and keeps its mount; a server never connected to is unknown")
    func knownByOrigin() throws {
        let recents = [try Self.address("https://my-workspace.cloud.databricks.com/ml/omnigents")]
        let context = LinkContext(current: nil, pageLoaded: false, saved: nil, recents: recents)
        let link = try LinkParser.parse("omnigent://my-workspace.cloud.databricks.com/c/x", grammar: .omnigent)
        guard case .switchToKnownServer(let server, _) = LinkRouter.decide(link, in: context) else {
            Issue.record("expected the known server")
            return
        }
        #expect(server.description == "https://my-workspace.cloud.databricks.com/ml/omnigents")
        let other = LinkContext(recents: [try Self.address("https://other.example.com")])
        let unknown = try LinkParser.parse("omnigent://never-seen.example.com/c/x", grammar: .omnigent)
        #expect(LinkRouter.decide(unknown, in: other).summary == "ask-consent")
    }

    /// `testRecentsDropAServerTheAdministratorAlreadyPresets`, `testRecentsAreUntouchedWithoutAConfiguration`,
    /// `testDifferingPortIsADifferentServer`, `testPresetServersComeFirst`, `testMergedServersPreservePathDistinctRecents`
    @Test("O-RECENT-5, O-MDM-13: presets hide equal recents and come first; another port or path is another server")
    func presetsAndRecents() throws {
        let managed = [try Self.address("https://corp.example.com")]
        let recents = RecentServers(try ["https://corp.example.com", "https://mine.example.com"].map(Self.address))
        #expect(recents.displayed(hiding: managed).map(\.description) == ["https://mine.example.com"])
        let unconfigured = RecentServers(try ["https://mine.example.com", "http://localhost:6767"].map(Self.address))
        #expect(
            unconfigured.displayed(hiding: []).map(\.description) == [
                "https://mine.example.com", "http://localhost:6767",
            ])
        let port = RecentServers([try Self.address("https://corp.example.com:8443")])
        #expect(port.displayed(hiding: managed).map(\.description) == ["https://corp.example.com:8443"])
        let offer = ServerOffer(presets: managed, recents: recents)
        #expect(offer.offered.map(\.description) == ["https://corp.example.com", "https://mine.example.com"])
        let paths = ServerOffer(
            presets: [],
            recents: RecentServers(
                try ["https://mine.example.com/first", "https://mine.example.com/second"].map(Self.address)))
        #expect(
            paths.offered.map(\.description) == ["https://mine.example.com/first", "https://mine.example.com/second"])
    }

    /// `testUnparseableRecentIsKept`. We differ: an entry that is no address at all ("not a url") cannot be a
    /// server value, so it is left out, and every other stored entry is kept; a development build's LAN
    /// `http://` entry, which the real app also keeps, reads back.
    @Test("One unreadable stored recent never loses the others")
    func anUnreadableRecentIsLeftOutAlone() throws {
        let stored = Data(#"{"servers":["not a url","https://mine.example.com","http://studio.local:6767"]}"#.utf8)
        let recents = try JSONDecoder().decode(RecentServers.self, from: stored)
        #expect(recents.servers.map(\.description) == ["https://mine.example.com", "http://studio.local:6767"])
    }
}

/// `ManagedConfigurationTests` (the payload, both channels, precedence), through the core's server setup.
@Suite("Real app vectors: managed configuration")
@MainActor
struct RealAppManagedConfigurationVectors {
    static func presets(_ payload: [String: ManagedValue]) -> (servers: [String], code: Int?) {
        let model = ServerSetupModel(environment: OmnigentFixture.environment(policy: .httpsOnly))
        model.applyManagedConfiguration(declarative: .dictionary(payload), classic: nil)
        return (model.presets.map(\.description), model.managedConfigurationCode)
    }

    static func urls(_ list: [String]) -> [String: ManagedValue] {
        ["serverUrls": .array(list.map(ManagedValue.string))]
    }

    /// `testAbsentKeyOffersNoServers`, `testEmptyListOffersNoServers`, `testAdministratorOrderIsPreserved`,
    /// `testBareHostGetsHTTPS`, `testWorkspaceMountIsPreserved`, `testDuplicateOriginsAreDroppedKeepingTheFirst`,
    /// `testMaximumEntriesIsAccepted`
    @Test("O-MDM-1/3/4/7: accepted configurations")
    func accepted() {
        #expect(Self.presets([:]) == ([], nil))
        #expect(Self.presets(Self.urls([])) == ([], nil))
        #expect(
            Self.presets(Self.urls(["https://b.example.com", "https://a.example.com"])).servers == [
                "https://b.example.com", "https://a.example.com",
            ])
        #expect(Self.presets(Self.urls(["omnigent.corp.example.com"])).servers == ["https://omnigent.corp.example.com"])
        #expect(
            Self.presets(Self.urls(["https://ws.cloud.databricks.com/ml/omnigents"])).servers == [
                "https://ws.cloud.databricks.com/ml/omnigents"
            ])
        #expect(
            Self.presets(Self.urls(["https://a.example.com", "https://A.Example.com/", "https://b.example.com"]))
                .servers
                == ["https://a.example.com", "https://b.example.com"])
        let ten = (1...10).map { "https://s\($0).example.com" }
        #expect(Self.presets(Self.urls(ten)).servers.count == 10)
    }

    /// `testDefaultPortDuplicatesCollapseButDistinctMountPathsRemain`. We differ in the text kept: the
    /// normalized address (`https://apps.example.com/first`) instead of the spelling given first.
    @Test("O-MDM-4: a default-port duplicate collapses into the first entry; distinct mounts stay")
    func defaultPortDuplicates() {
        #expect(
            Self.presets(
                Self.urls([
                    "https://apps.example.com:443/first/", "https://apps.example.com/first",
                    "https://apps.example.com/second",
                ])
            ).servers
                == ["https://apps.example.com/first", "https://apps.example.com/second"])
    }

    /// `testInvalidURLIsRejected`, `testBlankEntryIsRejected`, `testInsecureHTTPIsRejected`,
    /// `testNonWebSchemeIsRejected`, `testTooManyEntriesAreRejected`, `testAStringInsteadOfAListIsRejected`,
    /// `testOneBadEntryRejectsTheWholeConfiguration`, `testOurErrorCodesAreNotSystemReserved`
    @Test("O-MDM-5..10: rejected configurations carry the documented code and offer nothing")
    func rejected() {
        let cases: [([String: ManagedValue], Int)] = [
            (Self.urls(["https://"]), 100), (Self.urls(["   "]), 100),
            (Self.urls(["http://omnigent.corp.example.com"]), 101),
            (Self.urls(["ftp://omnigent.corp.example.com"]), 101),
            (Self.urls((0...10).map { "https://s\($0).example.com" }), 102),
            (["serverUrls": .string("https://omnigent.corp.example.com")], 103),
            (Self.urls(["https://good.example.com", "http://bad.example.com"]), 101),
        ]
        for (payload, code) in cases {
            let outcome = Self.presets(payload)
            #expect(outcome.code == code)
            #expect(outcome.servers.isEmpty)
            #expect(code < 0x7000_0000)
        }
    }

    /// `testLegacyDictionaryIsRead`, `testAbsentLegacyKeyOffersNoServers`,
    /// `testInvalidLegacyDictionaryIsIgnoredRatherThanThrowing`, `testLegacyDictionaryWithUnrelatedKeysIsTolerated`,
    /// through the app's defaults as `DefaultsManagedConfigurationSource` reads them.
    @Test("O-MDM-2/11: the classic channel is read from the defaults; a bad one is silently empty; extra keys are fine")
    func classicChannel() throws {
        let suite = "omnigent-real-app-mdm-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let source = DefaultsManagedConfigurationSource(suiteName: suite)
        let model = ServerSetupModel(environment: OmnigentFixture.environment(policy: .httpsOnly))
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.isEmpty && model.managedConfigurationCode == nil)
        defaults.set(
            ["serverUrls": ["https://corp.example.com"]], forKey: DefaultsManagedConfigurationSource.classicKey)
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.map(\.description) == ["https://corp.example.com"])
        defaults.set(
            ["serverUrls": ["http://insecure.example.com"]], forKey: DefaultsManagedConfigurationSource.classicKey)
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.isEmpty && model.managedConfigurationCode == nil, "ignored, not reported")
        defaults.set(
            ["serverUrls": ["https://corp.example.com"], "somethingElse": 42],
            forKey: DefaultsManagedConfigurationSource.classicKey)
        model.appDidBecomeActive(reading: source)
        #expect(model.presets.count == 1)
    }

    /// `testDeclarativeConfigurationWinsOverLegacy`, `testLegacyIsUsedWhenNoDeclarativeConfigurationExists`,
    /// `testNeitherChannelOffersNothing`
    @Test("O-MDM-2: the declarative channel wins when it offers servers; else the classic one; else nothing")
    func precedence() {
        let model = ServerSetupModel(environment: OmnigentFixture.environment(policy: .httpsOnly))
        let declarative = ManagedValue.dictionary(Self.urls(["https://declarative.example.com"]))
        let legacy = ManagedValue.dictionary(Self.urls(["https://legacy.example.com"]))
        model.applyManagedConfiguration(declarative: declarative, classic: legacy)
        #expect(model.presets.map(\.description) == ["https://declarative.example.com"])
        model.applyManagedConfiguration(declarative: .dictionary(Self.urls([])), classic: legacy)
        #expect(model.presets.map(\.description) == ["https://legacy.example.com"])
        model.applyManagedConfiguration(declarative: nil, classic: nil)
        #expect(model.presets.isEmpty)
    }
}

/// `WatchCompanionTests` (the watch's models and stream), as this core's `Session`, `SessionGroup`,
/// `SessionItem` and stream parsing. Our sessions and items carry `created_at`, which 0.19.1 always sends;
/// the upstream bodies leave it out, so the ported bodies add it.
@Suite("Real app vectors: the watch's models")
struct RealAppWatchVectors {
    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try TestClients.loopback(fixtureURL("http://127.0.0.1:1")).decode(T.self, from: Data(json.utf8))
    }

    /// `testGroupsDecodedSessionsByStateAndProject`
    @Test("O-WATCH-11: decoded sessions grouped by state and project; an untitled one shows its agent")
    func groupsByStateAndProject() throws {
        let page = try Self.decode(
            OmnigentListPage<Session>.self,
            """
            {"object":"list","has_more":false,"data":[
              {"id":"approval","title":"Review","agent_name":"agent","host_id":"host","project_id":"p1","status":"waiting","pending_elicitations_count":1,"created_at":1},
              {"id":"active","title":null,"agent_name":"Coder","host_id":null,"project_id":null,"status":"launching","pending_elicitations_count":0,"created_at":1},
              {"id":"project","title":"Done","agent_name":"agent","host_id":null,"project_id":"p1","status":"idle","pending_elicitations_count":0,"created_at":1},
              {"id":"recent","title":"Old","agent_name":"agent","host_id":null,"project_id":"missing","status":"idle","pending_elicitations_count":0,"created_at":1}
            ]}
            """)
        let projects = try Self.decode(
            [SessionProject].self, #"[{"id":"p1","name":"Watch"},{"id":null,"name":"Legacy"}]"#)
        let groups = SessionGroup.group(page.data, projects: projects)
        #expect(page.data[1].displayTitle == "Coder")
        #expect(groups.map(\.kind) == [.needsAttention, .active, .project("Watch"), .recent])
        #expect(groups.map { $0.sessions.map(\.id) } == [["approval"], ["active"], ["project"], ["recent"]])
    }

    /// `testDecodesSnapshotMessagesAndApprovalCapability`
    @Test("O-WATCH-2/3/5: a failed session's snapshot, its pending input and approvals; the items' chat messages")
    func snapshotMessagesAndApprovals() throws {
        let session = try Self.decode(
            Session.self,
            """
            {
              "id":"s1","created_at":1,
              "status":"failed",
              "last_task_error":{"code":"runner_disconnected","message":"Runner disconnected unexpectedly."},
              "pending_inputs":[{"pending_id":"pending_1","content":[{"type":"input_text","text":"Reply"}]}],
              "pending_elicitations":[
                {"elicitation_id":"binary","params":{"message":"Run?","mode":"form","requestedSchema":{"properties":{}}}},
                {"elicitation_id":"structured","params":{"message":"Choose","mode":"form","requestedSchema":{"properties":{"answer":{"type":"string"}}}}}
              ]
            }
            """)
        #expect(session.pendingInputs?.first?.text == "Reply")
        #expect(session.lastTaskError?.message == "Runner disconnected unexpectedly.")
        #expect(session.pendingElicitations?[0].isSimpleApproval == true)
        #expect(session.pendingElicitations?[1].isSimpleApproval == false)
        let page = try Self.decode(
            OmnigentListPage<SessionItem>.self,
            """
            {"object":"list","has_more":false,"data":[
              {"id":"assistant","type":"message","role":"assistant","content":[{"type":"output_text","text":"Answer"}],"created_at":3},
              {"id":"event","type":"resource_event","role":null,"content":null,"created_at":2},
              {"id":"user","type":"message","role":"user","content":[{"type":"input_text","text":"Question"}],"created_at":1}
            ]}
            """)
        #expect(Array(page.data.reversed()).lastChatMessages().map(\.text) == ["Question", "Answer"])
    }

    /// `testSSEParserDecodesConversationEvents` (the committed message; `[DONE]` is `doneEndsTheStream`)
    @Test("O-WATCH-6: a committed assistant item on the stream is read as the item it carries")
    func committedItem() throws {
        let event = ServerSentEvent(
            event: "response.output_item.done",
            data:
                #"{"type":"response.output_item.done","item":{"id":"a1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Done"}],"created_at":1}}"#
        )
        let item = try #require(
            SessionDetailModel.item(from: event, client: TestClients.loopback(fixtureURL("http://127.0.0.1:1"))))
        #expect(item.id == "a1" && item.role == "assistant" && item.text == "Done")
    }

    /// `testSSEParserJoinsDataLinesAndIgnoresUnknownEvents`
    @Test("O-WATCH-6: data lines of one event are joined with a line break and read as one payload")
    func dataLinesJoin() throws {
        var parser = SSEParser(maxFrameBytes: 1024 * 1024, oversizedFrames: .drop)
        let events = try parser.feed(
            Array(
                "event: response.output_text.delta\r\ndata: {\"type\":\"response.output_text.delta\",\r\ndata: \"delta\":\"joined\"}\r\n\r\n"
                    .utf8))
        #expect(events.count == 1)
        #expect(JSONValue(data: Data(try #require(events.first).data.utf8))?["delta"] == .string("joined"))
    }

    /// `testMapsWorkspaceMountAndBuildsEndpoint`
    @Test("O-MOUNT-7: a workspace mount maps to its API base; a standalone server is its own; endpoints join under it")
    func workspaceMountAndEndpoint() throws {
        let api = WorkspaceDiscovery.apiBase(for: fixtureURL("https://dbc.example.com/omnigent/"))
        #expect(api.absoluteString == "https://dbc.example.com/api/2.0/omnigent")
        #expect(
            WorkspaceDiscovery.apiBase(for: fixtureURL("https://dbc.example.com/omnigent/c/session")) == api)
        #expect(
            try ServerAddress(parsing: api.absoluteString).url(appending: "/v1/sessions").absoluteString
                == "https://dbc.example.com/api/2.0/omnigent/v1/sessions")
        let standalone = fixtureURL("http://localhost:6767")
        #expect(WorkspaceDiscovery.apiBase(for: standalone) == standalone)
        #expect(WorkspaceDiscovery.apiBase(for: fixtureURL("http://localhost:6767/c/session")) == standalone)
    }
}

/// `OidcLoginManagerTests` (the ticket's answers and the session cookie), without a server; the ticket flow
/// itself is in `TicketSignInTests`.
@Suite("Real app vectors: tokens and the session cookie")
struct RealAppSessionCookieVectors {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func address(_ text: String) throws -> ServerAddress {
        try ServerAddress(parsing: text, policy: .allowingInsecureLoopback)
    }

    /// `testTokenRejectsCookieInjectionCharacters`, and the shapes issue 27 names.
    @Test(
        "Only a JWT-shaped token becomes a cookie",
        arguments: [
            "aaa.bbb.ccc; Domain=evil.example", "aaa.bbb", "aaa..ccc", "a.b.c.d", "not-a-jwt", "", " aaa.bbb.ccc",
        ])
    func nonJWTTokensAreRefused(_ token: String) throws {
        #expect(!TokenShape.jwt.accepts(token))
        #expect(throws: AuthError.self) {
            try OmnigentSessionCookie(
                token: token, address: try Self.address("https://example.com"), expiresIn: nil, now: Self.now)
        }
    }

    /// `testSessionDecodesTokenAndServerExpiry` (the token kept, the expiry used or the default)
    @Test func aJWTShapedTokenIsKept() throws {
        #expect(TokenShape.jwt.accepts("aaa.bbb.ccc"))
        #expect(TokenShape.jwt.accepts("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyb290In0.c2lnbmF0dXJlLV8"))
        let cookie = try OmnigentSessionCookie(
            token: "aaa.bbb.ccc", address: try Self.address("https://example.com"), expiresIn: 2_592_000, now: Self.now)
        #expect(cookie.value == "aaa.bbb.ccc")
        #expect(cookie.expiresAt == Self.now + 2_592_000)
    }

    /// `testHTTPSCookieUsesHostPrefixAndSecureFlag`. We differ in one field: the real app's `HTTPCookie` names
    /// the origin's host as its domain; ours sets no `Domain` attribute (what `__Host-` requires), which is the
    /// same host-only cookie.
    @Test("O-AUTH-10: on https the cookie is __Host-ap_session, Secure, Path=/, host-only")
    func httpsCookie() throws {
        let cookie = try OmnigentSessionCookie(
            token: "aaa.bbb.ccc", address: try Self.address("https://example.com"), expiresIn: nil, now: Self.now)
        #expect(cookie.name == "__Host-ap_session")
        #expect(cookie.domain == nil && cookie.path == "/" && cookie.secure)
    }

    /// `testDebugHTTPCookieUsesUnprefixedName`
    @Test("O-AUTH-10: on http the cookie is ap_session, not Secure")
    func httpCookie() throws {
        let cookie = try OmnigentSessionCookie(
            token: "aaa.bbb.ccc", address: try Self.address("http://localhost:6767"), expiresIn: nil, now: Self.now)
        #expect(cookie.name == "ap_session" && !cookie.secure)
    }

    /// `testSessionCookieOutlivesAppTermination`, `testSessionCookieExpiresWithServerSession`
    @Test("O-AUTH-10: the cookie outlives the process: expires_in, or 8 h; an expired session is refused")
    func cookieLifetime() throws {
        for origin in ["https://example.com", "http://localhost:6767"] {
            let cookie = try OmnigentSessionCookie(
                token: "aaa.bbb.ccc", address: try Self.address(origin), expiresIn: nil, now: Self.now)
            #expect(cookie.expiresAt == Self.now + 8 * 60 * 60)
        }
        let month = try OmnigentSessionCookie(
            token: "aaa.bbb.ccc", address: try Self.address("https://example.com"), expiresIn: 30 * 24 * 60 * 60,
            now: Self.now)
        #expect(month.expiresAt.timeIntervalSince(Self.now) == 30 * 24 * 60 * 60)
        for expired: TimeInterval in [0, -60] {
            #expect(throws: AuthError.self) {
                try OmnigentSessionCookie(
                    token: "aaa.bbb.ccc", address: try Self.address("https://example.com"), expiresIn: expired,
                    now: Self.now)
            }
        }
        // The sign-out's cookie is the one exception: the same name, empty, long expired.
        let cleared = OmnigentSessionCookie.cleared(for: try Self.address("https://example.com"))
        #expect(cleared.name == "__Host-ap_session" && cleared.value.isEmpty && cleared.expiresAt < Self.now)
    }
}
