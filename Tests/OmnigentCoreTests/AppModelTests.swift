import CompanionApp
import CompanionAuth
import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionScreen
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// The screen models end to end against the real Omnigent 0.19.1 server.
@Suite("Omnigent screen models against a real server", .serialized)
@MainActor
struct AppModelTests {
    let journal = Journal()

    func environment(folder: TemporaryFolder? = nil, sleeper: any Sleeper = TaskSleeper()) -> AppEnvironment {
        OmnigentFixture.environment(journal: journal, folder: folder, sleeper: sleeper)
    }

    @Test("O-AUTH-1/2: header mode on loopback connects with no sign-in step")
    func headerModeConnects() async throws {
        let model = ServerSetupModel(environment: environment())
        model.addressText = try TestServers.omnigent().absoluteString
        await model.connect()
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        #expect(connection.authMode == .header)
        #expect(model.listedRecents.isEmpty, "a server joins recents only after its page loaded (O-RECENT-3)")
        #expect(model.pageDidLoad(connection.address) == nil)
        #expect(model.listedRecents == [connection.address])
    }

    @Test("O-AUTH-3: accounts mode asks for sign-in")
    func accountsModeNeedsSignIn() async throws {
        let model = ServerSetupModel(environment: environment())
        model.addressText = try TestServers.url("OMNIGENT_ACCOUNTS_URL").absoluteString
        await model.connect()
        guard case .needsSignIn(let connection) = model.phase else {
            Issue.record("expected needsSignIn, got \(model.phase)")
            return
        }
        #expect(connection.authMode == .accounts)
    }

    @Test("a server that is not Omnigent, and a bad address, fail with a sentence")
    func notOmnigent() async throws {
        let model = ServerSetupModel(environment: environment())
        model.addressText = try TestServers.fault().absoluteString
        await model.connect()
        guard case .failed(let sentence) = model.phase else {
            Issue.record("expected failed, got \(model.phase)")
            return
        }
        #expect(sentence.contains("does not look like an Omnigent server"))
        model.addressText = "ftp://example.com"
        await model.connect()
        #expect(model.phase == .failed(ServerAddressError.unsupportedScheme("ftp").description))
    }

    @Test("O-ROUTE-4/5/6: a link to an unknown server asks first; Cancel changes nothing; Open connects")
    func unknownServerLinkMakesNoRequestBeforeConsent() async throws {
        // A port nothing else uses: any connection to it comes from this test's model.
        let unknown = try ListeningSocket()
        let saved = try ServerAddress(parsing: "https://saved.example.com")
        let model = ServerSetupModel(saved: saved, environment: environment())
        guard
            case .success(.askConsent(let request)) = model.handle(
                link: "omnigent://127.0.0.1:\(unknown.port)/c/conv_1")
        else {
            Issue.record("expected a consent question")
            return
        }
        #expect(request.message.contains("127.0.0.1"))
        #expect(!unknown.hasPendingConnection, "nothing connected while the question was open")
        #expect(model.phase == .idle)
        // Cancel: nothing is asked of the network, and nothing changes: not the phase, the current or saved
        // server, the recents, nor anything held for a page.
        let before = (model.current, model.saved, model.recents, model.deferred, model.pageLoaded)
        model.cancelConsent(to: request)
        #expect(!unknown.hasPendingConnection, "Cancel connects nowhere")
        #expect(journal.events.filter { $0.kind == .request }.isEmpty, "Cancel makes no request")
        #expect(model.phase == .idle)
        #expect(model.current == before.0 && model.saved == before.1 && model.recents == before.2)
        #expect(model.deferred == before.3 && model.deferred.pending == nil && model.pageLoaded == before.4)
        #expect(journal.events.contains { $0.message == "link consent cancelled" })
        // Open: the app connects (the socket never answers, so the attempt is cancelled here).
        let connecting = Task { await model.consent(to: request) }
        let connected = await Task.detached { unknown.waitForConnection(seconds: 20) }.value
        connecting.cancel()
        _ = await connecting.value
        #expect(connected, "after Open the app connects")
        #expect(model.listedRecents.isEmpty, "a server joins recents only after its page loads")
    }

