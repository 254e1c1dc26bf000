import CompanionCore
import CompanionHTTP
import Foundation
import Testing

@testable import OmnigentCore

/// Every model decodes a real reply captured from Omnigent 0.19.1 (the replies in `Fixtures/`, captured from a running server).
@Suite("Omnigent models against real replies")
struct ModelTests {
    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
        return try Data(contentsOf: url)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(Client.defaultDateDecoding)
        return try decoder.decode(T.self, from: try fixture(name))
    }

    @Test func sessionsList() throws {
        let page = try Self.decode(OmnigentListPage<Session>.self, "sessions-list")
        #expect(!page.data.isEmpty)
        let first = try #require(page.data.first)
        #expect(first.id.count == 32)
        #expect(first.createdAt.timeIntervalSince1970 > 1_700_000_000)
        #expect(first.updatedAt >= first.createdAt)
    }

    @Test func sessionDetailWithNestedItems() throws {
        let session = try Self.decode(Session.self, "session-detail")
        #expect(session.title == "swift integration test")
        #expect(session.status == "idle")
        #expect(session.pendingElicitations == [])
        #expect(!session.needsAttention)
        struct Detail: Decodable { var items: [SessionItem] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(Client.defaultDateDecoding)
        let items = try decoder.decode(Detail.self, from: try Self.fixture("session-detail")).items
        #expect(items.map(\.role) == ["user", "assistant"])
        #expect(items.last?.text == "Echo: Hello from Swift")
        #expect(items.last?.model == "debby")
    }

    @Test func flatItems() throws {
        let page = try Self.decode(OmnigentListPage<SessionItem>.self, "session-items")
        #expect(page.data.map(\.text) == ["Hello from Swift", "Echo: Hello from Swift"])
        #expect(page.data.allSatisfy { $0.isChatMessage })
    }

    @Test func createAndPatchResponses() throws {
        #expect(try Self.decode(Session.self, "session-create-response").id.count == 32)
        #expect(try Self.decode(Session.self, "session-patch-response").id.count == 32)
    }

    @Test func manifestsInBothModes() throws {
        let header = try Self.decode(Manifest.self, "well-known-omnigent")
        #expect(header.authMode == .header && header.serverVersion == "0.19.1")
        let accounts = try Self.decode(Manifest.self, "accounts-well-known-omnigent")
        #expect(accounts.authMode == .accounts && accounts.serverVersion == "0.19.1")
        #expect(accounts.auth.sessionCookie == "ap_session")
    }

    @Test func agentsAckAndIdentity() throws {
        #expect(try Self.decode(OmnigentListPage<Agent>.self, "agents-list").data.contains { $0.name == "debby" })
        #expect(try Self.decode(EventAck.self, "event-ack-external-item").itemID?.isEmpty == false)
        #expect(try Self.decode(Identity.self, "v1-me").userID == "local")
    }

    @Test func aMissingRequiredFieldNamesItsPath() throws {
        let body = Data(
            #"{"object":"list","data":[{"id":"a","created_at":1},{"title":"x","created_at":2}],"has_more":false}"#.utf8)
        let response = HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"], url: URL(string: "http://h/v1/sessions"))
        #expect {
            _ = try JSONDecoding.decode(
                OmnigentListPage<Session>.self, from: body, response: response, decoder: JSONDecoder())
        } throws: { error in
            guard case .undecodable(let failure) = error as? HTTPError else { return false }
            return failure.path == "data[1].id"
        }
    }
}

@Suite("Omnigent watch rules")
struct WatchRuleTests {
    static func session(
        _ id: String, status: String = "idle", pending: Int = 0, project: String? = nil, updated: Int = 0
    ) -> Session {
        Session(
            id: id, status: status, projectID: project, pendingElicitationsCount: pending,
            createdAt: Date(timeIntervalSince1970: 1_000),
            updatedAt: Date(timeIntervalSince1970: TimeInterval(1_000 + updated)))
    }

    @Test("O-WATCH-11 / O-OPEN-18: one group each, attention > active > project (of the list) > recent")
    func grouping() {
        let sessions = [
            Self.session("a", status: "running", pending: 1),
            Self.session("b", status: "running"),
            Self.session("c", status: "waiting", project: "p1"),
            Self.session("d", project: "p1"),
            Self.session("e", project: "p2"),
            Self.session("f"),
            Self.session("g", status: "launching"),
            Self.session("h", status: "failed"),
            Self.session("i", project: "p3"),
        ]
        let projects = [
            SessionProject(id: "p3", name: "Third"), SessionProject(id: nil, name: "Legacy"),
            SessionProject(id: "p1", name: "Project One"),
        ]
        let groups = SessionGroup.group(sessions, projects: projects)
        // Projects in the projects list's order; `p2` is not in the list, so its session is recent.
        #expect(groups.map(\.title) == ["Needs attention", "Active", "Third", "Project One", "Recent"])
        #expect(groups.map { $0.sessions.map(\.id) } == [["a"], ["b", "c", "g"], ["i"], ["d"], ["e", "f", "h"]])
        #expect(groups.flatMap(\.sessions).count == sessions.count)
        // Each group has an id of its own for a list view, the same on every read.
        #expect(groups.map(\.id) == ["attention", "active", "project:Third", "project:Project One", "recent"])
        // Without a projects list every inactive session is recent.
        #expect(SessionGroup.group(sessions).map(\.title) == ["Needs attention", "Active", "Recent"])
    }

