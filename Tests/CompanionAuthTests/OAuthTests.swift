import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

extension CertainServer {
    /// OAuth 2.0 code + PKCE, single-flight refresh with rotation, revocation and the ticket poll, against
    /// the Certain stand-in's OAuth routes (which count refreshes).
    @Suite struct OAuthTests {
        let control: CertainControl
        let journal = Journal()
        let address: ServerAddress

        init() async throws {
            control = try await CertainControl()
            try await control.reset()
            address = try SignInFixture.address(control.url)
        }

        func oauth(hint: String = "plain", extra: [String: String] = [:]) -> OAuthClient {
            OAuthClient(
                address: address, client: SignInFixture.client(control.url, journal: journal),
                configuration: OAuthConfiguration(
                    clientID: "companion-test", redirectURI: "companionkit-test:/oauth/callback",
                    extraParameters: ["login_hint": hint].merging(extra) { $1 }))
        }

        @Test("RFC 7636 Appendix B") func pkceChallengeMatchesTheRFCVector() throws {
            let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
            #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
            let fresh = try PKCE.generate()
            #expect(fresh.verifier.count == 43)
            #expect(fresh != (try PKCE.generate()))
        }

        func signedIn(_ oauth: OAuthClient) async throws -> StoredCredential {
            let tokens = try await oauth.signIn(browser: CurlBrowser())
            let sub = try #require(tokens.idClaims?["sub"]?.stringValue)
            return StoredCredential(
                account: AccountKey(address: address, userID: sub), address: address,
                credential: .bearer(
                    accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt),
                storedAt: Date())
        }

        @Test func codeWithPKCEExchangesForTokensThatWork() async throws {
            let oauth = oauth()
            let stored = try await signedIn(oauth)
            let session = CredentialSession(stored: stored, store: InMemorySecretStore(), journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal, middlewares: [AuthenticationMiddleware(session: session)])
            #expect(try await client.send(Request<JSONValue>.get("/api/auth/me"))["username"]?.stringValue == "plain")
            expectNoSecrets(stored.credential.secretValues, journal: journal)
        }

