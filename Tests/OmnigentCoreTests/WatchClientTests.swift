import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import OmnigentCore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The live transport, recording what went out (method, path, headers) and the status that came back.
final class RecordingTransport: Transport {
    struct Sent: Sendable {
        var method: String
        var path: String
        var headers: HTTPHeaders
        var status: Int?
    }
    private let inner: any Transport = DefaultTransport.make()
    private let log = Mutex<[Sent]>([])

    var sent: [Sent] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        let index = log.withLock { log -> Int in
            log.append(Sent(method: request.method.rawValue, path: request.url.path, headers: request.headers))
            return log.count - 1
        }
        let (response, body) = try await inner.send(request)
        log.withLock { $0[index].status = response.status }
        return (response, body)
    }
}

/// The watch client (O-WATCH-1…11) against the real Omnigent 0.19.1: header mode, and accounts mode with
/// a cookie the phone "syncs"; the fault server plays a sharded deployment's router for `wrong_replica`
/// and a queued message's `pending_id`, which a server without runners never answers.
@Suite(.serialized) struct WatchClientTests {
    let journal = Journal()

    /// A login on the accounts server, straight on the wire (as the phone's web view would hold it).
    func accountsToken() async throws -> (url: URL, token: String, user: String) {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try String(
            contentsOfFile: try TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let client = Client(baseURL: url, configuration: .init(transportPolicy: .allowingInsecureLoopback))
        let reply = try await client.send(
            Request<JSONValue>.post("/auth/login", body: ["username": user, "password": password]))
        return (url, try #require(reply["token"]?.stringValue), user)
    }

    func createSession(on url: URL, cookie: String?, title: String) async throws -> String {
        var headers: HTTPHeaders = [:]
        if let cookie { headers["Cookie"] = cookie }
        let client = Client(
            baseURL: url, configuration: .init(defaultHeaders: headers, transportPolicy: .allowingInsecureLoopback))
        let agents = try await client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first?.id)
        return try await client.send(try OmnigentAPI.createSession(agentID: agent, title: title)).id
    }

    @Test("O-WATCH-7: every request carries the synced Cookie, X-Omnigent-Client: watchos, Cache-Control: no-cache")
    @MainActor func requestsCarryTheWatchHeaders() async throws {
        let fault = try TestServers.fault()
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: fault, cookieHeader: "ap_session=synced-cookie-123", syncedAt: Date()))
        let watch = WatchClient(apiBase: fault, cookies: keeper, policy: .allowingInsecureLoopback, journal: journal)
        let echo = try await watch.client.send(Request<JSONValue>.get("/echo"))
        #expect(echo["headers"]?["cookie"]?.stringValue == "ap_session=synced-cookie-123")
        #expect(echo["headers"]?["x-omnigent-client"]?.stringValue == "watchos")
        #expect(echo["headers"]?["cache-control"]?.stringValue == "no-cache")
        // O-AUTH-15: the cookie goes only to the origin it was synced for.
        let other = WatchClient(
            apiBase: try TestServers.faultSecondOrigin(), cookies: keeper, policy: .allowingInsecureLoopback,
            journal: journal)
        let elsewhere = try await other.client.send(Request<JSONValue>.get("/echo"))
        #expect(elsewhere["headers"]?["cookie"] == nil)
        #expect(elsewhere["headers"]?["x-omnigent-client"]?.stringValue == "watchos")
        expectNoSecrets(["synced-cookie-123"], journal: journal)
    }

    @Test("O-WATCH-8: the phone's Cookie header holds the cookies for <apiBase>/v1; the newest syncedAt wins")
    func cookieSyncKeepsTheNewest() throws {
        let base = try #require(URL(string: "http://127.0.0.1:8000/omnigent"))
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
        let saved = Mutex<[WatchCookieSync?]>([])
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

    @Test("O-WATCH-1/2/3/11: accounts mode, a cookie synced from the phone: list, projects, detail, messages")
    @MainActor func accountsModeWithASyncedCookie() async throws {
        let (url, token, _) = try await accountsToken()
        let header = try #require(
            WatchCookieSync.cookieHeader(
                for: url, from: [WebViewCookie(name: "ap_session", value: token, domain: "127.0.0.1")]))
        let title = "watch \(UUID().uuidString.prefix(6))"
        let id = try await createSession(on: url, cookie: header, title: title)
        let transport = RecordingTransport()
        let keeper = WatchCookieKeeper()
        keeper.receive(WatchCookieSync(serverURL: url, cookieHeader: header, syncedAt: Date()))
        let watch = WatchClient(
            apiBase: url, cookies: keeper, policy: .allowingInsecureLoopback, journal: journal, transport: transport)
        await watch.refresh()
        guard case .sessions(let groups) = watch.screen else {
            Issue.record("expected the sessions, got \(watch.screen)")
            return
        }
        #expect(groups.flatMap(\.sessions).contains { $0.id == id && $0.title == title })
        let calls = transport.sent.map { "\($0.method) \($0.path)" }
        #expect(calls == ["GET /v1/sessions", "GET /v1/sessions/projects"])
        #expect(transport.sent.allSatisfy { $0.headers["Cookie"] == header && $0.status == 200 })
        await watch.open(id)
        #expect(watch.detail?.session.id == id)
        #expect(watch.detail?.messages.isEmpty == true)
        #expect(watch.actionProblem == nil)
        expectNoSecrets([token], journal: journal)
    }

    @Test("O-WATCH-9: no cookie, or a refused one → 'Reopen Omnigent on your iPhone and sign in.', no retry loop")
    @MainActor func refusedCookieAsksToSignInOnThePhone() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let transport = RecordingTransport()
        let keeper = WatchCookieKeeper()
        let watch = WatchClient(
            apiBase: url, cookies: keeper, policy: .allowingInsecureLoopback, journal: journal, transport: transport)
        await watch.refresh()
        #expect(watch.screen == .signInOnPhone)
        #expect(transport.sent.isEmpty)
        keeper.receive(WatchCookieSync(serverURL: url, cookieHeader: "ap_session=expired-or-forged", syncedAt: Date()))
        await watch.refresh()
        #expect(watch.screen == .signInOnPhone)
        #expect(transport.sent.map(\.status) == [401])
        #expect(WatchScreen.signInSentence == "Reopen Omnigent on your iPhone and sign in.")
        // A 403 is the same state.
        let fault = WatchClient(
            apiBase: try TestServers.fault(), cookies: keeper, policy: .allowingInsecureLoopback, journal: journal)
        do {
            _ = try await fault.client.send(Request<JSONValue>.get("/auth/forbidden"))
            Issue.record("expected a 403")
        } catch {
            #expect(error.statusCode == 403)
            #expect(WatchClient.refusedCookie(error))
        }
    }

    @Test("O-WATCH-6: live items over SSE with the watch's headers (real server)")
    @MainActor func liveItemsArrive() async throws {
        let url = try TestServers.omnigent()
        let id = try await createSession(on: url, cookie: nil, title: "watch live")
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: url, cookieHeader: "ap_session=header-mode", syncedAt: Date()))
        let watch = WatchClient(apiBase: url, cookies: keeper, policy: .allowingInsecureLoopback, journal: journal)
        let stream = watch.live(id)
        // The first event, or nothing within 30 s (a bound, not a wait: the server sends at once; the deadline
        // cancels the read).
        let first = try await withDeadline(.seconds(30)) { () -> ServerSentEvent? in
            for try await event in stream { return event }
            return nil
        }
        let event = try #require(first, "the live stream sent nothing")
        #expect(!event.event.isEmpty)
    }

    @Test("O-WATCH-4: 503 runner_unavailable shows the server's message (real server, no runner)")
    @MainActor func runnerUnavailableShowsTheServerSentence() async throws {
        let url = try TestServers.omnigent()
        let id = try await createSession(on: url, cookie: nil, title: "watch send")
        let keeper = WatchCookieKeeper(
            WatchCookieSync(serverURL: url, cookieHeader: "ap_session=header-mode", syncedAt: Date()))
        let watch = WatchClient(apiBase: url, cookies: keeper, policy: .allowingInsecureLoopback, journal: journal)
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
        let keeper = WatchCookieKeeper(WatchCookieSync(serverURL: base, cookieHeader: "ap_session=x", syncedAt: Date()))
        let watch = WatchClient(apiBase: base, cookies: keeper, policy: .allowingInsecureLoopback, journal: journal)
        let message = try #require(await watch.send("queued", to: "sess_1"))
        #expect(message.status == .pending(id: "pending-1"))
        #expect(watch.sent.last?.status == .pending(id: "pending-1"))
    }

    @Test("O-WATCH-10: the slice key on a Databricks API base; a GET on the wrong replica retried once, a POST not")
    @MainActor func sliceKeyAndWrongReplica() async throws {
        let base = try TestServers.fault().appendingPathComponent("replica/api/2.0/omnigent")
        let keeper = WatchCookieKeeper(WatchCookieSync(serverURL: base, cookieHeader: "ap_session=x", syncedAt: Date()))
        let transport = RecordingTransport()
        let watch = WatchClient(
            apiBase: base, cookies: keeper, hostID: "host-42", policy: .allowingInsecureLoopback, journal: journal,
            transport: transport)
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
            policy: .allowingInsecureLoopback, journal: journal, transport: plain)
        await offDatabricks.refresh()
        #expect(plain.sent.allSatisfy { $0.headers[WatchRequestHeaders.sliceKeyHeader] == nil })
        #expect(plain.sent.count == 2)
    }
}
