import CertainCore
import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

extension CertainStandIn {
    /// Sign-in, the device token and what travels on the wire, read from the server's request log.
    @Suite struct SessionTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        @Test(
            "C-TOK-3 C-ERR-4 C-SCOPE-1 C-LOOK-1 C-LOOK-2 C-TOK-10 C-TOK-4: after minting only the token travels; only GETs"
        )
        @MainActor func afterMintingOnlyTheTokenTravels() async throws {
            let journal = Journal()
            let account = try await server.connect(
                environment: TestEnvironments.loopback(journal: journal, sleeper: RecordingSleeper()))
            try await account.server.lookups.reload()  // at sign-in (O-8)
            let overview = OverviewModel(server: account.server)
            let budget = BudgetModel(server: account.server)
            let transactions = TransactionsModel(server: account.server)
            let contracts = ContractsModel(server: account.server)
            let accounts = AccountsModel(server: account.server)
            for _ in 0..<2 {
                await transactions.load()
                await contracts.load()
                await overview.refresh()
                await budget.load(BudgetMonth("2026-10"))
                await budget.previous()
                await accounts.load()
                await transactions.feed?.loadMore()
            }
            #expect(overview.state.value != nil)
            #expect(transactions.state.value?.items.count == 100)
            let log = try await server.requests()
            let mint = try #require(log.lastIndex { $0.method == "POST" && $0.path == "/api/inbox/tokens" })
            #expect(log[mint].cookie)
            let after = log[(mint + 1)...]
            // C-TOK-3 (amended): the cookie is used exactly once more, to end its own session.
            let withCookie = after.filter(\.cookie)
            #expect(withCookie.map(\.path) == ["/api/auth/logout"], "\(withCookie)")
            #expect(withCookie.first?.method == "POST")
            #expect(withCookie.first?.token == false)
            for entry in after where entry.path != "/api/auth/logout" {
                #expect(entry.token, "\(entry)")
                #expect(entry.method == "GET", "C-ERR-4: \(entry)")  // the tabs only read
            }
            // C-LOOK-1: categories and tags once, at sign-in; never again from any tab.
            #expect(after.filter { $0.path == "/api/categories" }.count == 1)
            #expect(after.filter { $0.path == "/api/tags" }.count == 1)
            // C-LOOK-2: no request per row (no path with an id in it).
            #expect(after.allSatisfy { !$0.path.contains(where: \.isNumber) })
            // C-TOK-10: the token is named after the app and the device.
            #expect(try await server.tokens().first?["name"]?.stringValue == "Certain für iOS (Linux-Testrechner)")
            #expect(TokenName.make(device: "iPhone von Guido") == "Certain für iOS (iPhone von Guido)")
            #expect(TokenName.make(device: "  ") == "Certain für iOS")
            // C-TOK-4: neither the password nor the token reaches the journal.
            let exported = String(decoding: journal.exportJSONLines(), as: UTF8.self)
            #expect(!exported.contains(try await server.password("plain")))
            for secret in account.stored.credential.secretValues { #expect(!exported.contains(secret)) }
        }

        @Test("C-TOK-9: minting fails for good → back to sign-in with the reason; the cookie only ends its session")
        func failedMintNeverCarriesOnWithTheCookie() async throws {
            try await server.post("/_control/fail", ["path": "/api/inbox/tokens", "status": 500, "times": 50])
            let environment = TestEnvironments.loopback()
            let flow = CertainServer.signIn(
                try environment.address(server.url.absoluteString), device: "Test", environment: environment)
            _ = try await flow.signIn(username: "plain", password: try await server.password("plain"))
            let failure = await #expect(throws: AuthError.self) { try await flow.issueCredential() }
            #expect(failure != nil)
            // The cookie is gone from the flow: a second try cannot use it.
            await #expect(throws: AuthError.self) { try await flow.issueCredential() }
            let log = try await server.requests()
            let mint = try #require(log.lastIndex { $0.path == "/api/inbox/tokens" })
            #expect(log[(mint + 1)...].filter(\.cookie).map(\.path) == ["/api/auth/logout"])
            #expect(try await server.tokens().isEmpty)
            #expect(try environment.secrets.accounts().isEmpty)
        }

        @Test("C-TOK-2 C-LOOK-3: the plaintext is in the 201 only; the list never shows it; data replies carry ids")
        func plaintextOnlyInTheMintReply() async throws {
            let account = try await server.connect()
            guard case .headerToken(_, let token) = account.stored.credential else { throw Failure("no token") }
            let cookie = try await server.webCookie("plain")
            var list = Request<JSONValue>.get("/api/inbox/tokens")
            list.headers["Cookie"] = cookie
            let reply = try await server.anonymousClient().reply(list)
            #expect(reply.status == 200)
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(!text.contains(token))
            #expect(try reply.decode(JSONValue.self).arrayValue?.first?["token"] == nil)
            // With the token itself: refused, the list is for a browser session.
            let refused = await #expect(throws: HTTPError.self) {
                try await account.server.bundle.client.send(Request<JSONValue>.get("/api/inbox/tokens"))
            }
            #expect(refused?.envelope?.code == "cookie_required")
            // C-LOOK-3: a transaction names its account and category by id only.
            let page = try await account.server.bundle.client.send(
                Request<JSONValue>.get("/api/transactions", query: ["limit": "1"]))
            let item = try #require(page["items"]?.arrayValue?.first)
            #expect(item["account_id"]?.intValue != nil)
            #expect(item["account_name"] == nil && item["category_name"] == nil)
        }

