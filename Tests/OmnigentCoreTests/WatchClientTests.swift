import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// The watch client (O-WATCH-1…11) against the real Omnigent 0.19.1: header mode, and accounts mode with
/// a cookie the phone "syncs"; a failed session and one waiting on an approval made through 0.19.1's own API;
/// the fault server plays a sharded deployment's router for `wrong_replica`, a queued message's `pending_id`,
/// and a stream that says `[DONE]` or sends a frame over 1 MiB, which a server without runners never does.
@Suite(.serialized) struct WatchClientTests {
    let journal = Journal()

    func environment(transport: (any Transport)? = nil) -> AppEnvironment {
        OmnigentFixture.environment(journal: journal, transport: transport)
    }

    /// A keeper holding a cookie synced for `url`.
    func keeper(_ url: URL, _ header: String = "ap_session=header-mode") -> WatchCookieKeeper {
        WatchCookieKeeper(WatchCookieSync(serverURL: url, cookieHeader: header, syncedAt: Date()))
    }

    @Test("O-WATCH-7: every request carries the synced Cookie, X-Omnigent-Client: watchos, Cache-Control: no-cache")
    @MainActor func requestsCarryTheWatchHeaders() async throws {
        let fault = try TestServers.fault()
        let keeper = keeper(fault, "ap_session=synced-cookie-123")
        let watch = WatchClient(apiBase: fault, cookies: keeper, environment: environment())
        let echo = try await watch.client.send(Request<JSONValue>.get("/echo"))
        #expect(echo["headers"]?["cookie"]?.stringValue == "ap_session=synced-cookie-123")
        #expect(echo["headers"]?["x-omnigent-client"]?.stringValue == "watchos")
        #expect(echo["headers"]?["cache-control"]?.stringValue == "no-cache")
        // O-AUTH-15: the cookie goes only to the origin it was synced for.
        let other = WatchClient(
            apiBase: try TestServers.faultSecondOrigin(), cookies: keeper, environment: environment())
        let elsewhere = try await other.client.send(Request<JSONValue>.get("/echo"))
        #expect(elsewhere["headers"]?["cookie"] == nil)
        #expect(elsewhere["headers"]?["x-omnigent-client"]?.stringValue == "watchos")
        expectNoSecrets(["synced-cookie-123"], journal: journal)
    }