    @Test func emptyListHasNoGroups() { #expect(SessionGroup.group([]).isEmpty) }

    @Test("O-WATCH-11: a session made with no approval count has none: it needs no attention and is recent")
    func aSessionWithoutACountNeedsNoAttention() {
        let session = Session(id: "a", createdAt: Date(timeIntervalSince1970: 1_000), updatedAt: .distantPast)
        #expect(session.pendingElicitationsCount == 0)
        #expect(!session.needsAttention)
        #expect(SessionGroup.group([session]).map(\.id) == ["recent"])
    }

    @Test("O-WATCH-3 / O-OPEN-19: newest 8 chat messages, oldest first")
    func lastMessages() {
        var items: [SessionItem] = []
        for index in 0..<12 {
            items.append(
                SessionItem(
                    id: "m\(index)", role: index % 2 == 0 ? "user" : "assistant",
                    content: [.init(type: "output_text", text: "t\(index)")],
                    createdAt: Date(timeIntervalSince1970: TimeInterval(index))))
        }
        items.append(
            SessionItem(
                id: "tool", type: "function_call", role: nil, content: [], createdAt: Date(timeIntervalSince1970: 99)))
        items.append(
            SessionItem(
                id: "sys", role: "system", content: [.init(type: "input_text", text: "s")],
                createdAt: Date(timeIntervalSince1970: 98)))
        let last = items.reversed().map { $0 }.lastChatMessages()
        #expect(last.map(\.id) == (4..<12).map { "m\($0)" })
    }

    @Test(
        "O-URL-9: host classification on a dot boundary",
        arguments: [
            ("databricks.com", HostKind.databricksWorkspace), ("x.cloud.databricks.com", .databricksWorkspace),
            ("X.AzureDatabricks.net", .databricksWorkspace), ("x.databricksapps.com", .databricksApp),
            ("databricks.com.example.org", .generic), ("notdatabricks.com", .generic), ("example.com", .generic),
        ])
    func hostKinds(host: String, kind: HostKind) { #expect(HostKind(host: host) == kind) }

    @Test(
        "O-MOUNT-1: probe only https bare roots that are not Apps",
        arguments: [
            ("https://w.cloud.databricks.com", true), ("https://w.cloud.databricks.com/", true),
            ("http://w.cloud.databricks.com/", false), ("https://w.cloud.databricks.com/omnigent", false),
            ("https://a.databricksapps.com/", false), ("https://example.com/?o=1", true),
        ])
    func probeCondition(url: String, probes: Bool) throws {
        #expect(WorkspaceDiscovery.shouldProbe(try #require(URL(string: url))) == probes)
    }

    @Test("O-MOUNT-4: the mount keeps scheme, host, port, query and fragment")
    func mounted() throws {
        let url = try #require(URL(string: "https://w.cloud.databricks.com:8443/?o=42#f"))
        #expect(WorkspaceDiscovery.mounted(url).absoluteString == "https://w.cloud.databricks.com:8443/omnigent?o=42#f")
    }

    @Test(
        "O-MOUNT-7 / O-OPEN-1: API base",
        arguments: [
            ("https://w.cloud.databricks.com/omnigent", "https://w.cloud.databricks.com/api/2.0/omnigent"),
            ("https://w.cloud.databricks.com/omnigent/c/conv_1?o=4", "https://w.cloud.databricks.com/api/2.0/omnigent"),
            ("https://w.cloud.databricks.com/ml/omnigents/", "https://w.cloud.databricks.com/api/2.0/omnigent"),
            ("https://omni.example.com", "https://omni.example.com"),
            ("https://omni.example.com/team/c/abc", "https://omni.example.com/team"),
        ])
    func apiBase(url: String, base: String) throws {
        #expect(WorkspaceDiscovery.apiBase(for: try #require(URL(string: url))).absoluteString == base)
    }

    @Test("O-WATCH-5: only form elicitations with an empty schema resolve on the watch")
    func simpleApprovals() {
        #expect(Elicitation(id: "1", mode: "form", requestedSchema: nil).isSimpleApproval)
        #expect(
            Elicitation(id: "1", mode: "form", requestedSchema: ["type": "object", "properties": [:]]).isSimpleApproval)
        #expect(
            !Elicitation(id: "1", mode: "form", requestedSchema: ["properties": ["name": ["type": "string"]]])
                .isSimpleApproval)
        #expect(!Elicitation(id: "1", mode: "url").isSimpleApproval)
        #expect(!Elicitation(id: "1", mode: nil).isSimpleApproval, "a mode must be given, as the real app reads it")
        #expect(Elicitation(id: "1", mode: "form", requestedSchema: ["properties": .null]).isSimpleApproval)
        // `properties` that are not an object cannot be shown to ask for nothing: the approval stays on the phone.
        for properties: JSONValue in [.array([]), .string(""), .bool(false), .integer(0)] {
            #expect(
                !Elicitation(id: "1", mode: "form", requestedSchema: ["properties": properties]).isSimpleApproval,
                "properties \(properties)")
        }
    }
}