        @Test("C-ERR-1: a screen's report says its state, fetch time, age and value")
        @MainActor func screenReportsCarryTheirState() async throws {
            let clock = ManualWallClock()
            let account = try await server.connect(
                environment: TestEnvironments.loopback(clock: clock, sleeper: RecordingSleeper()))
            let model = AccountsModel(server: account.server)
            await model.load()
            let report = ScreenReport(screen: "accounts", model.state, now: clock.now())
            #expect(report.state == .content && report.age == 0 && report.fetchedAt != nil)
            #expect(report.value?.map(\.name) == ["Girokonto", "Tagesgeld", "Depot"])
        }

        @Test("C-AUTH-6: the MFA policy's cookie gets 403 mfa_setup_required with setup_url; no token is minted")
        func mfaPolicyRefusesEveryCall() async throws {
            let cookie = try await server.webCookie("mfapolicy")
            let web = server.anonymousClient()
            var mint = Request<JSONValue>.post("/api/inbox/tokens", body: ["scope": JSONValue.string("app")])
            mint.headers["Cookie"] = cookie
            let reply = try await web.reply(mint)
            #expect(reply.status == 403)
            let body = try reply.decode(JSONValue.self)
            #expect(body["code"]?.stringValue == "mfa_setup_required")
            #expect(body["setup_url"]?.stringValue == "/einstellungen/sicherheit")
            #expect(try await server.tokens().isEmpty)
        }

        @Test(
            "C-AUTH-7 C-TIME-1 C-TIME-2: the signed-in user, read with the token alone, created_at to the microsecond")
        @MainActor func theSignedInUserIsACoreModel() async throws {
            let account = try await server.connect()
            try await server.clearRequests()
            let model = UserModel(server: account.server)
            await model.load()
            let user = try #require(model.state.value)
            #expect(user.username == "plain" && String(user.id) == account.stored.account.userID)
            let expected = Date(timeIntervalSince1970: 1_792_505_895.780705)  // 2026-10-20T14:18:15.780705Z
            #expect(abs(user.createdAt.timeIntervalSince(expected)) < 0.000_001)
            #expect(user.createdAt != Date(timeIntervalSince1970: 1_792_505_895))  // the fraction is kept
            let log = try await server.requests()
            #expect(log.map(\.path) == ["/api/auth/me"] && log.allSatisfy { $0.token && !$0.cookie })
            for text in ["2026-10-20T14:18:15.780705Z", "2026-10-20T16:18:15.780705+02:00"] {
                #expect(abs(try Timestamp.parse(text).timeIntervalSince(expected)) < 0.000_001)
            }
            #expect(try Timestamp.parse("2026-10-20T14:18:15") == Date(timeIntervalSince1970: 1_792_505_895))
            // Without a credential: 401 not_authenticated.
            let failure = await #expect(throws: HTTPError.self) {
                try await server.anonymousClient().send(CertainAPI.me)
            }
            #expect(failure?.envelope?.code == "not_authenticated")
        }

        @Test("C-ERR-2: the server's German sentence reaches the model unchanged; a 422 list becomes field and message")
        @MainActor func serverSentencesReachTheModel() async throws {
            let account = try await server.connect(language: .german)
            let tooMany = Request<TransactionPage>.get("/api/transactions", query: ["limit": "500"])
            var failed = ScreenState<TransactionPage>.loading
            for await update in account.server.bundle.read(tooMany, policy: .fresh, showing: failed) {
                failed = update.state
            }
            #expect(
                failed
                    == .failed(reason: "query.limit: Input should be less than or equal to 200", signInRequired: false))
            // A German refusal, word for word: revoke from the web, then read.
            try await server.revokeFromTheWeb(account.stored)
            let model = AccountsModel(server: account.server)
            await model.load()
            #expect(model.state == .failed(reason: "Die Gerätemarke wurde widerrufen.", signInRequired: true))
        }

        @Test("C-ERR-2: transport failures stay typed: unreachable, timeout, untrusted certificate, refused plain http")
        func transportFailuresAreTyped() async throws {
            let environment = TestEnvironments.loopback()
            let profile = CertainServer.profile()
            func failure(_ url: URL, _ request: Request<JSONValue>) async -> HTTPError? {
                do {
                    _ = try await environment.client(for: url, profile: profile).send(request.retrying(.never))
                    return nil
                } catch {
                    return error
                }
            }
            guard case .unreachable = await failure(deadServer, .get("/api/version")) else {
                throw Failure("not unreachable")
            }
            var stall = Request<JSONValue>.get("/stall", query: ["seconds": "5"])
            stall.timeout = .seconds(1)
            guard case .timedOut = await failure(try TestServers.fault(), stall) else { throw Failure("no timeout") }
            guard case .untrustedCertificate = await failure(try TestServers.faultTLS(), .get("/api/version")) else {
                throw Failure("not a TLS failure")
            }
            let release = AppEnvironment(
                transportPolicy: .httpsOnly, stores: StoreRegistry(location: .memory), secrets: InMemorySecretStore())
            #expect(throws: ServerAddressError.self) { _ = try release.address(server.url.absoluteString) }
            do {
                _ = try await release.client(for: server.url, profile: profile).send(
                    Request<JSONValue>.get("/api/version"))
                Issue.record("plain http went out under the release policy")
            } catch {
                guard case .insecureTransport = error else { throw Failure("not refused as plain http: \(error)") }
            }
        }
    }
}