    @Test("O-WATCH-8: the phone's Cookie header holds the cookies for <apiBase>/v1; the newest syncedAt wins")
    func cookieSyncKeepsTheNewest() throws {
        let base = fixtureURL("http://127.0.0.1:8000/omnigent")
        let header = WatchCookieSync.cookieHeader(
            for: base,
            from: [
                WebViewCookie(name: "ap_session", value: "jwt", domain: "127.0.0.1"),
                WebViewCookie(name: "scoped", value: "a", domain: "127.0.0.1", path: "/omnigent/v1"),
                WebViewCookie(name: "elsewhere", value: "b", domain: "127.0.0.1", path: "/admin"),
                WebViewCookie(name: "__Host-ap_session", value: "c", domain: "127.0.0.1", secure: true),
                WebViewCookie(name: "other-host", value: "d", domain: "example.com"),
            ])
        #expect(header == "ap_session=jwt; scoped=a")
        let saved = Locked<[WatchCookieSync?]>([])
        let keeper = WatchCookieKeeper(persist: { value in saved.withLock { $0.append(value) } })
        let now = Date(timeIntervalSince1970: 1_764_400_000)
        let newer = WatchCookieSync(serverURL: base, cookieHeader: "ap_session=new", syncedAt: now)
        let older = WatchCookieSync(serverURL: base, cookieHeader: "ap_session=old", syncedAt: now - 60)
        #expect(keeper.receive(newer))
        #expect(!keeper.receive(older))
        #expect(!keeper.receive(newer))
        #expect(keeper.current?.cookieHeader == "ap_session=new")
        #expect(saved.withLock { $0.count } == 1)
        #expect(!newer.description.contains("ap_session=new"))
        // Over the wire the phone sends {serverURL, cookieHeader, syncedAt}.
        let wire = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(newer)) as? [String: Any]
        #expect(Set(wire?.keys.map { $0 } ?? []) == ["serverURL", "cookieHeader", "syncedAt"])
        #expect((wire?["syncedAt"] as? Double) == 1_764_400_000)
        let decoded = try JSONDecoder().decode(
            WatchCookieSync.self,
            from: Data(
                #"{"serverURL":"http://127.0.0.1:8000/omnigent","cookieHeader":"a=b","syncedAt":1764400060}"#.utf8))
        #expect(decoded.syncedAt == now + 60)
        #expect(keeper.receive(decoded))
    }

    /// Ported from the real app's `WatchCompanionTests.testFiltersCookiesByDomainPathAndTransport`.
    @Test(
        "O-WATCH-8: a domain cookie for /api applies to https …/api/v1 only: not over http, not /other, not /apiary",
        arguments: [
            ("https://app.example.com/api", true), ("http://app.example.com/api", false),
            ("https://app.example.com/other", false), ("https://app.example.com/apiary", false),
        ])
    func cookieScope(_ apiBase: String, _ applies: Bool) throws {
        let cookie = WebViewCookie(
            name: "session", value: "value", domain: ".example.com", hostOnly: false, path: "/api", secure: true)
        let header = WatchCookieSync.cookieHeader(for: try #require(URL(string: apiBase)), from: [cookie])
        #expect((header == "session=value") == applies)
    }

    @Test("O-WATCH-8: a cookie is host-only unless said otherwise: example.com's does not reach app.example.com")
    func aCookieIsHostOnlyByDefault() throws {
        let cookie = WebViewCookie(name: "session", value: "value", domain: "example.com")
        #expect(cookie.hostOnly)
        let apiBase = try #require(URL(string: "https://app.example.com/api"))
        #expect(WatchCookieSync.cookieHeader(for: apiBase, from: [cookie]) == nil)
        let own = try #require(URL(string: "https://example.com/api"))
        #expect(WatchCookieSync.cookieHeader(for: own, from: [cookie]) == "session=value")
    }

    @Test(
        "O-WATCH-1/2/3/11: accounts mode, a cookie synced from the phone: the list's query, projects, the detail's query"
    )
    @MainActor func accountsModeWithASyncedCookie() async throws {
        let (url, token, _, _) = try await OmnigentFixture.accountsLogin()
        let header = try #require(
            WatchCookieSync.cookieHeader(
                for: url, from: [WebViewCookie(name: "ap_session", value: token, domain: "127.0.0.1")]))
        let cookieClient = environment().client(
            for: url, profile: AppProfile(userAgent: "CompanionKit-Tests", headers: ["Cookie": header]))
        let title = "watch \(UUID().uuidString.prefix(6))"
        let id = try await OmnigentFixture.createSession(cookieClient, title: title).id
        let transport = RecordingTransport()
        let watch = WatchClient(
            apiBase: url, cookies: keeper(url, header), environment: environment(transport: transport))
        await watch.refresh()
        guard case .sessions(let groups) = watch.screen else {
            Issue.record("expected the sessions, got \(watch.screen)")
            return
        }
        #expect(groups.flatMap(\.sessions).contains { $0.id == id && $0.title == title })
        // O-WATCH-1: newest update first, twenty at a time, then the projects.
        #expect(transport.sent.map { "\($0.method) \($0.path)" } == ["GET /v1/sessions", "GET /v1/sessions/projects"])
        #expect(Self.query(transport.sent.first) == ["order": "desc", "sort_by": "updated_at", "limit": "20"])
        #expect(transport.sent.allSatisfy { $0.headers["Cookie"] == header && $0.status == 200 })
        await watch.open(id)
        #expect(watch.detail?.session.id == id)
        #expect(watch.detail?.messages.isEmpty == true)
        #expect(watch.actionProblem == nil)
        // O-WATCH-2: the detail without its items or liveness.
        let detail = try #require(transport.sent.first { $0.path == "/v1/sessions/\(id)" })
        #expect(Self.query(detail) == ["include_items": "false", "include_liveness": "false"])
        let items = try #require(transport.sent.first { $0.path == "/v1/sessions/\(id)/items" })
        #expect(Self.query(items)["order"] == "desc")
        expectNoSecrets([token], journal: journal)
    }

    static func query(_ sent: RecordingTransport.Sent?) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = sent?.query
        return Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    @Test("O-WATCH-2: the detail of a session that failed decodes what 0.19.1 sends: status and last_task_error")
    @MainActor func failedSessionDetail() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let id = try await OmnigentFixture.createSession(client, title: "watch failed").id
        try await OmnigentFixture.fail(id, saying: "The runner stopped: disk full.", client: client)
        // What the server sends for it, as it sends it.
        let raw = try await client.send(
            Request<JSONValue>.get(
                "/v1/sessions/\(id)", query: ["include_items": "false", "include_liveness": "false"]))
        #expect(raw["last_task_error"]?["message"] == .string("The runner stopped: disk full."))
        #expect(raw["pending_inputs"] == .array([]))
        let watch = WatchClient(apiBase: url, cookies: keeper(url), environment: environment())
        await watch.open(id)
        let detail = try #require(watch.detail, "the detail decodes: \(watch.actionProblem ?? "")")
        #expect(detail.session.status == "failed")
        #expect(detail.failure?.message == "The runner stopped: disk full.")
        #expect(detail.failure?.code == raw["last_task_error"]?["code"]?.stringValue)
        #expect(detail.pendingInputs.isEmpty)
        #expect(watch.actionProblem == nil)
        // The phone's detail screen reads the same session.
        let server = try await OmnigentFixture.server(url, environment: environment())
        let model = SessionDetailModel(server: server, sessionID: id)
        await model.refresh()
        #expect(model.state.value?.session.lastTaskError?.message == "The runner stopped: disk full.")
    }