@Suite("Omnigent sign-in route")
struct SignInRouteTests {
    static func connection(host: String, mode: String, redirects: [String]? = nil, cookie: String? = nil) throws
        -> ServerConnection
    {
        let address = try ServerAddress(parsing: "https://\(host)", policy: .httpsOnly)
        var members: [String: JSONValue] = ["mode": .string(mode)]
        members["native_redirect_uris"] = redirects.map { .array($0.map(JSONValue.string)) } ?? .null
        members["session_cookie"] = cookie.map(JSONValue.string) ?? .null
        let manifest = try JSONDecoder().decode(
            Manifest.self,
            from: Data(JSONValue.object(["manifest_version": 1, "auth": .object(members)]).jsonString().utf8))
        return ServerConnection(address: address, apiBase: address.url, manifest: manifest)
    }

    @Test("O-AUTH-11 / O-OPEN-16 / O-URL-10")
    func routes() throws {
        #expect(SignInRoute(try Self.connection(host: "a.example.com", mode: "header")) == .none)
        #expect(SignInRoute(try Self.connection(host: "a.example.com", mode: "accounts")) == .accounts)
        #expect(
            SignInRoute(
                try Self.connection(
                    host: "a.example.com", mode: "oidc", redirects: [SignInRoute.iOSRedirectURI], cookie: "ap_session"))
                == .pkce(redirectURI: SignInRoute.iOSRedirectURI))
        #expect(
            SignInRoute(
                try Self.connection(host: "a.example.com", mode: "oidc", redirects: [SignInRoute.iOSRedirectURI]))
                == .ticket)
        #expect(SignInRoute(try Self.connection(host: "a.example.com", mode: "oidc")) == .ticket)
        #expect(SignInRoute(try Self.connection(host: "a.example.com", mode: "something-new")) == .webView)
        #expect(SignInRoute(try Self.connection(host: "w.cloud.databricks.com", mode: "oidc")) == .webView)
        #expect(SignInRoute(try Self.connection(host: "a.example.com", mode: "none")) == .none)
    }

    @Test("O-AUTH-2: header and none modes need no sign-in step; accounts, oidc and an unknown mode do")
    func needsSignIn() throws {
        let expected = ["header": false, "none": false, "accounts": true, "oidc": true, "something-new": true]
        for (mode, needs) in expected {
            #expect(try Self.connection(host: "a.example.com", mode: mode).needsSignIn == needs, "\(mode)")
        }
    }
}

extension ModelTests {
    /// The public probe asks nothing of an http root: the address comes back as given and no request is sent
    /// (the loopback tests reach the probe through its `requiringHTTPS: false` entry).
    @Test("O-MOUNT-1: the public probe sends nothing for an http root and keeps the address")
    func thePublicProbeSendsNothingForAnHTTPRoot() async throws {
        let transport = RecordingTransport()
        let environment = OmnigentFixture.environment(transport: transport)
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        #expect(await WorkspaceDiscovery.discover(url, environment: environment) == url)
        #expect(transport.sent.isEmpty)
    }
}

extension ModelTests {
    /// What the watch shows as a chat message: a `message` item from the user or the assistant with text; an item
    /// of another type is not one even with a chat role and text, nor a message of another role or without text.
    @Test("O-WATCH-3: a chat message is a message item, by the user or the assistant, with text")
    func chatMessagesAreMessagesOfUserOrAssistantWithText() {
        let cases: [(type: String, role: String?, text: String, chat: Bool)] = [
            ("message", "user", "x", true),
            ("message", "assistant", "x", true),
            ("reasoning", "assistant", "x", false),
            ("function_call_output", "user", "x", false),
            ("message", "system", "x", false),
            ("message", "User", "x", false),
            ("message", nil, "x", false),
            ("message", "user", "", false),
        ]
        for item in cases {
            let value = SessionItem(
                id: "i", type: item.type, role: item.role, content: [.init(type: "output_text", text: item.text)],
                createdAt: Date(timeIntervalSince1970: 1))
            #expect(value.isChatMessage == item.chat, "\(item.type) \(item.role ?? "nil") \(item.text)")
        }
    }
}
