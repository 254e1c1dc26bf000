import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// The system browser for Omnigent's ticket flow, headless: `curl` follows `/auth/login?ticket=…` to the
/// real provider, answers its form, brings the session back to Omnigent's callback (which sends it on to
/// the consent page), and later approves or denies the ticket the way the consent page's buttons post.
/// Records every URL it was asked to open.
final class TicketBrowser: BrowserOpener {
    let subject: String
    let provider: URL
    let server: URL
    let jar: URL
    /// Whether `open` runs the provider's sign-in at all (false: the person never finishes it).
    let signsIn: Bool
    private let state = Locked<(opened: [URL], ticket: String?)>(([], nil))

    init(subject: String, provider: URL, server: URL, signsIn: Bool = true) {
        self.subject = subject
        self.provider = provider
        self.server = server
        self.signsIn = signsIn
        jar = FileManager.default.temporaryDirectory.appendingPathComponent("companion-ticket-\(UUID().uuidString)")
    }

    deinit { try? FileManager.default.removeItem(at: jar) }

    var opened: [URL] { state.withLock { $0.opened } }

    /// `curl` without following redirects; returns where the answer points (or the status with `status`).
    func curl(_ arguments: [String], write: String = "%{redirect_url}") async throws -> String {
        let result = try await ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "-o", "/dev/null", "-w", write, "-b", jar.path, "-c", jar.path] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], limit: .seconds(20))
        guard result.status == 0 else { throw OwnServerError(description: "curl exited \(result.status)") }
        return result.output
    }

    func open(_ url: URL) async throws(AuthError) {
        let ticket = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "ticket" }?
            .value
        state.withLock {
            $0.opened.append(url)
            $0.ticket = ticket
        }
        guard signsIn else { return }
        do {
            let toCallback = try await signInAtProvider(url, subject: subject, provider: provider) {
                try await curl($0)
            }
            let toConsent = try await curl([toCallback])
            guard toConsent.contains("/auth/cli-consent") else {
                throw OwnServerError(description: "the callback did not lead to the consent page: \(toConsent)")
            }
        } catch {
            throw .unexpectedReply("the headless browser failed: \(error)")
        }
    }

    /// Presses Approve (`approve: true`) or Deny on the consent page; returns the HTTP status.
    @discardableResult
    func answer(approve: Bool) async throws -> String {
        let ticket = state.withLock { $0.ticket } ?? ""
        let origin = "\(server.scheme ?? "http")://\(server.host ?? "127.0.0.1"):\(server.port ?? 80)"
        return try await curl(
            [
                "-X", "POST", "-H", "Origin: \(origin)", "-d", "ticket=\(ticket)",
                server.appendingPathComponent(approve ? "auth/cli-approve" : "auth/cli-deny").absoluteString,
            ], write: "%{http_code}")
    }
}

/// A sleeper that records each delay, moves the clock by it, and presses the consent page's button at the
/// `at`-th wait: the person finishes in the browser while the app polls.
func consentingSleeper(clock: ManualWallClock, browser: TicketBrowser, at: Int, approve: Bool) -> RecordingSleeper {
    RecordingSleeper(advancing: clock) { wait in
        if wait == at { try await browser.answer(approve: approve) }
    }
}

/// Opens nothing and records what it was asked to open.
final class RecordingOpener: BrowserOpener {
    private let log = Locked<[URL]>([])
    var opened: [URL] { log.withLock { $0 } }
    func open(_ url: URL) async throws(AuthError) { log.withLock { $0.append(url) } }
}

/// Omnigent 0.19.1 in OIDC mode against the real provider: the ticket flow (O-AUTH-8, O-AUTH-9) and
/// sign-out after the native PKCE sign-in (O-AUTH-14).
@Suite("Omnigent ticket sign-in and OIDC sign-out", .serialized)
struct TicketSignInTests {
    let url: URL
    let provider: URL
    let journal = Journal()

    init() throws {
        (url, provider) = try omnigentOIDCServers()
    }

