import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Every route of `OmnigentAPI` as the request a client makes of it, read back exactly: method, path under a
/// mount, every query item and the JSON body (§2 of the spec, O-WATCH-1…6, O-ERR-3). Pure values: no server.
@Suite("Omnigent requests read back as values")
struct RequestShapeTests {
    /// The request `client` makes for `request`, on an API base with a mount path.
    static func made<Response>(_ request: Request<Response>) throws -> HTTPRequest {
        let base = try #require(URL(string: "http://127.0.0.1:9/omnigent"))
        return try TestClients.loopback(base).httpRequest(for: request)
    }

    /// The path (percent-encoded, as sent) and every query item, by name.
    static func parts(_ request: HTTPRequest) throws -> (path: String, query: [String: String]) {
        let parts = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        var query: [String: String] = [:]
        for item in parts.queryItems ?? [] { query[item.name] = item.value }
        return (parts.percentEncodedPath, query)
    }

    /// The body as a JSON value.
    static func body(_ request: HTTPRequest) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: try #require(request.body, "a body"))
    }

    @Test("O-WATCH-1: the sessions list asks order=desc, sort_by=updated_at, limit=20 and nothing else by default")
    func sessionsDefaults() throws {
        let request = try Self.made(OmnigentAPI.sessions())
        let (path, query) = try Self.parts(request)
        #expect(request.method == .get)
        #expect(path == "/omnigent/v1/sessions")
        #expect(query == ["order": "desc", "sort_by": "updated_at", "limit": "20"])
    }

    @Test("O-ERR-3: a page is turned with after or before; a search and archived sessions are asked for by name")
    func sessionsPagedAndFiltered() throws {
        let request = try Self.made(
            OmnigentAPI.sessions(limit: 5, after: "a1", before: "b1", search: "plan", includeArchived: true))
        #expect(
            try Self.parts(request).query == [
                "order": "desc", "sort_by": "updated_at", "limit": "5", "after": "a1", "before": "b1",
                "search_query": "plan", "include_archived": "true",
            ])
        // An empty search is no search; archived sessions stay out unless asked for.
        let plain = try Self.made(OmnigentAPI.sessions(search: "", includeArchived: false))
        #expect(try Self.parts(plain).query == ["order": "desc", "sort_by": "updated_at", "limit": "20"])
    }

    @Test("O-WATCH-1: projects are read from /v1/sessions/projects")
    func projects() throws {
        let request = try Self.made(OmnigentAPI.projects())
        #expect(request.method == .get)
        #expect(try Self.parts(request).path == "/omnigent/v1/sessions/projects")
        #expect(try Self.parts(request).query.isEmpty)
    }

    @Test("O-WATCH-2: the detail asks include_items=false and include_liveness=false; the id is one path segment")
    func detail() throws {
        let request = try Self.made(OmnigentAPI.session("a/b c"))
        let (path, query) = try Self.parts(request)
        #expect(request.method == .get)
        #expect(path == "/omnigent/v1/sessions/a%2Fb%20c")
        #expect(query == ["include_items": "false", "include_liveness": "false"])
    }

    @Test("O-WATCH-3: items are asked newest first, 100 a page, paged with after or before")
    func items() throws {
        let request = try Self.made(OmnigentAPI.items("s1"))
        let (path, query) = try Self.parts(request)
        #expect(request.method == .get)
        #expect(path == "/omnigent/v1/sessions/s1/items")
        #expect(query == ["order": "desc", "limit": "100"])
        let paged = try Self.made(OmnigentAPI.items("s1", limit: 8, after: "i1", before: "i2", order: "asc"))
        #expect(try Self.parts(paged).query == ["order": "asc", "limit": "8", "after": "i1", "before": "i2"])
    }

    @Test("O-WATCH-4: a message is a POST of a user message event to /events")
    func sendMessage() throws {
        let request = try Self.made(try OmnigentAPI.sendMessage("s1", text: "Hello"))
        #expect(request.method == .post)
        #expect(try Self.parts(request).path == "/omnigent/v1/sessions/s1/events")
        #expect(
            try Self.body(request)
                == [
                    "type": "message",
                    "data": ["role": "user", "content": [["type": "input_text", "text": "Hello"]]],
                ])
    }

    @Test("The runner-less appends: external_assistant_message and external_conversation_item, as 0.19.1 takes them")
    func appends() throws {
        let assistant = try Self.made(try OmnigentAPI.appendAssistantMessage("s1", agent: "debby", text: "Hi"))
        #expect(assistant.method == .post)
        #expect(try Self.parts(assistant).path == "/omnigent/v1/sessions/s1/events")
        #expect(
            try Self.body(assistant)
                == ["type": "external_assistant_message", "data": ["agent": "debby", "text": "Hi"]])
        let user = try Self.made(try OmnigentAPI.appendUserMessage("s1", text: "Q"))
        #expect(try Self.parts(user).path == "/omnigent/v1/sessions/s1/events")
        #expect(
            try Self.body(user)
                == [
                    "type": "external_conversation_item",
                    "data": [
                        "item_type": "message",
                        "item_data": ["role": "user", "content": [["type": "input_text", "text": "Q"]]],
                    ],
                ])
    }

    @Test("O-WATCH-5: accept and decline are told apart in the body; both ids are path segments")
    func resolve() throws {
        let accept = try Self.made(try OmnigentAPI.resolve("s1", elicitation: "e/1", accept: true))
        #expect(accept.method == .post)
        #expect(try Self.parts(accept).path == "/omnigent/v1/sessions/s1/elicitations/e%2F1/resolve")
        #expect(try Self.body(accept) == ["action": "accept"])
        let decline = try Self.made(try OmnigentAPI.resolve("s1", elicitation: "e1", accept: false))
        #expect(try Self.body(decline) == ["action": "decline"])
    }

    @Test("A PATCH carries only the fields given")
    func update() throws {
        let title = try Self.made(try OmnigentAPI.update("s1", title: "New"))
        #expect(title.method == .patch)
        #expect(try Self.parts(title).path == "/omnigent/v1/sessions/s1")
        #expect(try Self.body(title) == ["title": "New"])
        #expect(try Self.body(Self.made(try OmnigentAPI.update("s1", archived: true))) == ["archived": true])
        #expect(try Self.body(Self.made(try OmnigentAPI.update("s1", archived: false))) == ["archived": false])
        #expect(try Self.body(Self.made(try OmnigentAPI.update("s1", labels: ["k": "v"]))) == ["labels": ["k": "v"]])
        #expect(try Self.body(Self.made(try OmnigentAPI.update("s1"))) == [:])
    }

    @Test("Mark read: a PUT to read-state with last_seen and unread false, as JSON")
    func markRead() throws {
        let request = try Self.made(try OmnigentAPI.markRead("s1", lastSeen: 1_796_083_776))
        #expect(request.method == .put)
        #expect(try Self.parts(request).path == "/omnigent/v1/sessions/s1/read-state")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(try Self.body(request) == ["last_seen": 1_796_083_776, "unread": false])
    }

    @Test("A new session names its agent, and its title only when given")
    func createSession() throws {
        let titled = try Self.made(try OmnigentAPI.createSession(agentID: "a1", title: "T"))
        #expect(titled.method == .post)
        #expect(try Self.parts(titled).path == "/omnigent/v1/sessions")
        #expect(try Self.body(titled) == ["agent_id": "a1", "title": "T"])
        #expect(
            try Self.body(Self.made(try OmnigentAPI.createSession(agentID: "a1", title: nil))) == ["agent_id": "a1"])
    }

    @Test("O-WATCH-6, O-AUTH-1: the agents, manifest, identity and stream routes")
    func plainRoutes() throws {
        #expect(try Self.parts(Self.made(OmnigentAPI.agents())).path == "/omnigent/v1/agents")
        #expect(try Self.parts(Self.made(OmnigentAPI.manifest())).path == "/omnigent/.well-known/omnigent.json")
        #expect(try Self.parts(Self.made(OmnigentAPI.me())).path == "/omnigent/v1/me")
        let stream = try Self.made(OmnigentAPI.stream("s 1"))
        #expect(stream.method == .get)
        #expect(try Self.parts(stream).path == "/omnigent/v1/sessions/s%201/stream")
    }

    @Test("The profile: no automatic Idempotency-Key, data kept after a revocation (O-ERR-2), its own User-Agent")
    func profile() {
        let profile = OmnigentServer.profile
        #expect(profile.automaticIdempotencyKeys == false)
        #expect(profile.data.wipesOnRevocation == false)
        #expect(profile.data.storage == .offline)
        #expect(profile.defaultHeaders["User-Agent"] == "CompanionKit-Omnigent/0.1")
    }

    @Test("/v1/me: user_id and is_admin are read by their names")
    func identity() throws {
        let me = try JSONDecoder().decode(Identity.self, from: try ModelTests.fixture("v1-me"))
        #expect(me == Identity(userID: "local", isAdmin: true))
        let ack = try JSONDecoder().decode(
            EventAck.self, from: Data(#"{"queued":true,"item_id":"i1","pending_id":"p1","denied":false}"#.utf8))
        #expect(ack.itemID == "i1" && ack.pendingID == "p1" && ack.queued == true && ack.denied == false)
    }

    @Test("O-ERR-3: the sessions paged list asks the defaults, turns with after, and follows has_more")
    func sessionsPagedList() throws {
        let list = OmnigentLists.sessions()
        #expect(
            try Self.parts(Self.made(list.page(nil))).query == [
                "order": "desc", "sort_by": "updated_at", "limit": "20",
            ])
        #expect(try Self.parts(Self.made(list.page("c1"))).query["after"] == "c1")
        let date = Date(timeIntervalSince1970: 1)
        let sessions = [
            Session(id: "a", createdAt: date, updatedAt: date), Session(id: "b", createdAt: date, updatedAt: date),
        ]
        #expect(list.items(OmnigentListPage(data: sessions)).map(\.id) == ["a", "b"])
        #expect(list.nextCursor(OmnigentListPage(data: sessions, lastID: "z", hasMore: true)) == "z")
        #expect(list.nextCursor(OmnigentListPage(data: sessions, hasMore: true)) == "b", "no last_id: the last session")
        #expect(list.nextCursor(OmnigentListPage(data: sessions, lastID: "z")) == nil, "has_more defaults to false")
        let archived = OmnigentLists.sessions(limit: 3, search: "x", includeArchived: true)
        #expect(
            try Self.parts(Self.made(archived.page(nil))).query == [
                "order": "desc", "sort_by": "updated_at", "limit": "3", "search_query": "x", "include_archived": "true",
            ])
    }

    @Test("O-WATCH-6: a delta without `final` is not final; a failure without a message has the app's sentence")
    func liveEventFallbacks() {
        #expect(
            LiveEventTests.read(#"{"type":"response.output_text.delta","delta":"x"}"#)
                == .textDelta(LiveDelta(text: "x", messageID: nil, index: nil, isFinal: false)))
        #expect(
            LiveEventTests.read(#"{"type":"response.output_text.delta"}"#)
                == .textDelta(LiveDelta(text: "", isFinal: false)))
        #expect(
            LiveEventTests.read(#"{"message":"Said plainly"}"#, event: "response.failed") == .failed("Said plainly"))
        #expect(LiveEventTests.read(#"{"error":"A bare string"}"#, event: "response.error") == .failed("A bare string"))
        #expect(
            LiveEventTests.read("{}", event: "response.failed")
                == .failed("The reply failed; the server gave no reason."))
        // A finished item that does not decode is another event, by its type.
        #expect(
            LiveEventTests.read(#"{"type":"response.output_item.done","item":{"id":1}}"#)
                == .other("response.output_item.done"))
    }

    @Test("O-WATCH-6: a consumed message keeps its own time and may name itself by id")
    func consumedMessageWithItsOwnTime() {
        let consumed = LiveEventTests.read(
            #"{"data":{"id":"u2","type":"message","data":{"role":"user","content":[{"type":"input_text","text":"Go"}]},"created_at":5}}"#,
            event: "session.input.consumed")
        guard case .inputConsumed(let message, let pendingID) = consumed else {
            Issue.record("expected a consumed input, got \(consumed)")
            return
        }
        #expect(pendingID == nil)
        #expect(message?.id == "u2" && message?.text == "Go")
        #expect(message?.createdAt == Date(timeIntervalSince1970: 5))
    }
}