        @Test func aCallbackWithAnotherStateIsRejected() async throws {
            let error = await #expect(throws: AuthError.self) {
                _ = try await oauth(extra: ["tamper_state": "1"]).signIn(browser: CurlBrowser())
            }
            guard case .callbackRejected(let reason)? = error else {
                Issue.record("expected callbackRejected, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("state"))
        }

        @Test func anIDTokenWithAnotherNonceIsRejected() async throws {
            let browser = CurlBrowser(rewrite: { replacing("nonce", with: "attacker-nonce", in: $0) })
            let error = await #expect(throws: AuthError.self) { _ = try await oauth().signIn(browser: browser) }
            guard case .callbackRejected(let reason)? = error else {
                Issue.record("expected callbackRejected, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("nonce"))
        }

        @Test func aCodeExchangedWithAnotherVerifierIsRefused() async throws {
            let oauth = oauth()
            let first = try oauth.begin()
            let second = try oauth.begin()
            let callback = try await CurlBrowser().authorize(first.url, callbackScheme: "companionkit-test")
            let code = try oauth.code(fromCallback: callback, for: first)
            await #expect(throws: AuthError.self) { _ = try await oauth.exchange(code: code, for: second) }
        }

        @Test func callbackParsingRefusesErrorsForeignAddressesAndMissingCodes() throws {
            let oauth = oauth()
            let request = try oauth.begin()
            let denied = try #require(
                URL(string: "companionkit-test:/oauth/callback?error=access_denied&state=\(request.state)"))
            #expect(throws: AuthError.cancelled) { _ = try oauth.code(fromCallback: denied, for: request) }
            let foreign = try #require(URL(string: "https://evil.example/oauth/callback?code=x&state=\(request.state)"))
            #expect(throws: AuthError.self) { _ = try oauth.code(fromCallback: foreign, for: request) }
            let empty = try #require(URL(string: "companionkit-test:/oauth/callback?state=\(request.state)"))
            #expect(throws: AuthError.self) { _ = try oauth.code(fromCallback: empty, for: request) }
            let good = try #require(URL(string: "companionkit-test:/oauth/callback?code=abc&state=\(request.state)"))
            #expect(try oauth.code(fromCallback: good, for: request) == "abc")
        }

        @Test func twentyConcurrent401sCauseExactlyOneRefreshAndTheRotatedTokenIsStoredFirst() async throws {
            let oauth = oauth()
            let stored = try await signedIn(oauth)
            let store = InMemorySecretStore()
            let session = CredentialSession(
                stored: stored, store: store, refresher: OAuthRefresher(oauth: oauth), journal: journal)
            try await session.use(stored)
            let client = SignInFixture.client(
                control.url, journal: journal, middlewares: [AuthenticationMiddleware(session: session)])
            try await control.post("/_control/oauth", ["expire_access": .bool(true)])
            let names = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await client.send(Request<JSONValue>.get("/api/auth/me"))["username"]?.stringValue
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(names.count == 20)
            #expect(names.allSatisfy { $0 == "plain" })
            #expect(try await control.counters()["refresh"]?.intValue == 1)
            #expect(await session.refreshCount == 1)
            let current = try #require(await session.credential)
            #expect(current.credential.refreshToken != stored.credential.refreshToken)
            #expect(store.load(stored.account) == current)
            expectNoSecrets(stored.credential.secretValues + current.credential.secretValues, journal: journal)
        }

        @Test func aRotatedTokenThatCannotBeStoredIsNeverUsed() async throws {
            let oauth = oauth()
            let stored = try await signedIn(oauth)
            let store = RefusingStore()
            let session = CredentialSession(
                stored: stored, store: store, refresher: OAuthRefresher(oauth: oauth), journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal, middlewares: [AuthenticationMiddleware(session: session)])
            try await control.post("/_control/oauth", ["expire_access": .bool(true)])
            await #expect(throws: HTTPError.self) { try await client.send(Request<JSONValue>.get("/api/auth/me")) }
            #expect(try await control.counters()["refresh"]?.intValue == 1)
            guard case .signedOut(_, .refreshFailed?) = await session.status else {
                Issue.record("expected signed out, got \(await session.status)")
                return
            }
            // Only the first request reached /api/auth/me: the renewed token was never sent.
            let reads = try await control.requests().filter { $0["path"]?.stringValue == "/api/auth/me" }
            #expect(reads.count == 1)
        }

        @Test func statusUpdatesReportSignInAndSignOut() async throws {
            let stored = try await signedIn(oauth())
            let session = CredentialSession(stored: nil, store: InMemorySecretStore(), journal: journal)
            var updates = await session.statusUpdates().makeAsyncIterator()
            #expect(await updates.next() == .signedOut(account: nil, reason: nil))
            try await session.use(stored)
            #expect(await updates.next() == .signedIn(stored.account))
            await session.signOut()
            #expect(await updates.next() == .signedOut(account: stored.account, reason: nil))
        }

        @Test func aFailedRefreshSignsOutOnceAndNeverLoops() async throws {
            let oauth = oauth()
            let stored = try await signedIn(oauth)
            let store = InMemorySecretStore()
            let session = CredentialSession(
                stored: stored, store: store, refresher: OAuthRefresher(oauth: oauth), journal: journal)
            try await session.use(stored)
            let client = SignInFixture.client(
                control.url, journal: journal, middlewares: [AuthenticationMiddleware(session: session)])
            try await control.post("/_control/oauth", ["expire_access": .bool(true), "fail_refreshes": .integer(100)])
            let statuses = await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        do {
                            _ = try await client.send(Request<JSONValue>.get("/api/auth/me"))
                            return 200
                        } catch {
                            return (error as? HTTPError)?.statusCode
                        }
                    }
                }
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 401 })
            await #expect(throws: HTTPError.self) { try await client.send(Request<JSONValue>.get("/api/auth/me")) }
            #expect(try await control.counters()["refresh"]?.intValue == 1)
            guard case .signedOut(let account, .refreshFailed?) = await session.status else {
                Issue.record("expected signed out after a failed refresh, got \(await session.status)")
                return
            }
            #expect(account == stored.account)
            #expect(store.accounts().isEmpty)
        }

        @Test func revokingTheRefreshTokenEndsTheGrant() async throws {
            let oauth = oauth()
            let stored = try await signedIn(oauth)
            let refresh = try #require(stored.credential.refreshToken)
            try await oauth.revoke(refresh)
            let error = await #expect(throws: AuthError.self) { _ = try await oauth.refresh(refresh) }
            guard case .refreshFailed? = error else {
                Issue.record("expected refreshFailed, got \(String(describing: error))")
                return
            }
        }

        func ticketFlow(sleeper: RecordingSleeper, clock: ManualWallClock, opener: any BrowserOpener) -> TicketPollFlow
        {
            let client = Client(
                baseURL: control.url,
                configuration: Client.Configuration(
                    retryPolicy: .never, transportPolicy: SignInFixture.policy, journal: journal, clock: clock,
                    sleeper: sleeper))
            return TicketPollFlow(
                address: address, client: client, opener: opener, startPath: "/auth/cli-login",
                pollPath: "/auth/cli-poll")
        }

        @Test func ticketPollReturnsTheTokenOnceTheBrowserApproves() async throws {
            let clock = ManualWallClock()
            let sleeper = RecordingSleeper(advancing: clock)
            let flow = ticketFlow(
                sleeper: sleeper, clock: clock, opener: ApprovingOpener(pendingPolls: 3, control: control))
            let result = try await flow.run()
            #expect(result.token.hasPrefix("cat_"))
            #expect(sleeper.delays == Array(repeating: .seconds(2), count: 3))
        }

        @Test func ticketPollGivesUpAfterFiveMinutes() async throws {
            let clock = ManualWallClock()
            let sleeper = RecordingSleeper(advancing: clock)
            let flow = ticketFlow(
                sleeper: sleeper, clock: clock, opener: ApprovingOpener(pendingPolls: nil, control: control))
            let error = await #expect(throws: AuthError.self) { _ = try await flow.run() }
            guard case .ticketExpired? = error else {
                Issue.record("expected ticketExpired, got \(String(describing: error))")
                return
            }
            #expect(sleeper.delays.count == 150)
            #expect(sleeper.delays.reduce(Duration.zero, +) == .seconds(300))
        }

        @Test func ticketPollStopsOn410() async throws {
            let clock = ManualWallClock()
            let sleeper = RecordingSleeper(advancing: clock)
            let flow = ticketFlow(sleeper: sleeper, clock: clock, opener: ExpiringOpener(control: control))
            let error = await #expect(throws: AuthError.self) { _ = try await flow.run() }
            guard case .ticketExpired(let reason)? = error else {
                Issue.record("expected ticketExpired, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("gave"))
            #expect(sleeper.delays.isEmpty)
        }
    }
}

