import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionLinks
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

    func connection(_ url: URL) async throws -> ServerConnection {
        let address = try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback)
        return try await OmnigentConnector.connect(address, policy: .allowingInsecureLoopback, journal: journal)
    }

    func server(_ url: URL, folder: URL? = nil) async throws -> OmnigentServer {
        let connection = try await connection(url)
        let client = OmnigentServer.client(for: connection, policy: .allowingInsecureLoopback, journal: journal)
        let account = try await OmnigentConnector.account(of: connection, client: client)
        let stores = StoreRegistry(location: .directory(folder ?? Self.temporaryFolder()))
        return try await OmnigentServer.open(connection, account: account, client: client, stores: stores)
    }

    static func temporaryFolder() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("omnigent-app-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func createSession(_ server: OmnigentServer, title: String) async throws -> Session {
        let agents = try await server.client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first(where: { $0.name == "debby" }) ?? agents.data.first)
        return try await server.client.send(try OmnigentAPI.createSession(agentID: agent.id, title: title))
    }

    @Test("O-AUTH-1/2: header mode on loopback connects with no sign-in step")
    func headerModeConnects() async throws {
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
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
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
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
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
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

    @Test("O-ROUTE-4/5/6: a link to an unknown server asks first and makes no request before consent")
    func unknownServerLinkMakesNoRequestBeforeConsent() async throws {
        // A port nothing else uses: any connection to it comes from this test's model.
        let unknown = try ListeningSocket()
        let model = ServerSetupModel(policy: .allowingInsecureLoopback, journal: journal)
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
        // Cancel is doing nothing: still no connection, nothing stored.
        #expect(!unknown.hasPendingConnection)
        #expect(model.listedRecents.isEmpty)
        // Open: the app connects (the socket never answers, so the attempt times out quickly here).
        let connecting = Task { await model.consent(to: request) }
        let connected = await Task.detached { unknown.waitForConnection(seconds: 20) }.value
        connecting.cancel()
        _ = await connecting.value
        #expect(connected, "after Open the app connects")
        #expect(model.listedRecents.isEmpty, "a server joins recents only after its page loads")
    }

    @Test("O-MOUNT-4: a `server: databricks` root maps the address to the mount")
    func mountDiscovery() async throws {
        // The root of an origin of its own that answers as a workspace (after a same-origin redirect): the second
        // origin's root is O-MOUNT-2's, which counts the requests it gets.
        let root = try TestServers.faultRootSameOrigin()
        let discovered = await WorkspaceDiscovery.discover(root, journal: journal, requiringHTTPS: false)
        #expect(discovered.path == "/omnigent")
        #expect(
            await WorkspaceDiscovery.discover(try TestServers.fault(), journal: journal, requiringHTTPS: false).path
                == "")
    }

    @Test("O-PICK-3/4: the picker switches only to an offered server")
    func pickerSwitchesOnlyToOfferedServers() async throws {
        let url = try TestServers.omnigent()
        let address = try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback)
        let model = ServerSetupModel(
            recents: RecentServers([address]), policy: .allowingInsecureLoopback, journal: journal)
        #expect(
            await model.switchServer(to: "https://not-offered.example")
                == "That server is no longer available. Choose another one, or set it up again.")
        #expect(model.phase == .idle)
        #expect(await model.switchServer(to: url.absoluteString) == nil)
        guard case .connected = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
    }

    @Test("sessions list: stale-while-revalidate, grouped, paged")
    func sessionsList() async throws {
        let folder = Self.temporaryFolder()
        let server = try await server(try TestServers.omnigent(), folder: folder)
        let tag = "list-\(UUID().uuidString.prefix(6))"
        for index in 0..<3 { _ = try await createSession(server, title: "\(tag) \(index)") }
        let model = SessionsListModel(server: server, pageSize: 2)
        model.search = tag
        await model.refresh()
        guard case .content(let page, _) = model.state else {
            Issue.record("expected content, got \(model.state)")
            return
        }
        #expect(page.sessions.count == 2)
        #expect(page.hasMore)
        await model.loadMore()
        #expect(model.state.value?.sessions.count == 3)
        #expect(Set(model.state.value?.sessions.map(\.id) ?? []).count == 3)
        // A second screen on the same store shows the cached list first, marked with its age, then the fresh one.
        let again = SessionsListModel(server: server, pageSize: 2)
        again.search = tag
        var seen: [String] = []
        let stream = server.fetcher.load(OmnigentAPI.sessions(limit: 2, search: tag), policy: .staleWhileRevalidate)
        for try await loaded in stream { seen.append(loaded.origin.rawValue) }
        #expect(seen.first == "cache")
        #expect(seen.count == 2)
        await again.refresh()
        guard case .content = again.state else {
            Issue.record("expected content, got \(again.state)")
            return
        }
    }

    @Test(
        "session detail: messages, a runner-less send keeps the draft and shows the server's sentence, rename, archive, live"
    )
    func sessionDetail() async throws {
        let server = try await server(try TestServers.omnigent())
        let session = try await createSession(server, title: "detail")
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
        // Live: an item posted while following arrives on screen.
        let text = "Live \(UUID().uuidString.prefix(6))"
        let client = server.client
        let id = session.id
        await model.followLive(limit: 1) {
            // The stream is open: post as another client would.
            _ = try? await client.send(try OmnigentAPI.appendAssistantMessage(id, agent: "debby", text: text))
        }
        #expect(model.state.value?.messages.last?.text == text)
    }

    @Test("one store per server and account: a screen opened again through the registry sees the same draft")
    func oneStorePerAccountThroughTheRegistry() async throws {
        let url = try TestServers.omnigent()
        let connection = try await connection(url)
        let client = OmnigentServer.client(for: connection, policy: .allowingInsecureLoopback, journal: journal)
        let account = try await OmnigentConnector.account(of: connection, client: client)
        let stores = StoreRegistry(location: .memory)
        let first = try await OmnigentServer.open(connection, account: account, client: client, stores: stores)
        let typing = SessionDetailModel(server: first, sessionID: "registry-draft")
        await typing.updateDraft("Half a sentence")
        let second = try await OmnigentServer.open(connection, account: account, client: client, stores: stores)
        let reopened = SessionDetailModel(server: second, sessionID: "registry-draft")
        await reopened.restoreDraft()
        #expect(reopened.draft == "Half a sentence", "the same account gets the same (in-memory) store")
    }

    @Test(
        "O-OPEN-20: a message posted while the stream is down appears once it (re)connects, without a refresh",
        .timeLimit(.minutes(1)))
    func itemsAreReadAgainOnConnect_OOPEN20() async throws {
        let server = try await server(try TestServers.omnigent())
        let session = try await createSession(server, title: "reconnect")
        let model = SessionDetailModel(server: server, sessionID: session.id)
        await model.refresh()
        #expect(model.state.value?.messages.isEmpty == true)
        // Posted while no stream is open: the server will never send it as an event.
        let text = "While down \(UUID().uuidString.prefix(6))"
        _ = try await server.client.send(
            try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: text))
        let follower = Task { await model.followLive() }
        defer { follower.cancel() }
        await waitUntilObserved { model.state.value?.messages.last?.text == text }
        #expect(model.state.value?.messages.last?.text == text)
    }

    @Test("O-AUTH-3/5: accounts mode signs in with the kit and lists sessions")
    func accountsModeLists() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try String(
            contentsOfFile: TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let connection = try await connection(url)
        #expect(connection.needsSignIn)
        let secrets = InMemorySecretStore()
        let journal = self.journal
        let signIn = SignInModel(policy: .allowingInsecureLoopback, store: secrets, journal: journal) { address in
            OmnigentAccountsSignIn(
                address: address,
                client: Client(
                    baseURL: address.url,
                    configuration: .init(transportPolicy: .allowingInsecureLoopback, journal: journal)))
        }
        await signIn.submitAddress(url.absoluteString)
        await signIn.submitPassword(username: user, password: password)
        guard case .signedIn(let account) = signIn.state, let stored = secrets.load(account) else {
            Issue.record("sign-in failed: \(signIn.state)")
            return
        }
        let session = CredentialSession(stored: stored, store: secrets, journal: journal)
        let client = OmnigentServer.client(
            for: connection, session: session, policy: .allowingInsecureLoopback, journal: journal)
        let server = try await OmnigentServer.open(
            connection, account: account, client: client,
            stores: StoreRegistry(location: .directory(Self.temporaryFolder())))
        let model = SessionsListModel(server: server)
        await model.refresh()
        guard case .content = model.state else {
            Issue.record("expected content, got \(model.state)")
            return
        }
        let text = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        #expect(!Redactor.text(text, contains: password))
    }

    @Test("O-ERR-2: a 401 keeps the screen's cached content and leads to sign-in by the auth mode")
    func aRefusedCredentialKeepsTheContent_OERR2() async throws {
        let url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let password = try String(
            contentsOfFile: TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let journal = self.journal
        let connection = try await connection(url)
        let secrets = InMemorySecretStore()
        func signIn(_ user: String, _ password: String) async throws -> (AccountKey, CredentialSession) {
            let model = SignInModel(policy: .allowingInsecureLoopback, store: secrets, journal: journal) { address in
                OmnigentAccountsSignIn(
                    address: address,
                    client: Client(
                        baseURL: address.url,
                        configuration: .init(transportPolicy: .allowingInsecureLoopback, journal: journal)))
            }
            await model.submitAddress(url.absoluteString)
            await model.submitPassword(username: user, password: password)
            guard case .signedIn(let account) = model.state, let stored = secrets.load(account) else {
                throw AuthError.invalidStep("sign-in failed: \(model.state)")
            }
            return (account, CredentialSession(stored: stored, store: secrets, journal: journal))
        }
        let (_, adminSession) = try await signIn(try TestServers.value("OMNIGENT_ACCOUNTS_USER"), password)
        let adminClient = OmnigentServer.client(
            for: connection, session: adminSession, policy: .allowingInsecureLoopback, journal: journal)
        let member = try await OmnigentAccountsTests.registerMember(adminClient: adminClient)
        let (account, session) = try await signIn(member.name, member.password)
        let client = OmnigentServer.client(
            for: connection, session: session, policy: .allowingInsecureLoopback, journal: journal)
        let server = try await OmnigentServer.open(
            connection, account: account, client: client,
            stores: StoreRegistry(location: .directory(Self.temporaryFolder())))
        let created = try await createSession(server, title: "kept after a 401")
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
}

/// What the app shows once its server is gone: a server this suite owns is killed mid-test.
@Suite("Omnigent offline after the server is stopped", .serialized)
@MainActor
struct OfflineTests {
    @Test("the sessions list and a session's messages stay readable, marked offline with their age")
    func readableAfterTheServerStops() async throws {
        let own = try OwnOmnigent()
        let url = try await own.start()
        let journal = Journal()
        let address = try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback)
        let connection = try await OmnigentConnector.connect(
            address, policy: .allowingInsecureLoopback, journal: journal)
        let client = OmnigentServer.client(
            for: connection, policy: .allowingInsecureLoopback, journal: journal, sleeper: RecordingSleeper())
        let account = try await OmnigentConnector.account(of: connection, client: client)
        let server = try await OmnigentServer.open(
            connection, account: account, client: client,
            stores: StoreRegistry(location: .directory(AppModelTests.temporaryFolder())))
        let agents = try await client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first)
        let session = try await client.send(try OmnigentAPI.createSession(agentID: agent.id, title: "Offline reading"))
        _ = try await client.send(
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
        let model = ServerSetupModel(recents: RecentServers([recent, preset]), journal: Journal())
        model.applyManagedConfiguration(
            declarative: .dictionary(["serverUrls": .array([.string("preset.example.com")])]), classic: nil)
        #expect(model.presets == [preset])
        #expect(model.listedRecents == [recent])
        #expect(model.bridge() == nil, "no bridge before a server is current")
        #expect(model.pageDidLoad(recent) == nil)
        let bridge = try #require(model.bridge(clock: ManualWallClock()))
        #expect(bridge.pickerInfo["managedServers"] == .array([.string("https://preset.example.com")]))
        #expect(bridge.pickerInfo["recentServers"] == .array([.string("https://recent.example.com/omnigent")]))
        #expect(model.notificationTapped(path: "/c/abc") == .notificationActivated(path: "/c/abc"))
        #expect(model.notificationTapped(path: nil) == nil)
    }
}