    @Test("O-ROUTE-6: Open on a link to a real server connects, and its page opens the link's path once it loads")
    func consentedLinkOpensItsPathAfterConnecting() async throws {
        let real = try OmnigentFixture.address(try TestServers.omnigent())
        let model = ServerSetupModel(environment: environment())
        guard
            case .success(.askConsent(let request)) = model.handle(
                link: "omnigent://127.0.0.1:\(real.port ?? 80)/c/conv_consented")
        else {
            Issue.record("expected a consent question")
            return
        }
        await model.consent(to: request)
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected the consented connect to succeed, got \(model.phase)")
            return
        }
        #expect(connection.address.origin == real.origin)
        #expect(model.current == connection.address)
        #expect(request.open().loadURL(on: connection.address).absoluteString == real.description + "/c/conv_consented")
        #expect(model.listedRecents.isEmpty, "not before its page loaded")
        #expect(model.pageDidLoad(connection.address) == "/c/conv_consented", "the page opens the link's path")
        #expect(model.pageDidLoad(connection.address) == nil, "exactly once")
        #expect(model.listedRecents == [connection.address])
    }

    @Test("O-MOUNT-4: a `server: databricks` root maps the address to the mount")
    func mountDiscovery() async throws {
        // The root of an origin of its own that answers as a workspace (after a same-origin redirect): the second
        // origin's root is O-MOUNT-2's, which counts the requests it gets.
        let root = try TestServers.faultRootSameOrigin()
        let environment = environment()
        let discovered = await WorkspaceDiscovery.discover(root, environment: environment, requiringHTTPS: false)
        #expect(discovered.path == "/omnigent")
        #expect(
            await WorkspaceDiscovery.discover(
                try TestServers.fault(), environment: environment, requiringHTTPS: false
            ).path == "")
    }

    @Test("O-PICK-3/4: the picker switches only to an offered server")
    func pickerSwitchesOnlyToOfferedServers() async throws {
        let url = try TestServers.omnigent()
        let address = try OmnigentFixture.address(url)
        let model = ServerSetupModel(recents: RecentServers([address]), environment: environment())
        #expect(
            await model.switchServer(to: "https://not-offered.example")
                == "That server is no longer available. Choose a server to reconnect.")
        #expect(model.phase == .idle)
        #expect(await model.switchServer(to: url.absoluteString) == nil)
        guard case .connected = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
    }

    @Test("sessions list: stale-while-revalidate, grouped with the projects, paged to its end through the store")
    func sessionsList() async throws {
        let folder = try TemporaryFolder()
        let server = try await OmnigentFixture.server(
            try TestServers.omnigent(), environment: environment(folder: folder))
        let tag = "list-\(UUID().uuidString.prefix(6))"
        var created: [String] = []
        for index in 0..<5 {
            created.append(try await OmnigentFixture.createSession(server.client, title: "\(tag) \(index)").id)
        }
        let model = SessionsListModel(server: server, pageSize: 2)
        model.search = tag
        await model.refresh()
        guard case .content(let page, _) = model.state else {
            Issue.record("expected content, got \(model.state)")
            return
        }
        #expect(page.sessions.count == 2)
        #expect(page.hasMore)
        await model.list.loadMore()
        #expect(model.state.value?.sessions.count == 4)
        #expect(model.list.hasMore)
        await model.list.loadMore()
        // Three pages of 2, 2 and 1: the whole list, newest update first, no id twice, and no next page.
        #expect(model.state.value?.sessions.map(\.id) == created.reversed())
        #expect(model.state.value?.hasMore == false && !model.list.hasMore)
        // The pages are the store's paged list: a second screen on the same store shows the whole stored list
        // first, marked with its age, then the server's first page.
        let again = SessionsListModel(server: server, pageSize: 2)
        again.search = tag
        await again.refresh(policy: .offline)
        #expect(again.state.kind == .stale)
        #expect(again.state.value?.sessions.count == 5)
        await again.refresh()
        guard case .content = again.state else {
            Issue.record("expected content, got \(again.state)")
            return
        }
        // A write of the stored list (a session changed on another screen) reaches both screens with no request.
        let renamed = try #require(again.state.value?.sessions.first)
        let stored = try await server.bundle.update(Session.self, id: renamed.id, inListsUnder: "list:") {
            $0.title = "Renamed elsewhere"
        }
        #expect(stored >= 1)
        let shown = await waitUntilObserved(upTo: .seconds(10)) {
            model.state.value?.sessions.first(where: { $0.id == renamed.id })?.title == "Renamed elsewhere"
                && again.state.value?.sessions.first?.title == "Renamed elsewhere"
        }
        #expect(shown, "both screens show the stored write")
    }

    @Test(
        "session detail: messages, a runner-less send keeps the draft and shows the server's sentence, rename, archive, live"
    )
    func sessionDetail() async throws {
        let server = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment())
        let session = try await OmnigentFixture.createSession(server.client, title: "detail")
        _ = try await server.client.send(try OmnigentAPI.appendUserMessage(session.id, text: "Question?"))
        _ = try await server.client.send(
            try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: "Answer."))
        let model = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        #expect(model.state.value?.messages.map(\.text) == ["Question?", "Answer."])
        await model.updateDraft("Hello there")
        await model.send()
        #expect(model.sendProblem?.contains("No runner bound for session") == true)
        #expect(model.draft == "Hello there", "a failed send keeps the person's text")
        let restored = SessionDetailModel(server: server, sessionID: session.id)
        await restored.restoreDraft()
        #expect(restored.draft == "Hello there", "the draft is in the store")
        await model.rename("Renamed by the model")
        #expect(model.actionProblem == nil)
        #expect(model.state.value?.session.title == "Renamed by the model")
        await model.setArchived(true)
        #expect(model.state.value?.session.archived == true)
        await model.setLabels(["team": "mobile"])
        #expect(model.state.value?.session.labels["team"] == "mobile")
        await model.markRead()
        #expect(model.actionProblem == nil)
        // Live: an item posted while following arrives on screen, as a store write: another screen of the session,
        // which follows nothing, shows it too.
        let other = SessionDetailModel(server: server, sessionID: session.id)
        await other.refresh()
        let text = "Live \(UUID().uuidString.prefix(6))"
        let client = server.client
        let id = session.id
        await model.followLive(limit: 1) {
            // The stream is open: post as another client would.
            _ = try? await client.send(try OmnigentAPI.appendAssistantMessage(id, agent: "debby", text: text))
        }
        let shown = await waitUntilObserved(upTo: .seconds(10)) {
            model.state.value?.messages.last?.text == text && other.state.value?.messages.last?.text == text
        }
        #expect(shown, "the live item is on both screens")
        #expect(model.state.value?.messages.last?.text == text)
        #expect(other.state.value?.messages.last?.text == text)
    }

    @Test("O-WATCH-6: an item that arrives live, after the stream's read on opening, joins the messages on screen")
    func aLiveItemJoinsTheMessagesAlreadyShown() async throws {
        let server = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment())
        let session = try await OmnigentFixture.createSession(server.client, title: "live after the read")
        _ = try await server.client.send(
            try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: "Shown before."))
        let model = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        let before = try #require(model.state.fetchedAt)
        let opened = Locked(false)
        let follower = Task { await model.followLive(limit: 1) { opened.withLock { $0 = true } } }
        // The stream opened and its read on opening is on screen: what comes now comes only by the stream.
        let read = await waitUntilObserved(upTo: .seconds(20)) {
            let read = model.state.fetchedAt.map { $0 > before } ?? false  // read first: observed either way
            return read && opened.withLock { $0 }
        }
        #expect(read, "the stream opened and the detail was read again")
        let text = "Live \(UUID().uuidString.prefix(6))"
        _ = try await server.client.send(try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: text))
        let bound = Expiry(after: .seconds(30)) { follower.cancel() }
        await follower.value
        #expect(!bound.isExpired, "the live item arrived")
        _ = await waitUntilObserved(upTo: .seconds(10)) { model.state.value?.messages.count == 2 }
        #expect(model.state.value?.messages.map(\.text) == ["Shown before.", text])
    }

    @Test("every write of the detail screen is a command sent once: no automatic retry, a fresh key each")
    func writesAreCommandsSentOnce() async throws {
        let transport = RecordingTransport()
        let environment = OmnigentFixture.environment(journal: journal, transport: transport)
        let server = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment)
        let session = try await OmnigentFixture.createSession(server.client, title: "commands")
        let model = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        await model.updateDraft("Once only")
        await model.send()
        await model.rename("Renamed once")
        await model.setArchived(true)
        let writes = transport.sent.filter { $0.method != "GET" && $0.path.hasPrefix("/v1/sessions/\(session.id)") }
        #expect(writes.map(\.method) == ["POST", "PATCH", "PATCH"], "each write went out exactly once")
        let keys = writes.compactMap { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 3 && Set(keys).count == 3, "each command has a key of its own")
        #expect(model.sendProblem?.contains("No runner bound for session") == true, "the 503 was not resent")
    }

    @Test("one store per server and account: a screen opened again through the environment sees the same draft")
    func oneStorePerAccountThroughTheRegistry() async throws {
        let environment = environment()
        let first = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment)
        let typing = SessionDetailModel(server: first, sessionID: "registry-draft")
        await typing.updateDraft("Half a sentence")
        let second = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment)
        let reopened = SessionDetailModel(server: second, sessionID: "registry-draft")
        await reopened.restoreDraft()
        #expect(reopened.draft == "Half a sentence", "the same account gets the same (in-memory) store")
    }

    @Test(
        "O-OPEN-20: a message posted while the stream is down appears once it (re)connects, without a refresh",
        .timeLimit(.minutes(1)))
    func itemsAreReadAgainOnConnect_OOPEN20() async throws {
        let server = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment())
        let session = try await OmnigentFixture.createSession(server.client, title: "reconnect")
        let model = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        #expect(model.state.value?.messages.isEmpty == true)
        // Posted while no stream is open: the server will never send it as an event.
        let text = "While down \(UUID().uuidString.prefix(6))"
        _ = try await server.client.send(
            try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: text))
        let follower = Task { await model.followLive() }
        defer { follower.cancel() }
        _ = await waitUntilObserved(upTo: .seconds(40)) { model.state.value?.messages.last?.text == text }
        #expect(model.state.value?.messages.last?.text == text)
    }

    @Test(
        "O-OPEN-20: a dropped stream reconnects after the sleeper's wait, and what was posted meanwhile is read again",
        .timeLimit(.minutes(1)))
    func aStreamThatDropsReconnectsAndReadsAgain_OOPEN20() async throws {
        // The network is down for the stream's first connection (the transport refuses it, as a dead link
        // would); while the app waits to reconnect, the message is posted; the reconnection reads it.
        let url = try TestServers.omnigent()
        let poster = TestClients.loopback(url)
        let session = try await OmnigentFixture.createSession(poster, title: "drop")
        let text = "During the drop \(UUID().uuidString.prefix(6))"
        // At the first wait to reconnect, the message is posted.
        let sleeper = RecordingSleeper { wait in
            guard wait == 1 else { return }
            _ = try? await poster.send(
                try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: text))
        }
        let transport = FirstStreamRefused()
        let environment = OmnigentFixture.environment(journal: journal, sleeper: sleeper, transport: transport)
        let server = try await OmnigentFixture.server(url, environment: environment)
        let model = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        #expect(model.state.value?.messages.isEmpty == true)
        let follower = Task { await model.followLive() }
        defer { follower.cancel() }
        let shown = await waitUntilObserved(upTo: .seconds(40)) { model.state.value?.messages.last?.text == text }
        #expect(shown, "the message posted during the drop is on screen")
        #expect(sleeper.delays == [.seconds(1)], "one wait of 1 s before the reconnection")
        #expect(transport.streamAttempts >= 2)
    }

    @Test("O-OPEN-20: reconnecting waits 1, 2, 4, 8, 16, 30, 30 s on the injected sleeper, then gives up and says so")
    func reconnectBackoff_OOPEN20() async throws {
        // Nothing listens at this address any more: every connection of the stream is refused at once.
        let gone = try #require(URL(string: "http://127.0.0.1:\(try ListeningSocket().port)"))
        let sleeper = RecordingSleeper()
        let environment = OmnigentFixture.environment(journal: journal, sleeper: sleeper)
        let manifest = try JSONDecoder().decode(
            Manifest.self, from: Data(#"{"manifest_version":1,"auth":{"mode":"header"}}"#.utf8))
        let connection = ServerConnection(
            address: try OmnigentFixture.address(gone), apiBase: gone, manifest: manifest)
        let server = try await OmnigentServer.open(
            connection, account: AccountKey(address: connection.address, userID: "local"), environment: environment)
        let model = SessionDetailModel(server: server, sessionID: "conv_gone")
        await model.followLive()
        #expect(sleeper.delays == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(model.actionProblem != nil, "the screen says the live stream stopped")
    }

    @Test("O-AUTH-3/5: accounts mode signs in with the kit and lists sessions")
    func accountsModeLists() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try OmnigentFixture.accountsPassword()
        let secrets = InMemorySecretStore()
        let environment = OmnigentFixture.environment(journal: journal, secrets: secrets)
        let connection = try await OmnigentFixture.connection(url, environment: environment)
        #expect(connection.needsSignIn)
        let signIn = SignInModel(policy: .allowingInsecureLoopback, store: secrets, journal: journal) { address in
            OmnigentAccountsSignIn(address: address, environment: environment)
        }
        await signIn.submitAddress(url.absoluteString)
        await signIn.submitPassword(username: user, password: password)
        guard case .signedIn(let account) = signIn.state else {
            Issue.record("sign-in failed: \(signIn.state)")
            return
        }
        let session = try environment.session(for: account)
        let server = try await OmnigentServer.open(
            connection, account: account, session: session, environment: environment)
        let model = SessionsListModel(server: server)
        await model.refresh()
        #expect(model.state.kind == .content || model.state.kind == .empty, "listed: \(model.state)")
        #expect(model.state.problem == nil)
        let text = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        #expect(!Redactor.text(text, contains: password))
    }

    @Test("O-ERR-2: a 401 keeps the screen's cached content and leads to sign-in by the auth mode")
    func aRefusedCredentialKeepsTheContent_OERR2() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let password = try OmnigentFixture.accountsPassword()
        let secrets = InMemorySecretStore()
        let environment = OmnigentFixture.environment(journal: journal, secrets: secrets)
        let connection = try await OmnigentFixture.connection(url, environment: environment)
        func signIn(_ user: String, _ password: String) async throws -> (AccountKey, CredentialSession) {
            let model = SignInModel(policy: .allowingInsecureLoopback, store: secrets, journal: environment.journal) {
                address in
                OmnigentAccountsSignIn(address: address, environment: environment)
            }
            await model.submitAddress(url.absoluteString)
            await model.submitPassword(username: user, password: password)
            guard case .signedIn(let account) = model.state else {
                throw AuthError.invalidStep("sign-in failed: \(model.state)")
            }
            return (account, try environment.session(for: account))
        }
        let (_, adminSession) = try await signIn(try TestServers.value("OMNIGENT_ACCOUNTS_USER"), password)
        let adminClient = environment.client(
            for: connection.apiBase, profile: OmnigentServer.profile,
            middlewares: [AuthenticationMiddleware(session: adminSession, rule: .omnigent)])
        let member = try await OmnigentAccountsTests.registerMember(adminClient: adminClient)
        let (account, session) = try await signIn(member.name, member.password)
        let server = try await OmnigentServer.open(
            connection, account: account, session: session, environment: environment)
        let created = try await OmnigentFixture.createSession(server.client, title: "kept after a 401")
        let list = SessionsListModel(server: server)
        await list.refresh()
        #expect(list.state.value?.sessions.map(\.id) == [created.id])
        let detail = SessionDetailModel(server: server, sessionID: created.id)
        await detail.refresh()
        #expect(detail.state.value?.session.title == "kept after a 401")

        // The administrator removes the account: the server now refuses the member's token with 401.
        _ = try await adminClient.send(Request<Void>.empty(.delete, "/auth/users/\(member.name)"))
        await list.refresh(policy: .fresh)
        await detail.refresh(policy: .fresh)
        guard case .stale(let page, _, let problem?) = list.state else {
            Issue.record("expected the cached list kept with the server's sentence, got \(list.state)")
            return
        }
        #expect(page.sessions.map(\.id) == [created.id])
        #expect(!problem.isEmpty)
        #expect(list.signInRequired == .accounts, "leads to sign-in by the server's auth mode (accounts)")
        #expect(detail.state.value?.session.title == "kept after a 401")
        #expect(detail.signInRequired == .accounts)
        guard case .signedOut = await session.status else {
            Issue.record("a 401 ends the credential: \(await session.status)")
            return
        }
    }

    @Test("O-ERR-2: a 401 on either read of the sessions screen (the list or the projects) leads to sign-in")
    func a401OnEitherReadOfTheListLeadsToSignIn() async throws {
        for refused in ["/v1/sessions", "/v1/sessions/projects"] {
            let environment = OmnigentFixture.environment(
                journal: journal, transport: RefusingRouteTransport(path: refused, status: 401))
            let server = try await OmnigentFixture.server(try TestServers.omnigent(), environment: environment)
            let list = SessionsListModel(server: server)
            await list.refresh()
            // Header mode: the route is the identity proxy's (no sign-in step of the app's own), but it is asked.
            #expect(list.signInRequired == .some(SignInRoute.none), "\(refused) refused")
            #expect(
                (list.state.value == nil) == (refused == "/v1/sessions"), "the other read shows: \(refused) refused")
        }
    }
}

