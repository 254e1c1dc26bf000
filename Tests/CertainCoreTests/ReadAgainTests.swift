import CertainCore
import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionTestSupport
import Foundation
import Testing

/// What a person would still notice, found by reading the core again rule by rule (issue 37): the client's own
/// rules on hand-made values.
@Suite struct ReadAgainRuleTests {
    static func decode<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
        try TestEnvironments.loopback().client(for: deadServer, profile: CertainServer.profile()).decode(
            type, from: Data(json.utf8))
    }

    static func month(warnings: String = "[]", complete: Bool = true) throws -> BudgetMonthReply {
        try decode(
            BudgetMonthReply.self,
            """
            {"month": "2026-10", "currency": "EUR", "prev": null, "next": null, "groups": [],
             "warnings": \(warnings), "complete": \(complete)}
            """)
    }

    static let missingRate =
        #"[{"code": "missing_exchange_rate", "currency": "USD", "date": "2026-10-12", "transaction_ids": [812]}]"#

    @Test(
        "C-BUD-9: any notice marks the month incomplete even when the server's flag says complete, and the flag alone does too"
    )
    func anyNoticeOrTheFlagMarksIncomplete() throws {
        // The flag and the notices disagree: a notice wins over `complete: true`.
        #expect(try Self.month(warnings: Self.missingRate, complete: true).isIncomplete)
        // No notice, and the server says something is left out: incomplete all the same.
        #expect(try Self.month(complete: false).isIncomplete)
        #expect(!(try Self.month(complete: true).isIncomplete))
    }

    @Test("Issue 37 item 1, C-BUD-9: the overview carries the month report's notices and is incomplete with them alone")
    func theOverviewCarriesTheMonthsNotices() throws {
        let report = try Self.decode(
            MonthReport.self,
            #"{"month": "2026-10", "currency": "EUR", "income": "1042.00", "expenses": "66.10", "warnings": \#(Self.missingRate)}"#
        )
        let overview = Overview(month: report, budget: try Self.month(), accounts: [], latest: [])
        #expect(overview.isIncomplete)  // the budget is complete; the month's figures are not
        #expect(
            overview.notices == [
                .missingExchangeRate(currency: "USD", date: TransferRowTests.day("2026-10-12"), transactionIDs: [812])
            ])
        let complete = Overview(
            month: try Self.decode(
                MonthReport.self,
                #"{"month": "2026-10", "currency": "EUR", "income": "0.00", "expenses": "0.00", "warnings": []}"#),
            budget: try Self.month(), accounts: [], latest: [])
        #expect(!complete.isIncomplete && complete.notices.isEmpty)
    }

    @Test("Issue 37 item 3: a missing-rate notice names transactions and contracts each for what they are")
    func noticeIdsKeepTheirKind() throws {
        let contracts = try Self.decode(
            BudgetNotice.self,
            #"{"code": "missing_exchange_rate", "currency": "CHF", "date": "2026-12-07", "contract_ids": [10]}"#)
        #expect(
            contracts
                == .missingExchangeRate(
                    currency: "CHF", date: TransferRowTests.day("2026-12-07"), transactionIDs: [], contractIDs: [10]))
        let encoded = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(contracts)) as? [String: Any])
        #expect(encoded["contract_ids"] as? [Int] == [10])
        #expect(encoded["transaction_ids"] as? [Int] == [])
        let transactions = try Self.decode(BudgetNotice.self, String(Self.missingRate.dropFirst().dropLast()))
        #expect(
            transactions
                == .missingExchangeRate(
                    currency: "USD", date: TransferRowTests.day("2026-10-12"), transactionIDs: [812]))
    }

    @Test("C-BUD-2: a month is every month of the year, January and December included; out of range is clamped")
    func monthsKeepTheirNumber() {
        #expect(BudgetMonth("2026-01")?.description == "2026-01")
        #expect(BudgetMonth("2026-12")?.description == "2026-12")
        #expect(BudgetMonth(year: 2026, month: 1).description == "2026-01")
        #expect(BudgetMonth(year: 2026, month: 0).description == "2026-01")
        #expect(BudgetMonth(year: 2026, month: 13).description == "2026-12")
    }

    @Test("C-TIME-3: every month has its own length: 30 days in April, June, September and November, 31 in May")
    func monthLengths() {
        for day in ["2026-04-31", "2026-06-31", "2026-09-31", "2026-11-31"] {
            #expect(CalendarDate(day) == nil, "\(day)")
        }
        for day in ["2026-05-31", "2026-06-30", "2026-07-31", "2026-08-31"] {
            #expect(CalendarDate(day) != nil, "\(day)")
        }
    }

    @Test("Issue 37 item 5: a lone leg carries one clear mark: no nested parentheses, no second \"Transfer\"")
    func theLoneLegMarkIsOneMark() throws {
        let link = TransferLink(id: 77, fromID: 501, fromAccountID: 1, toID: 502, toAccountID: 2)
        let lone = Transaction(
            id: 501, accountID: 1, bookedOn: TransferRowTests.day("2026-10-14"),
            amount: TransferRowTests.amount("-250.00"), transferLink: link)
        let line = try #require(
            TransactionLine.lines(TransactionRows.rows([lone]), lookups: Lookups(), texts: Texts(.english)).first)
        let english = line.text(Texts(.english))
        #expect(english == "14 Oct 2026  Transfer from Unknown to Unknown  €250.00  (other leg not in the list)")
        let german = line.text(Texts(.german))
        for text in [english, german] {
            #expect(text.filter { $0 == "(" }.count == 1 && !text.contains("(("), "\(text)")
        }
        #expect(english.components(separatedBy: "Transfer").count == 2)
    }

    @Test(
        "C-TOK-6: a 401 in Certain's JSON envelope without a code ends the sign-in; a 401 page that is not JSON does not"
    )
    func aCodeless401EndsTheSignIn() {
        let rule = CertainServer.revocation
        let plain = ServerErrorEnvelope(message: "Not authenticated", details: ["detail": "Not authenticated"])
        #expect(rule.ends(status: 401, envelope: plain))
        #expect(!rule.ends(status: 401, envelope: ServerErrorEnvelope(message: "401 Authorization Required")))
        #expect(!rule.ends(status: 403, envelope: plain))  // a 403 without a code is a permission, not the token
        // Another JSON body without a code (not Certain's `detail` sentence) keeps the sign-in.
        let foreign = ServerErrorEnvelope(message: "plain error sentence", details: ["error": "plain error sentence"])
        #expect(!rule.ends(status: 401, envelope: foreign))
        // A code Certain does not name for a lost credential keeps the sign-in.
        let other = ServerErrorEnvelope(code: "invalid_code", message: "…", details: ["detail": "…"])
        #expect(!rule.ends(status: 401, envelope: other))
    }
}