/// Values read by name and the edges of small rules, each at its limit and one past it.
@Suite("Omnigent values at their edges")
struct ValueEdgeTests {
    @Test("O-AUTH-1: the manifest's server_name, session_cookie and native_redirect_uris are read by their names")
    func manifestFields() throws {
        let manifest = try JSONDecoder().decode(
            Manifest.self,
            from: Data(
                #"{"manifest_version":2,"server_version":"0.19.1","server_name":"Team","auth":{"mode":"oidc","session_cookie":"ap_session","native_redirect_uris":["ai.omnigent.ios://oauth/callback"]}}"#
                    .utf8))
        #expect(manifest.manifestVersion == 2 && manifest.serverVersion == "0.19.1" && manifest.serverName == "Team")
        #expect(manifest.authMode == .oidc && manifest.auth.sessionCookie == "ap_session")
        #expect(manifest.auth.nativeRedirectURIs == ["ai.omnigent.ios://oauth/callback"])
    }

    @Test("O-WATCH-5: an elicitation's id and content_preview are read by their names; a null params is no params")
    func elicitationFields() throws {
        let read = try JSONDecoder().decode(
            Elicitation.self,
            from: Data(
                #"{"elicitation_id":"e1","params":{"mode":"form","message":"Run?","content_preview":"rm -rf build"}}"#
                    .utf8))
        #expect(read == Elicitation(id: "e1", mode: "form", message: "Run?", contentPreview: "rm -rf build"))
        let bare = try JSONDecoder().decode(
            Elicitation.self, from: Data(#"{"elicitation_id":"e2","params":null}"#.utf8))
        #expect(bare.id == "e2" && bare.message == nil && bare.requestedSchema == nil)
        #expect(!Elicitation(id: "e3", mode: "url").isSimpleApproval)
        #expect(!Elicitation(id: "e4", mode: nil).isSimpleApproval)
    }

    @Test("O-AUTH-10: a session of one second is a cookie; the sign-out's cookie expires at the epoch itself")
    func cookieEdges() throws {
        let now = Date(timeIntervalSince1970: 1_764_400_000)
        let address = try ServerAddress(parsing: "https://example.com")
        let second = try OmnigentSessionCookie(token: "aaa.bbb.ccc", address: address, expiresIn: 1, now: now)
        #expect(second.expiresAt == now + 1)
        let cleared = OmnigentSessionCookie.cleared(for: address)
        #expect(cleared.expiresAt == Date(timeIntervalSince1970: 0))
        #expect(cleared.secure && cleared.path == "/" && cleared.domain == nil)
        let plain = OmnigentSessionCookie.cleared(
            for: try ServerAddress(parsing: "http://127.0.0.1:9", policy: .allowingInsecureLoopback))
        #expect(plain.name == "ap_session" && !plain.secure)
    }

    @Test("O-WATCH-4: a denial without a reason has the app's sentence")
    func aDenialWithoutAReason() {
        let ack = EventAck(queued: false, itemID: nil, pendingID: nil, denied: true, reason: nil)
        #expect(
            WatchSentMessage(id: UUID(), text: "t", ack: ack).status
                == .declined(reason: "The server declined the message."))
    }

    @Test("O-WATCH-9: a 401 and a 403 refuse the cookie; a 400 or a 404 does not")
    func refusedCookieStatuses() {
        func status(_ code: Int) -> HTTPError {
            .status(HTTPError.StatusFailure(method: "GET", url: "http://h/v1/sessions", status: code))
        }
        #expect(WatchClient.refusedCookie(status(401)))
        #expect(WatchClient.refusedCookie(status(403)))
        #expect(!WatchClient.refusedCookie(status(400)))
        #expect(!WatchClient.refusedCookie(status(404)))
    }

    @Test("O-WATCH-6, O-OPEN-20: the stream waits 1 s before its first reconnection, 30 s at most, ends on [DONE]")
    func streamSettings() {
        let settings = OmnigentStream.configuration
        #expect(settings.initialDelay == .seconds(1) && settings.maxDelay == .seconds(30))
        #expect(settings.idleTimeout == .seconds(45) && settings.maxFrameBytes == 1_048_576)
        #expect(settings.oversizedFrames == .drop)
        #expect(OmnigentStream.endMarker == "[DONE]")
    }

    @Test("A cancelled connect has its own sentence")
    func cancelledSentence() {
        #expect(OmnigentConnector.Failure.cancelled.description == "The connect was cancelled.")
    }

    @Test("O-BRIDGE-10: a drag's progress is clamped to 0…1, its ends kept")
    func dragProgress() {
        #expect(
            OmnigentEmit.sidebarDrag(phase: "move", progress: 1).script
                == #"window.__omnigentNativeEmitSidebarDrag?.("move", 1);"#)
        #expect(
            OmnigentEmit.sidebarDrag(phase: "move", progress: 0).script
                == #"window.__omnigentNativeEmitSidebarDrag?.("move", 0);"#)
        #expect(
            OmnigentEmit.sidebarDrag(phase: "move", progress: .infinity).script
                == #"window.__omnigentNativeEmitSidebarDrag?.("move", 0);"#)
    }

    @Test("O-WATCH-11: a title of spaces shows the agent's name; with neither, \"Untitled session\"")
    func displayTitles() {
        let date = Date(timeIntervalSince1970: 1)
        #expect(
            Session(id: "a", title: "  ", agentName: "debby", createdAt: date, updatedAt: date).displayTitle == "debby")
        #expect(
            Session(id: "a", title: "Plan", agentName: "debby", createdAt: date, updatedAt: date).displayTitle == "Plan"
        )
        #expect(
            Session(id: "a", title: nil, agentName: " ", createdAt: date, updatedAt: date).displayTitle
                == "Untitled session")
    }

    @Test("A session made with the fewest arguments has every default: idle, not archived, no count, read")
    func sessionDefaults() {
        let date = Date(timeIntervalSince1970: 1)
        let session = Session(id: "a", createdAt: date, updatedAt: date)
        #expect(session.status == "idle" && !session.archived && session.labels.isEmpty)
        #expect(session.pendingElicitationsCount == 0 && !session.viewerUnread && session.viewerLastSeen == nil)
        #expect(!session.needsAttention && !session.isActive)
        let item = SessionItem(id: "i", role: "user", content: [], createdAt: date)
        #expect(item.type == "message" && item.status == "completed" && item.model == nil)
        #expect(OmnigentListPage<Session>(data: []).hasMore == false)
        #expect(LiveDelta(text: "x").isFinal == false)
        #expect(WebViewCookie(name: "n", value: "v", domain: "h").secure == false)
    }
}