    @Test(
        "O-WATCH-2/5: a session waiting on an approval decodes from 0.19.1, is offered, and accepting it resolves it")
    @MainActor func approvalDetailAndResolve() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let id = try await OmnigentFixture.createSession(client, title: "watch approval").id
        let simple = try await OmnigentFixture.askApproval(id, message: "Run the tests?", client: client)
        let structured = try await OmnigentFixture.askApproval(
            id, message: "Which branch?",
            schema: ["type": "object", "properties": ["branch": ["type": "string"]]], client: client)
        let watch = WatchClient(apiBase: url, cookies: keeper(url), environment: environment())
        await watch.refresh()
        guard case .sessions(let groups) = watch.screen else {
            Issue.record("expected the sessions, got \(watch.screen)")
            return
        }
        #expect(groups.first?.kind == .needsAttention)
        #expect(groups.first?.sessions.contains { $0.id == id } == true, "it needs attention")
        await watch.open(id)
        let detail = try #require(watch.detail, "the detail decodes: \(watch.actionProblem ?? "")")
        let pending = detail.session.pendingElicitations ?? []
        #expect(pending.map(\.id) == [simple, structured])
        #expect(pending.map(\.message) == ["Run the tests?", "Which branch?"])
        #expect(pending.map(\.mode) == ["form", "form"])
        #expect(detail.approvals.map(\.id) == [simple], "only the one with an empty schema is offered on the watch")
        await watch.resolve(simple, accept: true)
        #expect(watch.actionProblem == nil)
        #expect(watch.detail?.session.pendingElicitations?.map(\.id) == [structured], "the server resolved it")
    }

    @Test("O-WATCH-9: no cookie, or a refused one → 'Reopen Omnigent on your iPhone and sign in.', no retry loop")
    @MainActor func refusedCookieAsksToSignInOnThePhone() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let transport = RecordingTransport()
        let keeper = WatchCookieKeeper()
        let watch = WatchClient(apiBase: url, cookies: keeper, environment: environment(transport: transport))
        await watch.refresh()
        #expect(watch.screen == .signInOnPhone)
        #expect(transport.sent.isEmpty)
        keeper.receive(WatchCookieSync(serverURL: url, cookieHeader: "ap_session=expired-or-forged", syncedAt: Date()))
        await watch.refresh()
        #expect(watch.screen == .signInOnPhone)
        #expect(transport.sent.map(\.status) == [401])
        #expect(WatchScreen.signInSentence == "Reopen Omnigent on your iPhone and sign in.")
        // A 403 is the same state.
        let fault = WatchClient(apiBase: try TestServers.fault(), cookies: keeper, environment: environment())
        do {
            _ = try await fault.client.send(Request<JSONValue>.get("/auth/forbidden"))
            Issue.record("expected a 403")
        } catch {
            #expect(error.statusCode == 403)
            #expect(WatchClient.refusedCookie(error))
        }
    }

    @Test("O-WATCH-6: a message posted while the watch follows the stream arrives as its finished item (real server)")
    @MainActor func liveItemsArrive() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let id = try await OmnigentFixture.createSession(client, title: "watch live").id
        let watch = WatchClient(apiBase: url, cookies: keeper(url), environment: environment())
        let text = "From the stream \(UUID().uuidString.prefix(6))"
        // Bounded (the server answers at once); the deadline cancels the read.
        let done = try await withDeadline(.seconds(30)) { () -> ServerSentEvent? in
            var posted = false
            for try await event in watch.live(id) {
                if !posted {
                    // The stream is open (its first event came): post as another client would.
                    posted = true
                    _ = try await client.send(try OmnigentAPI.appendAssistantMessage(id, agent: "debby", text: text))
                }
                if event.event == "response.output_item.done" { return event }
            }
            return nil
        }
        let event = try #require(done, "the finished item never came")
        let item = try #require(SessionDetailModel.item(from: event, client: watch.client))
        #expect(item.text == text)
        #expect(item.role == "assistant")
    }

    @Test("O-WATCH-6: `[DONE]` ends the stream: nothing after it is passed on, and it does not reconnect")
    func doneEndsTheStream() async throws {
        let fault = try TestServers.fault()
        let stream = "done-\(UUID().uuidString.prefix(8))"
        let client = TestClients.loopback(fault)
        let events = OmnigentStream.events(
            .empty(.get, "/sse?count=5&done_after=2&interval_ms=0&stream=\(stream)"), client: client)
        let seen = try await withDeadline(.seconds(30)) { () -> [String]? in
            var seen: [String] = []
            for try await event in events { seen.append(event.data) }
            return seen
        }
        #expect(seen == [#"{"n":1,"stream":"\#(stream)"}"#, #"{"n":2,"stream":"\#(stream)"}"#])
        let stats = try await client.send(Request<JSONValue>.get("/_sse_stats", query: ["stream": stream]))
        #expect(stats["connections"] == .integer(1), "no reconnection after [DONE]")
    }

    /// The fault server's stream `stream` of `count` events, the first padded to `big` bytes of data, read through
    /// `OmnigentStream` until `[DONE]` (bounded at 30 s): the data seen, the journal and the client.
    static func bigFirstEvent(_ stream: String, count: Int, big: Int) async throws -> (
        seen: [String]?, journal: Journal, client: Client
    ) {
        let journal = Journal()
        let client = TestClients.loopback(try TestServers.fault(), journal: journal)
        let events = OmnigentStream.events(
            .empty(.get, "/sse?count=\(count)&big=\(big)&done_after=\(count)&interval_ms=0&stream=\(stream)"),
            client: client)
        let seen = try await withDeadline(.seconds(30)) { () -> [String]? in
            var seen: [String] = []
            for try await event in events { seen.append(event.data) }
            return seen
        }
        return (seen, journal, client)
    }

    /// Follows the real app's `testSSEParserDropsOversizedInputAndRecoversAtNextFrame`, on the wire.
    @Test("O-WATCH-6: an event over 1 MiB is dropped and the stream goes on with the next one")
    func anOversizedFrameIsDropped() async throws {
        let stream = "big-\(UUID().uuidString.prefix(8))"
        let (seen, journal, client) = try await Self.bigFirstEvent(stream, count: 3, big: 1_200_000)
        #expect(seen == [#"{"n":2,"stream":"\#(stream)"}"#, #"{"n":3,"stream":"\#(stream)"}"#])
        #expect(journal.events.contains { $0.message == "event stream dropped an oversized event" })
        let stats = try await client.send(Request<JSONValue>.get("/_sse_stats", query: ["stream": stream]))
        #expect(stats["connections"] == .integer(1), "the stream was not closed for it")
    }

    /// The limit's edge: an event whose line is exactly 1 MiB (`data: ` and 1,048,570 bytes) is not over it.
    @Test("O-WATCH-6: an event of exactly 1 MiB is delivered whole")
    func anEventOfExactlyOneMebibyteIsDelivered() async throws {
        let stream = "edge-\(UUID().uuidString.prefix(8))"
        let (seen, journal, _) = try await Self.bigFirstEvent(stream, count: 2, big: 1_048_570)
        #expect(seen?.map(\.utf8.count) == [1_048_570, #"{"n":2,"stream":"\#(stream)"}"#.utf8.count])
        #expect(!journal.events.contains { $0.message == "event stream dropped an oversized event" })
    }

    /// The other side of the edge: a line of 1 MiB and one byte (`data: ` and 1,048,571 bytes) is over it.
    @Test("O-WATCH-6: an event one byte over 1 MiB is dropped and the next one delivered")
    func anEventOneByteOverOneMebibyteIsDropped() async throws {
        let stream = "over-\(UUID().uuidString.prefix(8))"
        let (seen, journal, _) = try await Self.bigFirstEvent(stream, count: 2, big: 1_048_571)
        #expect(seen == [#"{"n":2,"stream":"\#(stream)"}"#])
        #expect(journal.events.contains { $0.message == "event stream dropped an oversized event" })
    }

    @Test("O-WATCH-4: 503 runner_unavailable shows the server's message (real server, no runner)")
    @MainActor func runnerUnavailableShowsTheServerSentence() async throws {
        let url = try TestServers.omnigent()
        let id = try await OmnigentFixture.createSession(TestClients.loopback(url), title: "watch send").id
        let watch = WatchClient(apiBase: url, cookies: keeper(url), environment: environment())
        let message = try #require(await watch.send("Hello from the wrist", to: id))
        guard case .failed(let sentence) = message.status else {
            Issue.record("expected a failure, got \(message.status)")
            return
        }
        #expect(sentence.contains("no runner"), "\(sentence)")
        #expect(watch.screen != .signInOnPhone)
    }

    @Test("O-WATCH-4: an ack with pending_id is shown as pending (fault server: a queued turn)")
    @MainActor func queuedMessageIsPending() async throws {
        let base = try TestServers.fault().appendingPathComponent("replica")
        let watch = WatchClient(apiBase: base, cookies: keeper(base, "ap_session=x"), environment: environment())
        let message = try #require(await watch.send("queued", to: "sess_1"))
        #expect(message.status == .pending(id: "pending-1"))
        #expect(watch.sent.last?.status == .pending(id: "pending-1"))
    }

    @Test("O-WATCH-10: the slice key on a Databricks API base; a GET on the wrong replica retried once, a POST not")
    @MainActor func sliceKeyAndWrongReplica() async throws {
        let base = try TestServers.fault().appendingPathComponent("replica/api/2.0/omnigent")
        let keeper = keeper(base, "ap_session=x")
        let transport = RecordingTransport()
        let watch = WatchClient(
            apiBase: base, cookies: keeper, hostID: "host-42", environment: environment(transport: transport))
        await watch.refresh()
        #expect(watch.screen == .sessions([]))
        let gets = transport.sent.map { ($0.path, $0.headers[WatchRequestHeaders.sliceKeyHeader], $0.status) }
        #expect(gets.map(\.0).allSatisfy { $0.hasPrefix(base.path + "/v1/sessions") })
        #expect(gets.map(\.1) == ["host-42", nil, "host-42", nil])
        #expect(gets.map(\.2) == [400, 200, 400, 200])
        let before = transport.sent.count
        let message = try #require(await watch.send("no retry", to: "sess_1"))
        #expect(transport.sent.count == before + 1)
        #expect(message.status == .failed("host is on another replica"))
        // Off Databricks the key is never sent.
        let plain = RecordingTransport()
        let offDatabricks = WatchClient(
            apiBase: try TestServers.fault().appendingPathComponent("replica"), cookies: keeper, hostID: "host-42",
            environment: environment(transport: plain))
        await offDatabricks.refresh()
        #expect(plain.sent.allSatisfy { $0.headers[WatchRequestHeaders.sliceKeyHeader] == nil })
        #expect(plain.sent.count == 2)
    }

    /// O-WATCH-10's check reads a misrouted GET's 400 for its error code, up to 1 MiB: an envelope of exactly
    /// 1 MiB saying `wrong_replica` is retried without the slice key; a body one byte longer is never read whole
    /// (the request fails as too large, nothing is sent again).
    @Test("O-WATCH-10: the wrong-replica check reads a 400 of at most 1 MiB")
    func theWrongReplicaCheckReadsAtMostOneMebibyte() async throws {
        func envelope(bytes: Int) -> Data {
            let head = #"{"error":{"code":"wrong_replica","message":""#
            let tail = #""}}"#
            return Data((head + String(repeating: "x", count: bytes - head.utf8.count - tail.utf8.count) + tail).utf8)
        }
        let request = HTTPRequest(url: fixtureURL("https://w.cloud.databricks.com/api/2.0/omnigent/v1/sessions"))
        for (size, retried) in [(1_048_576, true), (1_048_577, false)] {
            let headers = WatchRequestHeaders(cookies: WatchCookieKeeper(), sliceKey: "host-42", journal: Journal())
            let sent = Locked<[String?]>([])
            let body = envelope(bytes: size)
            #expect(body.count == size)
            let next: HTTPNext = { request async throws(HTTPError) in
                let key = request.headers[WatchRequestHeaders.sliceKeyHeader]
                sent.withLock { $0.append(key) }
                let status = key == nil ? 200 : 400
                let response = HTTPResponse(
                    status: status, headers: ["Content-Type": "application/json"], url: request.url)
                return (response, HTTPBody(status == 200 ? Data("[]".utf8) : body))
            }
            do {
                let (response, _) = try await headers.intercept(request, next: next)
                #expect(retried, "a \(size)-byte 400 is read")
                #expect(response.status == 200)
            } catch {
                #expect(!retried, "a \(size)-byte 400 is read: \(error)")
                guard case .bodyTooLarge(let limit, _) = error else {
                    Issue.record("expected the body refused as too large, got \(error)")
                    continue
                }
                #expect(limit == 1_048_576)
            }
            #expect(sent.withLock { $0 } == (retried ? ["host-42", nil] : ["host-42"]))
        }
    }

    @Test("Item 8 (O-WATCH-9): a refused cookie is not sent again until a newer one arrives")
    @MainActor func aRefusedCookieIsNotResent() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let transport = RecordingTransport()
        let synced = Date()
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: url, cookieHeader: "ap_session=expired-or-forged", syncedAt: synced))
        let watch = WatchClient(apiBase: url, cookies: keeper, environment: environment(transport: transport))
        await watch.refresh()
        #expect(watch.screen == .signInOnPhone)
        #expect(transport.sent.map(\.status) == [401])
        // Every action now stops at the sign-in state without a request: the refused cookie stays home.
        await watch.refresh()
        await watch.open("conv_x")
        #expect(await watch.send("Hello", to: "conv_x") == nil)
        #expect(watch.screen == .signInOnPhone)
        #expect(transport.sent.count == 1, "nothing sent with the refused cookie")
        // The same copy again is not newer: still nothing.
        keeper.receive(WatchCookieSync(serverURL: url, cookieHeader: "ap_session=expired-or-forged", syncedAt: synced))
        await watch.refresh()
        #expect(transport.sent.count == 1)
        // A newer cookie from the phone: the watch asks again.
        let login = try await OmnigentFixture.accountsLogin()
        let cookie = "ap_session=\(login.token)"
        keeper.receive(WatchCookieSync(serverURL: url, cookieHeader: cookie, syncedAt: synced.addingTimeInterval(1)))
        await watch.refresh()
        #expect(transport.sent.count >= 2)
        guard case .sessions = watch.screen else {
            Issue.record("expected the sessions with the newer cookie, got \(watch.screen)")
            return
        }
    }

    @Test(
        "O-WATCH-5: accept and decline are told apart: a declined approval's resolution reads `decline` on the stream")
    @MainActor func declineIsSentAsDecline() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let id = try await OmnigentFixture.createSession(client, title: "watch decline").id
        let declined = try await OmnigentFixture.askApproval(id, message: "Delete the branch?", client: client)
        let accepted = try await OmnigentFixture.askApproval(id, message: "Run the tests?", client: client)
        let watch = WatchClient(apiBase: url, cookies: keeper(url), environment: environment())
        await watch.open(id)
        #expect(watch.detail?.approvals.map(\.id) == [declined, accepted])
        // The server publishes every resolution on the session's stream with the action it was given.
        let actions = try await withDeadline(.seconds(30)) { () -> [String: String]? in
            var actions: [String: String] = [:]
            var resolved = false
            for try await event in watch.live(id) {
                if !resolved {
                    resolved = true
                    await watch.resolve(declined, accept: false)
                    await watch.resolve(accepted, accept: true)
                }
                let data = JSONValue(data: Data(event.data.utf8))
                if event.event == "response.elicitation_resolved" || data?["type"] == "response.elicitation_resolved",
                    let eid = data?["elicitation_id"]?.stringValue ?? data?["data"]?["elicitation_id"]?.stringValue
                {
                    actions[eid] = data?["action"]?.stringValue ?? data?["data"]?["action"]?.stringValue ?? "?"
                    if actions.count == 2 { return actions }
                }
            }
            return actions
        }
        #expect(actions == [declined: "decline", accepted: "accept"])
        #expect(watch.actionProblem == nil)
        #expect(watch.detail?.approvals.isEmpty == true, "both resolved on the server")
    }

    @Test("Item 2 (O-WATCH-6): 45 s without a byte is a dead stream: each connection of the stream waits 45 s at most")
    @MainActor func theStreamsIdleTimeoutIs45Seconds() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let id = try await OmnigentFixture.createSession(client, title: "idle timeout").id
        let transport = RecordingTransport()
        let watch = WatchClient(apiBase: url, cookies: keeper(url), environment: environment(transport: transport))
        let first = try await withDeadline(.seconds(30)) { () -> ServerSentEvent? in
            for try await event in watch.live(id) { return event }
            return nil
        }
        #expect(first != nil, "the stream opened")
        let stream = try #require(transport.sent.first { $0.path.hasSuffix("/stream") })
        #expect(stream.timeout == .seconds(45), "the idle bound of the stream's connection")
        #expect(OmnigentStream.configuration.idleTimeout == .seconds(45))
        // A read is not a stream: it keeps the client's own bound.
        await watch.refresh()
        #expect(transport.sent.last.map { $0.timeout != .seconds(45) } == true)
    }
}

extension WatchClientTests {
    /// The rest of the cookie scope, a row each: a path equal to the request's, one ending in `/`, an empty one
    /// (the root), and a cookie that is not Secure, which goes over http too.
    @Test(
        "O-WATCH-8: a cookie's path applies when equal, when a prefix ending in / or before a /, and empty as /; a non-Secure one goes over http",
        arguments: [
            ("/api/v1", false, "http://app.example.com/api", true),
            ("/api/", true, "https://app.example.com/api", true),
            ("", true, "https://app.example.com/other", true),
            ("/api/v1/x", true, "https://app.example.com/api", false),
            ("/api", false, "http://app.example.com/api", true),
        ] as [(String, Bool, String, Bool)])
    func cookiePathsAndTransport(_ path: String, _ secure: Bool, _ apiBase: String, _ applies: Bool) throws {
        let cookie = WebViewCookie(name: "s", value: "v", domain: "app.example.com", path: path, secure: secure)
        let header = WatchCookieSync.cookieHeader(for: try #require(URL(string: apiBase)), from: [cookie])
        #expect((header == "s=v") == applies)
    }
}