extension CertainStandIn {
    /// The same findings against the reference server.
    @Suite struct ReadAgainTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        /// An environment whose clock stands at `now`.
        static func environment(at now: String) throws -> AppEnvironment {
            let instant = try Timestamp.parse(now)
            return TestEnvironments.loopback(clock: ManualWallClock(instant), sleeper: RecordingSleeper())
        }

        @MainActor func open(_ environment: AppEnvironment, timeZone: TimeZone) async throws -> CertainServer {
            let stored = try await server.signIn("plain", environment: environment)
            return try await CertainServer.open(
                stored, language: .english, timeZone: timeZone, environment: environment, addresses: nil)
        }

        @Test(
            "Issue 37 items 1 and 6, C-OVER-4: October's overview names what its sums left out and is marked incomplete; transfers are in no expense"
        )
        @MainActor func theOverviewShowsWhatItsSumsLeftOut() async throws {
            try await server.reset("edge")
            let account = try await open(try Self.environment(at: "2026-10-15T12:00:00Z"), timeZone: .gmt)
            let model = OverviewModel(server: account)
            await model.refresh()
            let overview = try #require(model.state.value)
            #expect(overview.month.month.description == "2026-10")
            // C-OVER-4: the bakers (12.80), the flea market (42.00) and the broker's USD 12.346 at that day's rate
            // (11.30); the transfers of 75.00, 300.00 and 200.00 are in no expense (641.10 with them).
            #expect(overview.month.expenses.description == "66.10")
            #expect(overview.month.income.description == "1042.00")
            // Item 1: the yen dinner and the USD snack have no rate: named, and the month is incomplete.
            #expect(overview.isIncomplete)
            let currencies = overview.notices.compactMap {
                if case .missingExchangeRate(let currency, _, _, _) = $0 { currency } else { nil }
            }
            #expect(currencies.sorted() == ["JPY", "USD"], "\(overview.notices)")
            #expect(model.notices.count == overview.notices.count && model.notices.allSatisfy { !$0.isEmpty })
        }

        @Test("Issue 37 item 6: this month is the person's own: at 00:30 on 1 November in Berlin it is November")
        @MainActor func thisMonthIsThePersonsOwn() async throws {
            let environment = try Self.environment(at: "2026-10-31T23:30:00Z")
            let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
            let account = try await open(environment, timeZone: berlin)
            #expect(account.thisMonth.description == "2026-11")
            try await server.clearRequests()
            await OverviewModel(server: account).refresh()
            await BudgetModel(server: account).load()
            let asked = try await server.requests().map { "\($0.path)?\($0.query)" }
            #expect(asked.contains("/api/reports/month?month=2026-11"), "\(asked)")
            #expect(asked.filter { $0 == "/api/budget?month=2026-11" }.count == 2, "\(asked)")
            // The same instant in UTC is still October.
            let utc = try await open(environment, timeZone: .gmt)
            #expect(utc.thisMonth.description == "2026-10")
        }