/// The detail screen's send and approval paths on a scripted transport: the ack a 0.19.1 server gives a
/// denied message, and an approval the watch cannot answer, which sends nothing.
@Suite("Omnigent detail: denied sends and full-page approvals")
@MainActor
struct DetailScriptedTests {
    static func model(_ replies: [ScriptedTransport.Reply]) async throws -> (SessionDetailModel, ScriptedTransport) {
        let manifest = try String(decoding: ModelTests.fixture("well-known-omnigent"), as: UTF8.self)
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        let transport = ScriptedTransport(
            [
                .respond(status: 200, headers: json, body: manifest),
                .respond(status: 200, headers: json, body: #"{"user_id":"local","is_admin":true}"#),
            ] + replies)
        let environment = OmnigentFixture.environment(transport: transport)
        let server = try await OmnigentFixture.server(
            try #require(URL(string: "http://127.0.0.1:9")), environment: environment)
        return (SessionDetailModel(server: server, sessionID: "s1"), transport)
    }

    @Test("O-WATCH-4: a denied message keeps the draft and says the server's reason")
    func aDeniedMessageKeepsTheDraft() async throws {
        let (model, transport) = try await Self.model([
            .respond(
                status: 200, headers: ["Content-Type": "application/json"],
                body: #"{"queued":false,"denied":true,"reason":"Over quota"}"#)
        ])
        let before = transport.requests.count
        await model.updateDraft("Hello")
        await model.send()
        #expect(model.sendProblem == "The server declined the message: Over quota.")
        #expect(model.draft == "Hello")
        #expect(model.sent.isEmpty)
        #expect(!model.isSending)
        #expect(transport.requests.count == before + 1)
    }

    @Test("O-WATCH-5: an approval with fields is not answered from here; nothing is sent")
    func aFormApprovalSendsNothing() async throws {
        let (model, transport) = try await Self.model([])
        let before = transport.requests.count
        let form = Elicitation(
            id: "e1", mode: "form", requestedSchema: ["type": "object", "properties": ["name": ["type": "string"]]])
        await model.resolve(form, accept: true)
        #expect(model.actionProblem == "This approval needs the full web page to answer.")
        #expect(transport.requests.count == before)
    }
}

extension LiveDetailTests {
    /// A finished assistant message on the live stream, made at `time` (Unix seconds).
    static func done(_ id: String, _ text: String, at time: Int) -> String {
        #"data: {"type":"response.output_item.done","item":{"id":"\#(id)","type":"message","role":"assistant","content":[{"type":"output_text","text":"\#(text)"}],"created_at":\#(time)}}"#
            + "\n\n"
    }

    /// The watch's messages after it opened a new session and followed the scripted live `stream` to `limit`.
    func watchFollowing(_ stream: String, title: String, limit: Int) async throws -> [String]? {
        let url = try TestServers.omnigent()
        let session = try await OmnigentFixture.createSession(TestClients.loopback(url), title: title)
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: url, cookieHeader: "ap_session=header-mode", syncedAt: Date()))
        let watch = WatchClient(
            apiBase: url, cookies: keeper,
            environment: OmnigentFixture.environment(transport: ScriptedStreams([stream + "data: [DONE]\n\n"])))
        await watch.open(session.id)
        await watch.follow(limit: limit)
        return watch.detail?.messages.map(\.text)
    }

    @Test("O-WATCH-6: follow(limit:) stops once that many messages joined; an item met twice joins once")
    func theWatchStopsAtItsLimit() async throws {
        let later = Int(Date().timeIntervalSince1970) + 3600
        let stream =
            Self.done("a1", "One", at: later) + Self.done("a1", "One", at: later)
            + Self.done("a2", "Two", at: later + 1)
            + Self.done("a3", "Three", at: later + 2)
        #expect(try await watchFollowing(stream, title: "watch limit", limit: 2) == ["One", "Two"])
    }

    @Test("O-WATCH-6: a message a turn consumed counts once toward follow(limit:), as a finished item does")
    func aConsumedMessageCountsOnceTowardTheLimit() async throws {
        let later = Int(Date().timeIntervalSince1970) + 3600
        let consumed =
            #"data: {"type":"session.input.consumed","data":{"item_id":"u1","type":"message","data":{"role":"user","content":[{"type":"input_text","text":"Go"}]},"created_at":\#(later)}}"#
            + "\n\n"
        let stream = consumed + Self.done("a2", "Two", at: later + 1) + Self.done("a3", "Three", at: later + 2)
        #expect(try await watchFollowing(stream, title: "watch consumed", limit: 2) == ["Go", "Two"])
    }
}

extension RequestShapeTests {
    @Test("O-WATCH-1: projects decode from 0.19.1's bare array and from a list page after any JSON whitespace")
    func projectsDecodeInBothForms() throws {
        let request = OmnigentAPI.projects()
        let response = SessionDecodingTests.response
        let bare = try request.decode(Data(#"[{"id":"p1","name":"One"}]"#.utf8), response, JSONDecoder())
        #expect(bare == [SessionProject(id: "p1", name: "One")])
        let list = #"{"object":"list","data":[{"id":"p2","name":"Two"}],"has_more":false}"#
        for lead in ["", " ", "\t", "\r", "\n"] {
            let page = try request.decode(Data((lead + list).utf8), response, JSONDecoder())
            #expect(page == [SessionProject(id: "p2", name: "Two")], "after \(lead.debugDescription)")
        }
    }
}

/// The sessions list's archived filter against the real 0.19.1 server.
@Suite("Omnigent sessions list: the archived filter")
@MainActor
struct ArchivedFilterTests {
    @Test("The sessions list leaves archived sessions out until showArchived is set, then lists them")
    func archivedSessionsAreListedOnlyWhenAsked() async throws {
        let server = try await OmnigentFixture.server(
            try TestServers.omnigent(), environment: OmnigentFixture.environment())
        let tag = "archived-\(UUID().uuidString.prefix(6))"
        let kept = try await OmnigentFixture.createSession(server.client, title: "\(tag) kept")
        let archived = try await OmnigentFixture.createSession(server.client, title: "\(tag) archived")
        _ = try await server.client.send(try OmnigentAPI.update(archived.id, archived: true))
        let model = SessionsListModel(server: server)
        #expect(!model.showArchived)
        model.search = tag
        await model.refresh()
        #expect(model.state.value?.sessions.map(\.id) == [kept.id])
        model.showArchived = true
        await model.refresh()
        #expect(Set(model.state.value?.sessions.map(\.id) ?? []) == [kept.id, archived.id])
    }
}

extension RequestShapeTests {
    /// A lifetime of zero or less is a session already over: no cookie; half a second is still one.
    @Test("O-AUTH-10: expires_in of 0 or less makes no cookie; 0.5 s makes one that expires then")
    func cookieLifetimeAtZero() throws {
        let now = Date(timeIntervalSince1970: 1_764_400_000)
        let address = try ServerAddress(parsing: "https://example.com")
        for lifetime: TimeInterval in [0, -1, -0.001] {
            #expect(throws: AuthError.self, "expires_in \(lifetime)") {
                try OmnigentSessionCookie(token: "aaa.bbb.ccc", address: address, expiresIn: lifetime, now: now)
            }
        }
        let half = try OmnigentSessionCookie(token: "aaa.bbb.ccc", address: address, expiresIn: 0.5, now: now)
        #expect(half.expiresAt == now + 0.5)
    }
}