/// The platform's transport, except that the first connection of a session stream is refused (the network
/// was down for it): every other request, and the stream's reconnection, reach the real server.
final class FirstStreamRefused: Transport {
    private let inner = DefaultTransport.make()
    private let attempts = Locked(0)

    var streamAttempts: Int { attempts.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        if request.url.path.hasSuffix("/stream") {
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            if attempt == 1 { throw .unreachable(host: request.url.host ?? "127.0.0.1", detail: "refused by the test") }
        }
        return try await inner.send(request)
    }
}

/// What the app shows once its server is gone: a server this suite owns is killed mid-test.
@Suite("Omnigent offline after the server is stopped", .serialized)
@MainActor
struct OfflineTests {
    @Test("the sessions list and a session's messages stay readable, marked offline with their age")
    func readableAfterTheServerStops() async throws {
        let own = try OwnOmnigent()
        let url = try await own.start()
        let folder = try TemporaryFolder()
        let environment = OmnigentFixture.environment(folder: folder, sleeper: RecordingSleeper())
        let server = try await OmnigentFixture.server(url, environment: environment)
        let agents = try await server.client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first)
        let session = try await server.client.send(
            try OmnigentAPI.createSession(agentID: agent.id, title: "Offline reading"))
        _ = try await server.client.send(
            try OmnigentAPI.appendAssistantMessage(session.id, agent: agent.name, text: "Kept offline."))