        @Test(
            "Issue 37 item 6: an overview left open over midnight on the month's last day shows the new month at its next refresh"
        )
        @MainActor func anOpenOverviewMovesToTheNewMonth() async throws {
            let clock = ManualWallClock(try Timestamp.parse("2026-10-31T22:30:00Z"))
            let environment = TestEnvironments.loopback(clock: clock, sleeper: RecordingSleeper())
            let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
            let model = OverviewModel(server: try await open(environment, timeZone: berlin))
            await model.refresh()
            #expect(model.state.value?.month.month.description == "2026-10")
            clock.advance(by: 3600)  // 00:30 on 1 November in Berlin
            try await server.clearRequests()
            await model.refresh()
            #expect(model.state.value?.month.month.description == "2026-11")
            let asked = try await server.requests().map { "\($0.path)?\($0.query)" }
            #expect(asked.contains("/api/reports/month?month=2026-11"), "\(asked)")
        }

        @Test("Issue 37 item 2, C-ADDR-4, C-TOK-6: the address is kept by default, also after a revocation")
        @MainActor func theAddressIsKeptByDefault() async throws {
            let book = CertainAddressBook()
            book.forget()
            defer { book.forget() }
            let environment = TestEnvironments.loopback(sleeper: RecordingSleeper())
            let stored = try await server.signIn("plain", environment: environment)
            let account = try await CertainServer.open(stored, language: .english, environment: environment)
            #expect(book.entry()?.address == stored.address.description)
            try await server.revokeFromTheWeb(stored)
            let model = AccountsModel(server: account)
            await model.load()
            #expect(model.state.signInRequired)
            #expect(try environment.secrets.load(stored.account) == nil)
            #expect(book.entry()?.address == stored.address.description)
            #expect(book.entry()?.account == stored.account)
        }