    func address() throws -> ServerAddress {
        try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback)
    }

    func environment(clock: any WallClock = ManualWallClock(), sleeper: any Sleeper = RecordingSleeper())
        -> AppEnvironment
    {
        OmnigentFixture.environment(journal: journal, clock: clock, sleeper: sleeper)
    }

    func ticketSignIn(clock: any WallClock, sleeper: any Sleeper, base: URL? = nil) throws -> OmnigentTicketSignIn {
        let address = try base.map(OmnigentFixture.address) ?? self.address()
        return OmnigentTicketSignIn(address: address, environment: environment(clock: clock, sleeper: sleeper))
    }

    /// The kit's flow with Omnigent's settings, started and polled at the fault server's ticket routes.
    func faultFlow(_ query: [String: String], opener: any BrowserOpener) throws -> TicketPollFlow {
        var flow = try ticketSignIn(
            clock: ManualWallClock(), sleeper: RecordingSleeper(), base: try TestServers.fault()
        )
        .flow(opener: opener)
        var start = URLComponents()
        start.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        flow.startPath = "/ticket-start?\(start.percentEncodedQuery ?? "")"
        flow.pollPath = "/ticket-poll"
        return flow
    }

    var polls: Int { journal.events.filter { $0.kind == .request && $0.message.contains("/ticket-poll") }.count }

    /// Ported from the real app's `OidcLoginManagerTests.testTicketAcceptsRootedSameOriginLoginPath`.
    @Test("O-AUTH-8: a rooted login path opens on the server's own origin; a JWT-shaped token is the session")
    func rootedLoginPathAndAJWTToken() async throws {
        let opener = RecordingOpener()
        let ticket = "abc-\(UUID().uuidString.prefix(8))"
        let flow = try faultFlow(
            ["ticket": ticket, "login_url": "/auth/login?ticket=\(ticket)", "token": "aaa.bbb.ccc"], opener: opener)
        let (token, _) = try await flow.run()
        #expect(token == "aaa.bbb.ccc")
        let fault = try TestServers.fault()
        #expect(opener.opened.map(\.absoluteString) == [fault.absoluteString + "/auth/login?ticket=\(ticket)"])
    }

    /// Ported from `OidcLoginManagerTests.testTokenRejectsCookieInjectionCharacters`, with the shapes issue 27
    /// names: a token that is not JWT-shaped is refused, so it is never stored, made into a cookie or sent.
    @Test(
        "A poll that hands out a token that is not JWT-shaped is refused: nothing is returned",
        arguments: ["aaa.bbb.ccc; Domain=evil.example", "aaa.bbb", "a.b.c.d", "not-a-jwt", ""])
    func nonJWTTokensAreRefused(_ token: String) async throws {
        let ticket = "t-\(UUID().uuidString.prefix(8))"
        let flow = try faultFlow(["ticket": ticket, "token": token], opener: RecordingOpener())
        let error = await #expect(throws: AuthError.self) { _ = try await flow.run() }
        #expect(error?.description.contains("not in the expected form") == true, "\(String(describing: error))")
        #expect(polls == 1, "the one poll that answered")
    }

    @Test("An empty ticket aborts before any browser opens or any poll is made")
    func emptyTicketAborts() async throws {
        let opener = RecordingOpener()
        let flow = try faultFlow(["ticket": "", "token": "aaa.bbb.ccc"], opener: opener)
        let error = await #expect(throws: AuthError.self) { _ = try await flow.run() }
        #expect(error?.description.contains("ticket") == true)
        #expect(opener.opened.isEmpty, "no browser")
        #expect(polls == 0, "no poll")
    }

    func subject() -> String { "ticket-\(UUID().uuidString.prefix(6).lowercased())@example.com" }

    @Test(
        "O-AUTH-8/9: POST /auth/cli-login opens the server's own login page; polls every 2 s: 202 waits, 200 signs in")
    func ticketFlowSignsIn() async throws {
        let clock = ManualWallClock()
        let subject = subject()
        let browser = TicketBrowser(subject: subject, provider: provider, server: url)
        // The person approves in the browser while the app waits for its third poll.
        let sleeper = consentingSleeper(clock: clock, browser: browser, at: 2, approve: true)
        let signIn = try ticketSignIn(clock: clock, sleeper: sleeper)
        let session = try await signIn.signIn(opener: browser)
        #expect(session.source == .ticket)
        #expect(session.userID == subject)
        // O-AUTH-8: the page opened is the server's own `/auth/login` for this ticket, same origin.
        let opened = try #require(browser.opened.first)
        #expect(browser.opened.count == 1)
        #expect(opened.path == "/auth/login" && opened.host == url.host && opened.port == url.port)
        #expect(
            URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems?.contains { $0.name == "ticket" }
                == true)
        // O-AUTH-9: two pending polls (202) two seconds apart, then the token (200).
        #expect(sleeper.delays == [.seconds(2), .seconds(2)])
        let polls = journal.events.filter { $0.kind == .response && $0.message.contains("/auth/cli-poll") }
        #expect(polls.map { $0.fields["status"] } == ["202", "202", "200"])
        // The token is a session the server accepts, installed as the web view's cookie (8 h from the server).
        #expect(session.cookie.name == "ap_session")
        #expect(abs(session.cookie.expiresAt.timeIntervalSince(clock.now()) - 28_800) < 1)
        #expect(
            try await OmnigentOIDCSignIn(address: signIn.address, client: signIn.client).acceptedUser(
                session.cookie.value) == subject)
        #expect(TokenShape.jwt.accepts(session.cookie.value), "0.19.1's token is JWT-shaped")
        expectNoSecrets([session.cookie.value], journal: journal)
    }

    @Test("O-AUTH-9: a ticket denied in the browser answers 410, and polling stops as expired at once")
    func deniedTicketStopsAsExpired() async throws {
        let clock = ManualWallClock()
        let browser = TicketBrowser(subject: subject(), provider: provider, server: url)
        let sleeper = consentingSleeper(clock: clock, browser: browser, at: 1, approve: false)
        let signIn = try ticketSignIn(clock: clock, sleeper: sleeper)
        let error = await #expect(throws: AuthError.self) { _ = try await signIn.signIn(opener: browser) }
        guard case .ticketExpired(let reason)? = error else {
            Issue.record("expected ticketExpired, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Login request was denied in the browser"), "the server's reason is kept")
        #expect(sleeper.delays == [.seconds(2)], "no poll after the 410")
    }

    @Test("O-AUTH-9: nobody finishes in the browser → 150 polls every 2 s, then it stops as timed out after 5 minutes")
    func ticketFlowTimesOutAfterFiveMinutes() async throws {
        let clock = ManualWallClock()
        let start = clock.now()
        let sleeper = RecordingSleeper(advancing: clock)
        let signIn = try ticketSignIn(clock: clock, sleeper: sleeper)
        let opener = RecordingOpener()
        let error = await #expect(throws: AuthError.self) { _ = try await signIn.signIn(opener: opener) }
        guard case .ticketExpired(let reason)? = error else {
            Issue.record("expected ticketExpired, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("5 minutes"))
        #expect(opener.opened.count == 1)
        #expect(sleeper.delays.count == 150 && sleeper.delays.allSatisfy { $0 == .seconds(2) })
        #expect(clock.now().timeIntervalSince(start) == 300)
        // Every poll reached the real server and was answered "pending".
        let polls = journal.events.filter { $0.kind == .response && $0.message.contains("/auth/cli-poll") }
        #expect(polls.count == 151 && polls.allSatisfy { $0.fields["status"] == "202" })
    }

    @Test(
        "O-AUTH-8: a login_url that is not a same-origin relative path aborts before any browser opens",
        arguments: ["https://evil.example/auth/login", "//evil.example/auth/login", "FAULT/auth/login", "auth/login"])
    func foreignLoginPageAborts(_ loginURL: String) async throws {
        // The fault server answers the start call with the login page it is told to.
        let fault = try TestServers.fault()
        let given = loginURL.replacingOccurrences(of: "FAULT", with: fault.absoluteString)
        let signIn = try ticketSignIn(clock: ManualWallClock(), sleeper: RecordingSleeper(), base: fault)
        let opener = RecordingOpener()
        var flow = signIn.flow(opener: opener)
        #expect(flow.tokenShape == .jwt)
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "login_url", value: given)]
        flow.startPath = "/ticket-start?\(query.percentEncodedQuery ?? "")"
        let error = await #expect(throws: AuthError.self) { _ = try await flow.run() }
        #expect(error?.description.contains("not on this server") == true)
        #expect(opener.opened.isEmpty, "no browser opened")
        #expect(!journal.events.contains { $0.message.contains("/auth/cli-poll") }, "no poll")
    }

    @Test("O-AUTH-14: sign-out after PKCE revokes the grant at /oauth/revoke, deletes the secret, clears the cookie")
    func signOutAfterPKCE() async throws {
        let address = try address()
        let flow = OmnigentOIDCSignIn(address: address, environment: environment())
        let subject = subject()
        let signedOut = try await flow.signIn(
            storedToken: nil, storedGrant: nil, browser: HeadlessBrowser(subject: subject, provider: provider))
        let kept = try await flow.signIn(
            storedToken: nil, storedGrant: nil, browser: HeadlessBrowser(subject: subject, provider: provider))
        let grant = try #require(signedOut.refreshToken)
        let otherGrant = try #require(kept.refreshToken)
        // The grant is kept in the secret store, as the Keychain would keep it.
        let folder = try TemporaryFolder(prefix: "omnigent-signout")
        let secrets = FileSecretStore(folder: folder.url)
        let account = AccountKey(address: address, userID: subject)
        try secrets.save(
            StoredCredential(
                account: account, address: address,
                credential: .bearer(accessToken: signedOut.cookie.value, refreshToken: grant, expiresAt: nil),
                storedAt: Date()))

        let outcome = await flow.signOut(grant: grant, account: account, secrets: secrets)
        #expect(outcome.revoked && outcome.problem == nil)
        #expect(
            journal.events.contains {
                $0.kind == .request && $0.message.hasPrefix("POST \(address.origin)/")
                    && $0.message.hasSuffix("/oauth/revoke")
            })
        // The grant is gone on the server: it no longer renews; another sign-in's grant still does.
        #expect(try await flow.renew(grant) == nil)
        #expect(try await flow.renew(otherGrant)?.source == .refreshed)
        // The secret is deleted; the cookie is replaced by an empty, long-expired one of the same name.
        #expect(try secrets.load(account) == nil)
        #expect(outcome.clearedCookie.name == "ap_session" && outcome.clearedCookie.value.isEmpty)
        #expect(outcome.clearedCookie.expiresAt < Date() && outcome.clearedCookie.path == "/")
        expectNoSecrets([grant, otherGrant, signedOut.cookie.value], journal: journal)
    }

    @Test("O-AUTH-14: a revoke that fails is reported, and the app is signed out locally all the same")
    func signOutGoesOnWhenTheRevokeFails() async throws {
        // Nothing listens at this address any more.
        let gone = try ServerAddress(
            parsing: "http://127.0.0.1:\(try ListeningSocket().port)", policy: .allowingInsecureLoopback)
        let flow = OmnigentOIDCSignIn(address: gone, environment: environment())
        let secrets = InMemorySecretStore()
        let account = AccountKey(address: gone, userID: "someone")
        try secrets.save(
            StoredCredential(
                account: account, address: gone,
                credential: .bearer(accessToken: "access-value", refreshToken: "grant-value", expiresAt: nil),
                storedAt: Date()))
        let outcome = await flow.signOut(grant: "grant-value", account: account, secrets: secrets)
        #expect(!outcome.revoked)
        #expect(outcome.problem?.contains("revoke") == true)
        #expect(secrets.load(account) == nil)
        #expect(outcome.clearedCookie.value.isEmpty)
    }
}