        let list = SessionsListModel(server: server)
        await list.refresh()
        let detail = SessionDetailModel(server: server, sessionID: session.id)
        await detail.refresh()
        #expect(detail.state.value?.messages.map(\.text) == ["Kept offline."])

        own.kill()

        await list.refresh()
        guard case .offline(let page, _, let reason) = list.state else {
            Issue.record("expected offline, got \(list.state)")
            return
        }
        #expect(page.sessions.contains { $0.id == session.id })
        #expect(reason.contains("Could not reach"))
        await detail.refresh()
        guard case .offline(let shown, _, _) = detail.state else {
            Issue.record("expected offline, got \(detail.state)")
            return
        }
        #expect(shown.messages.map(\.text) == ["Kept offline."])
        // A send while offline keeps the person's text and says why.
        await detail.updateDraft("Written offline")
        await detail.send()
        #expect(detail.draft == "Written offline")
        #expect(detail.sendProblem?.contains("Could not reach") == true)
    }
}

@Suite("Omnigent bridge wiring from server setup")
@MainActor
struct BridgeWiringTests {
    @Test("O-PICK-1: the picker lists presets, then recents without presets; O-NOTIF-4: taps emit their path")
    func pickerAndNotifications() throws {
        let preset = try ServerAddress(parsing: "https://preset.example.com", policy: .httpsOnly)
        let recent = try ServerAddress(parsing: "https://recent.example.com/omnigent", policy: .httpsOnly)
        let model = ServerSetupModel(
            recents: RecentServers([recent, preset]),
            environment: OmnigentFixture.environment(clock: ManualWallClock(), policy: .httpsOnly))
        model.applyManagedConfiguration(
            declarative: .dictionary(["serverUrls": .array([.string("preset.example.com")])]), classic: nil)
        #expect(model.presets == [preset])
        #expect(model.listedRecents == [recent])
        #expect(model.bridge() == nil, "no bridge before a server is current")
        #expect(model.pageDidLoad(recent) == nil)
        let bridge = try #require(model.bridge())
        #expect(bridge.pickerInfo["managedServers"] == .array([.string("https://preset.example.com")]))
        #expect(bridge.pickerInfo["recentServers"] == .array([.string("https://recent.example.com/omnigent")]))
        #expect(model.notificationTapped(path: "/c/abc") == .notificationActivated(path: "/c/abc"))
        #expect(model.notificationTapped(path: nil) == nil)
    }

    @Test("The page's picker switches to a development build's LAN http:// recent it offered")
    func pickerSwitchesToADevelopmentLANRecent() throws {
        let lan = try ServerAddress(parsing: "http://studio.local:6767", policy: .development)
        let model = ServerSetupModel(
            recents: RecentServers([lan]),
            environment: OmnigentFixture.environment(clock: ManualWallClock(), policy: .development))
        _ = model.pageDidLoad(lan)
        var bridge = try #require(model.bridge())
        let source = BridgeSource(isMainFrame: true, frameOrigin: lan.origin, pageURL: lan.description + "/")
        #expect(
            bridge.receive(.object(["method": "switchServer", "url": "http://studio.local:6767/"]), from: source)
                == [.switchServer(lan)])
    }
}