        @Test("Issue 37 item 4, C-LOOK-4: a lookup reload that failed marks nothing; the next read resolves the ids")
        @MainActor func aFailedReloadDoesNotStickOnUnknown() async throws {
            let account = try await server.connect()
            let rent = try #require(
                try await account.server.bundle.client.send(CertainAPI.categories).first { $0.name == "Miete" })
            try await server.post("/_control/fail", ["path": "/api/categories", "status": 500, "times": 50])
            let during = await account.server.lookups.resolving(categories: [rent.id])
            #expect(during.categoryName(rent.id, Texts(.english)) == "Unknown")
            try await server.post("/_control/fail", ["path": "/api/categories", "times": 0])
            let after = await account.server.lookups.resolving(categories: [rent.id])
            #expect(after.categoryName(rent.id, Texts(.english)) == "Miete")
        }

        @Test(
            "Issue 37 item 3, C-CON-1, C-CON-2: a CHF contract keeps its own amount and currency; its notice's ids keep their kind in both shapes"
        )
        @MainActor func contractsKeepTheirCurrencyAndTheirIds() async throws {
            let account = try await server.connect()
            let model = ContractsModel(server: account.server)
            await model.load()
            let list = try #require(model.state.value)
            let skiing = try #require(list.items.first { $0.name == "Skipass-Abo" })
            #expect(skiing.money.description == "120.00 CHF")
            #expect(skiing.money.formatted(.english).contains("CHF") && !skiing.money.formatted(.english).contains("€"))
            // §2's shape: the notice names no transaction, and no contract id is taken for a transaction id.
            let notice = try #require(
                list.warnings.first { if case .missingExchangeRate("CHF", _, _, _) = $0 { true } else { false } })
            guard case .missingExchangeRate(_, _, let transactionIDs, let contractIDs) = notice else { return }
            #expect(transactionIDs.isEmpty && contractIDs.isEmpty)
            // The stand-in's second shape names the contracts: they stay contract ids.
            try await server.post("/_control/shape", ["contract_notice_ids": "contract_ids"])
            let again = ContractsModel(server: account.server)
            await again.load()
            let named = try #require(
                again.state.value?.warnings.first {
                    if case .missingExchangeRate("CHF", _, _, _) = $0 { true } else { false }
                })
            guard case .missingExchangeRate(_, _, let noTransactions, let contracts) = named else { return }
            #expect(noTransactions.isEmpty && contracts == [skiing.id])
        }

        @Test(
            "C-BUD-7 (server): an uncategorised contract is named in a month's notices only when it is due that month"
        )
        @MainActor func anUncategorisedContractIsNamedWhenDue() async throws {
            let account = try await server.connect()
            let model = BudgetModel(server: account.server)
            await model.load(BudgetMonth("2026-10"))
            let names = (model.state.value?.warnings ?? []).compactMap {
                if case .contractWithoutCategory(_, let name, _) = $0 { name } else { nil }
            }
            // The gym is due every month; the liability insurance once a year, in March.
            #expect(names == ["Fitnessstudio"], "\(names)")
        }

        @Test("C-TOK-6 C-OFF-5: a plain 401 {\"detail\"} without a code from the token route signs out and wipes")
        @MainActor func aCodeless401SignsOut() async throws {
            let folder = try TemporaryFolder()
            let environment = TestEnvironments.loopback(stores: .directory(folder.url), sleeper: RecordingSleeper())
            let account = try await server.connect(environment: environment)
            let model = AccountsModel(server: account.server)
            await model.load()
            try await server.post(
                "/_control/fail",
                [
                    "path": "/api/accounts", "status": 401, "times": 1,
                    "body": .string(#"{"detail": "Not authenticated"}"#), "content_type": "application/json",
                ])
            await model.load()
            #expect(model.state == .failed(reason: "Not authenticated", signInRequired: true))
            #expect(try account.secrets.load(account.stored.account) == nil)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            #expect(!files.contains { $0.contains(".sqlite") }, "\(files)")
        }

        @Test("C-OVER-6 (the accounts tab): a fresh accounts list replaces the accounts lookup, nothing else")
        @MainActor func theAccountsTabRefreshesTheLookup() async throws {
            // Lookups stored from the edge fixture (six accounts), then the server holds the default one (three).
            try await server.reset("edge")
            let environment = TestEnvironments.loopback(sleeper: RecordingSleeper())
            let before = try await server.connect(environment: environment)
            let old = try await before.server.lookups.reload()
            try await server.reset("default")
            let account = try await server.connect(environment: environment)
            try await server.post("/_control/fail", ["path": "/api/categories", "status": 500, "times": 50])
            let model = AccountsModel(server: account.server)
            await model.load()
            #expect(model.state.kind == .content)
            let lookups = await account.server.lookups.current
            #expect(lookups.accounts == model.state.value)
            #expect(lookups.accounts.map(\.name) == ["Girokonto", "Tagesgeld", "Depot"])
            #expect(lookups.categories == old.categories)
        }

        @Test("C-BUD-2 C-OFF-2: loading the month shown again refreshes its feed; another month gets a feed of its own")
        @MainActor func theSameMonthKeepsItsFeed() async throws {
            let account = try await server.connect()
            let model = BudgetModel(server: account.server)
            await model.load(BudgetMonth("2026-10"))
            let october = try #require(model.feed)
            await model.load(BudgetMonth("2026-10"))
            #expect(model.feed === october)
            await model.previous()
            #expect(model.feed !== october && model.reply?.month.description == "2026-08")
        }

        @Test("C-TOK-8: a mint reply lost twice is sent a third time with the same key: one token, signed in")
        @MainActor func aMintLostTwiceIsResentTwice() async throws {
            try await server.post("/_control/drop-reply", ["path": "/api/inbox/tokens", "times": 2])
            try await server.clearRequests()
            let stored = try await server.signIn(
                "plain", environment: TestEnvironments.loopback(sleeper: RecordingSleeper()))
            let mints = try await server.requests().filter { $0.method == "POST" && $0.path == "/api/inbox/tokens" }
            #expect(mints.count == 3)
            #expect(try await server.tokens().count == 1)
            #expect(stored.serverID != nil)
        }

        @Test("Issue 37 item 7, C-TOK-9: a failed GET /api/auth/me during sign-in ends the cookie session")
        @MainActor func aFailedUserReadEndsTheCookieSession() async throws {
            let environment = TestEnvironments.loopback(sleeper: RecordingSleeper())
            let address = try environment.address(server.url.absoluteString)
            let flow = CertainServer.signIn(address, device: "Linux-Testrechner", environment: environment)
            try await flow.probe()
            let step = try await flow.signIn(username: "plain", password: try await server.password("plain"))
            guard case .authenticated = step else { throw Failure("\(step)") }
            try await server.post("/_control/fail", ["path": "/api/auth/me", "status": 500, "times": 50])
            try await server.clearRequests()
            await #expect(throws: AuthError.self) { try await flow.issueCredential() }
            let log = try await server.requests()
            #expect(
                log.last.map { "\($0.method) \($0.path) cookie=\($0.cookie)" } == "POST /api/auth/logout cookie=true")
            #expect(!log.contains { $0.path == "/api/inbox/tokens" })
            #expect(try await server.tokens().isEmpty)
        }
    }
}