/// Opens the login page; approves the ticket as user `plain` (now, or never when `pendingPolls` is nil).
struct ApprovingOpener: BrowserOpener {
    let pendingPolls: Int?
    let control: CertainControl

    func open(_ url: URL) async throws(AuthError) {
        guard let pendingPolls else { return }
        try await CurlBrowser().open(
            url.appendingQuery("login_hint", "plain").appendingQuery("after_polls", "\(pendingPolls)"))
    }
}

/// Opens the login page and has the server give the ticket up.
struct ExpiringOpener: BrowserOpener {
    let control: CertainControl

    func open(_ url: URL) async throws(AuthError) {
        let ticket =
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "ticket" }?.value
            ?? ""
        do {
            try await control.post("/_control/ticket", ["ticket": .string(ticket), "state": .string("expired")])
        } catch {
            throw .unexpectedReply("control failed")
        }
    }
}

extension URL {
    func appendingQuery(_ name: String, _ value: String) -> URL {
        guard var parts = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: name, value: value)]
        return parts.url ?? self
    }
}

/// A store that refuses every write, to prove a renewed credential is stored before it is used.
final class RefusingStore: SecretStore {
    func load(_ account: AccountKey) throws(SecretStoreError) -> StoredCredential? { nil }
    func save(_ credential: StoredCredential) throws(SecretStoreError) { throw .unavailable(detail: "refused by test") }
    func delete(_ account: AccountKey) throws(SecretStoreError) {}
    func accounts() throws(SecretStoreError) -> [AccountKey] { [] }
}
