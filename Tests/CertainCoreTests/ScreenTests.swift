import CertainCore
import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

extension CertainStandIn {
    /// The tab models against the reference server's default fixture.
    @Suite struct ScreenTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        /// Now, to the whole second: the person's month is the server's (the fixture's data lie in it), and ages
        /// stay whole numbers of seconds.
        static let today = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

        /// A loopback environment whose time only moves when a test says so.
        static func environment(_ clock: ManualWallClock, folder: URL? = nil) -> AppEnvironment {
            TestEnvironments.loopback(
                stores: folder.map { .directory($0) } ?? .memory, clock: clock, sleeper: RecordingSleeper())
        }

        @Test(
            "C-OVER-1 C-OVER-2 C-OVER-4: four requests at once, held by the server until all four arrived; one stored time; the server's current month, with data"
        )
        @MainActor func overviewFetchesFourTogether() async throws {
            let clock = ManualWallClock(Self.today)
            let account = try await server.connect(environment: Self.environment(clock))
            let month = try await server.currentMonth(account.server)
            try await account.server.lookups.reload()  // at sign-in: the overview then needs no lookup reload
            try await server.post("/_control/hold", ["count": 4, "timeout_ms": 4000])
            let model = OverviewModel(server: account.server)
            try await server.clearRequests()
            await model.refresh()
            #expect(try await server.get("/_control/hold")["reached"]?.boolValue == true)
            guard case .content(let overview, let fetchedAt) = model.state else {
                throw Failure("no content: \(model.state)")
            }
            // C-OVER-1: four sections, in this order, whatever the web's grid says.
            #expect(
                overview.sections.map(\.textKey) == [
                    "overview.month", "overview.budget", "overview.accounts", "overview.latest",
                ])
            let paths = try await server.requests().map { $0.path + ($0.query.isEmpty ? "" : "?" + $0.query) }
            // The month report and the budget are asked for the person's own month, by name.
            #expect(
                paths.sorted() == [
                    "/api/accounts", "/api/budget?month=\(month)", "/api/reports/month?month=\(month)",
                    "/api/transactions?limit=5",
                ])
            // One snapshot, one time: what is stored is this refresh's group, stamped once.
            let stored = try #require(
                try await account.server.bundle.snapshots.stored(Overview.snapshot(model.month)))
            #expect(stored.fetchedAt == fetchedAt)
            #expect(stored.value == overview)
            // C-OVER-4: the month is the server's current one, and the fixture has money, a budget and
            // transactions in it (the overview is not an empty month).
            #expect(overview.month.month == month)
            #expect(overview.budget.month == month)
            #expect(overview.month.expenses.value > 0)
            #expect(!overview.budget.groups.isEmpty)
            #expect(overview.latest.count == 5)
            #expect(overview.latest.allSatisfy { $0.bookedOn.budgetMonth == month })
            #expect(overview.accounts.map(\.name) == ["Girokonto", "Tagesgeld", "Depot"])
        }

        @Test("C-OVER-6 C-BUD-6: the overview's groups are red by the budget's rule; this month's Wohnen is over plan")
        @MainActor func overviewGroupsUseTheRedRule() async throws {
            let account = try await server.connect()
            let model = OverviewModel(server: account.server)
            await model.refresh()
            let budget = try #require(model.state.value?.budget)
            let wohnen = try #require(budget.groups.first { $0.name == "Wohnen" })
            let living = try #require(budget.groups.first { $0.name == "Lebenshaltung" })
            #expect(wohnen.isRed)  // rent 900 against a plan of 850
            #expect(!living.isRed)
        }

        @Test("C-OVER-6: the overview's accounts reply replaces the accounts lookup, without reloading the lookups")
        @MainActor func overviewAccountsRefreshTheLookup() async throws {
            // Lookups loaded on the edge fixture, then the server holds the default one: the stored lookups name
            // four accounts the server no longer has. Same user, same server: the same offline store.
            try await server.reset("edge")
            let environment = TestEnvironments.loopback(sleeper: RecordingSleeper())
            let before = try await server.connect(environment: environment)
            let old = try await before.server.lookups.reload()
            #expect(old.accounts.contains { $0.name == "Leeres Konto" })
            try await server.reset("default")
            let account = try await server.connect(environment: environment)
            #expect(account.stored.account == before.stored.account)
            // No lookups reload can succeed now: only the overview's own accounts reply can change them.
            try await server.post("/_control/fail", ["path": "/api/categories", "status": 500, "times": 50])
            let model = OverviewModel(server: account.server)
            await model.refresh()
            let overview = try #require(model.state.value)
            #expect(model.state.kind == .content)
            let lookups = await account.server.lookups.current
            #expect(lookups.accounts == overview.accounts)
            #expect(lookups.accounts.map(\.name) == ["Girokonto", "Tagesgeld", "Depot"])
            #expect(lookups.categories == old.categories)  // the rest of the lookups as stored
        }

        @Test("C-OVER-3 C-ERR-1: one of four fails → nothing new shown or stored; the old snapshot keeps its time")
        @MainActor func oneFailureKeepsThePreviousSnapshot() async throws {
            let clock = ManualWallClock(Self.today)
            let account = try await server.connect(environment: Self.environment(clock))
            let model = OverviewModel(server: account.server)
            await model.refresh()
            guard case .content(let first, let fetchedAt) = model.state else { throw Failure("\(model.state)") }
            clock.advance(by: 90)
            // More failures than the client's retry policy retries: the refresh fails for good.
            try await server.post("/_control/fail", ["path": "/api/budget", "status": 500, "times": 20])
            await model.refresh()
            guard case .stale(let kept, let age, let problem?) = model.state else { throw Failure("\(model.state)") }
            #expect(kept == first)
            #expect(age == 90)
            #expect(problem == "Vom Test ausgelöster Fehler.")  // the server's own sentence
            // The store holds the first snapshot, with its own time: nothing of the failed attempt.
            let stored = try #require(
                try await account.server.bundle.snapshots.stored(Overview.snapshot(model.month)))
            #expect(stored.fetchedAt == fetchedAt)
            #expect(stored.age == 90)
            #expect(stored.value == first)
        }

        @Test(
            "C-OFF-1 C-OFF-2 C-OFF-3 C-OFF-4: offline, the last snapshot and each viewed tab show with their fetch time; per user"
        )
        @MainActor func offlineShowsTheLastSnapshotWithItsTime() async throws {
            let folder = try TemporaryFolder()
            let clock = ManualWallClock(Self.today)
            let environment = Self.environment(clock, folder: folder.url)
            let account = try await server.connect(environment: environment)
            let lookups = try await account.server.lookups.reload()
            let lookupsTime = try #require(await account.server.lookups.time)
            let online = OverviewModel(server: account.server)
            await online.refresh()
            let budget = BudgetModel(server: account.server)
            await budget.load(BudgetMonth("2026-10"))
            let contracts = ContractsModel(server: account.server)
            await contracts.load()
            let accounts = AccountsModel(server: account.server)
            await accounts.load()
            guard case .content(let snapshot, let fetchedAt) = online.state else { throw Failure("\(online.state)") }
            #expect(budget.state.fetchedAt == fetchedAt && contracts.state.fetchedAt == fetchedAt)
            clock.advance(by: 3_600)

            // A new process on the same folder, with the server unreachable (a closed port).
            let restarted = Self.environment(clock, folder: folder.url)
            let offline = try await Connected(stored: account.stored, server: account.server, environment: restarted)
                .reopened(at: deadServer)
            let model = OverviewModel(server: offline)
            await model.refresh()
            guard case .offline(let shown, let age, _) = model.state else { throw Failure("\(model.state)") }
            #expect(shown == snapshot)
            #expect(age == 3_600)
            #expect(ScreenReport(screen: "overview", model.state, now: clock.now()).fetchedAt == fetchedAt)
            let offlineBudget = BudgetModel(server: offline)
            await offlineBudget.load(BudgetMonth("2026-10"))
            guard case .offline(let month, let budgetAge, _) = offlineBudget.state else {
                throw Failure("\(offlineBudget.state)")
            }
            #expect(month == budget.state.value && budgetAge == 3_600)
            let offlineContracts = ContractsModel(server: offline)
            await offlineContracts.load()
            #expect(offlineContracts.state.kind == .offline && offlineContracts.state.age == 3_600)
            #expect(offlineContracts.state.value == contracts.state.value)
            let offlineAccounts = AccountsModel(server: offline)
            await offlineAccounts.load()
            #expect(offlineAccounts.state.kind == .offline && offlineAccounts.state.age == 3_600)
            #expect(offlineAccounts.state.value?.count == 3)
            #expect(await offline.lookups.current == lookups)  // the lookups, offline, with their time
            #expect(await offline.lookups.time == lookupsTime)
            // C-OFF-3: a search submitted offline says it needs a connection; no local search.
            let search = TransactionsModel(server: offline)
            search.searchText = "REWE"
            await search.submit()
            #expect(search.state == .failed(reason: Texts(.english)["error.needs_connection"], signInRequired: false))
            // C-OFF-4: another user on the same device and folder sees none of it.
            let other = try await server.connect("other", environment: restarted)
            #expect(try await other.server.bundle.snapshots.stored(Overview.snapshot(model.month)) == nil)
            #expect(try await other.server.bundle.snapshots.stored(CertainLookups.snapshot) == nil)
            #expect(try await other.server.bundle.store.resource(CachedFetcher.key(for: CertainAPI.contracts)) == nil)
        }

        @Test(
            "C-OFF-5 C-TOK-6 C-ADDR-4: a revoked token signs out and wipes this server and user's offline data; the address stays"
        )
        @MainActor func revocationWipesOfflineData() async throws {
            let folder = try TemporaryFolder()
            let suite = "certain-tests-\(UUID().uuidString)"
            defer { UserDefaults.standard.removePersistentDomain(forName: suite) }
            let addresses = CertainAddressBook(suiteName: suite)
            let environment = Self.environment(ManualWallClock(Self.today), folder: folder.url)
            let account = try await server.connect(environment: environment, addresses: addresses)
            let model = OverviewModel(server: account.server)
            await model.refresh()
            _ = try await account.server.lookups.reload()
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).contains {
                    $0.hasSuffix(".sqlite")
                })
            try await server.revokeFromTheWeb(account.stored)
            await model.refresh()
            #expect(model.state == .failed(reason: "The device token was revoked.", signInRequired: true))
            #expect(try account.secrets.load(account.stored.account) == nil)  // signed out, token deleted
            #expect(await account.session?.credential == nil)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            #expect(!files.contains { $0.contains(".sqlite") }, "\(files)")
            // The store opened again (as the next launch would) has nothing of it, lookups included.
            let reopened = try await ServerBundle.open(
                account.stored.address.url, account: account.stored.account, profile: CertainServer.profile(),
                environment: Self.environment(ManualWallClock(Self.today), folder: folder.url))
            #expect(try await reopened.snapshots.stored(Overview.snapshot(model.month)) == nil)
            #expect(try await reopened.snapshots.stored(CertainLookups.snapshot) == nil)
            #expect(await account.server.lookups.current == Lookups())
            // C-TOK-6, C-ADDR-4: the address is kept, outside the secret store.
            #expect(addresses.entry()?.address == account.stored.address.description)
            #expect(addresses.entry()?.account == account.stored.account)
        }

        @Test(
            "C-BUD-2 C-ERR-1: back and forward request exactly the reply's prev and next; prev of October skips September; an empty month still pages"
        )
        @MainActor func budgetPagesByTheReply() async throws {
            let account = try await server.connect()
            let current = try await server.currentMonth(account.server)
            let model = BudgetModel(server: account.server)
            await model.load(BudgetMonth("2026-10"))
            #expect(model.reply?.prev == "/api/budget?month=2026-08")
            #expect(model.reply?.next == "/api/budget?month=\(current)")
            #expect(model.canGoBack && model.canGoForward)
            try await server.clearRequests()
            await model.previous()
            #expect(model.state.value?.month.description == "2026-08")
            #expect(!model.canGoBack)
            await model.previous()  // null: nothing is sent
            await model.next()
            #expect(model.state.value?.month.description == "2026-10")
            await model.next()
            #expect(model.state.value?.month == current)
            #expect(!model.canGoForward)
            await model.next()  // null: nothing is sent
            let log = try await server.requests()
            #expect(
                log.map { "\($0.path)?\($0.query)" } == [
                    "/api/budget?month=2026-08", "/api/budget?month=2026-10", "/api/budget?month=\(current)",
                ])
            // C-ERR-1: a month without a budget is empty, not content; its links still page.
            await model.load(BudgetMonth("2026-09"))
            guard case .empty = model.state else { throw Failure("not empty: \(model.state)") }
            #expect(
                model.reply?.prev == "/api/budget?month=2026-08" && model.reply?.next == "/api/budget?month=2026-10")
            await model.next()
            #expect(model.state.value?.month.description == "2026-10")
        }

        @Test(
            "C-BUD-1 C-BUD-3 C-BUD-4 C-BUD-5 C-BUD-6 C-BUD-7 C-BUD-8 C-BUD-9 C-LOOK-2: October as sent, every warning")
        @MainActor func octoberBudgetWithEveryWarning() async throws {
            let account = try await server.connect()
            let model = BudgetModel(server: account.server)
            await model.load(BudgetMonth("2026-10"))
            let reply = try #require(model.state.value)
            let names = Dictionary(uniqueKeysWithValues: model.lookups.categories.map { ($0.id, $0.name) })
            func line(_ name: String) throws -> BudgetCategory {
                try #require(reply.groups.flatMap(\.categories).first { names[$0.categoryID] == name })
            }
            #expect(try line("Lebensmittel").isRed)  // expense over plan
            #expect(!(try line("ETF-Sparplan").isRed))  // savings over plan
            #expect(try line("ETF-Sparplan").actual > (try line("ETF-Sparplan").planned))
            #expect(!(try line("Gehalt").isRed))  // income over plan
            #expect(try line("Gehalt").actual > (try line("Gehalt").planned))
            #expect(try line("Bücher").planned == .zero && (try line("Bücher").isRed))
            let living = try #require(reply.groups.first { $0.name == "Lebenshaltung" })
            #expect(!living.isRed)  // groceries over, restaurants under by more
            #expect(try #require(reply.groups.first { $0.name == "Wohnen" }).isRed)
            #expect(reply.isIncomplete)
            // C-BUD-7: the contract without a category is named, and in no group's sums.
            #expect(
                reply.warnings.contains {
                    if case .contractWithoutCategory(_, "Fitnessstudio", let money) = $0 {
                        money.description == "29.90 EUR"
                    } else {
                        false
                    }
                })
            // C-BUD-8: the USD wire fee of 12 October has no rate: named with its currency, day and transaction,
            // and left out of its category's actual (only the custody fee, 2.50 USD × 0.915, is in it).
            let fees = TransactionsModel(server: account.server)
            fees.searchText = "Wire fee"
            await fees.submit()
            let wire = try #require(fees.state.value?.items.first)
            #expect(wire.bookedOn.description == "2026-10-12" && wire.currency == "USD")
            #expect(
                reply.warnings.contains(
                    .missingExchangeRate(
                        currency: "USD", date: TransferRowTests.day("2026-10-12"), transactionIDs: [wire.id])))
            #expect(try line("Depotgebühren").actual.description == "2.29")
            // A month without a budget: no groups, no notices.
            await model.load(BudgetMonth("2026-09"))
            #expect(model.reply?.isEmpty == true)
            #expect(model.reply?.isIncomplete == false)
        }

        @Test(
            "C-CON-1 C-CON-2 C-CON-3 C-ACC-1: contracts with the server's sums, a currency without a rate left out; accounts in their own currency"
        )
        @MainActor func contractsAndAccounts() async throws {
            let account = try await server.connect()
            let contracts = ContractsModel(server: account.server)
            await contracts.load()
            let list = try #require(contracts.state.value)
            #expect(list.currency == "EUR")
            let gym = try #require(list.items.first { $0.name == "Fitnessstudio" })
            #expect(gym.categoryID == nil)  // listed like any other (C-CON-3)
            #expect(
                gym.rhythm == .monthly && gym.monthly?.description == "29.90" && gym.yearly?.description == "358.80")
            #expect(gym.nextDue.description == "2026-12-01")
            let cleaner = try #require(list.items.first { $0.name == "Putzhilfe" })
            #expect(
                cleaner.rhythm == .weekly && cleaner.yearly?.description == "2340.00"
                    && cleaner.monthly?.description == "195.00")
            // C-CON-2: the CHF contract has no rate: no monthly or yearly value, out of the totals, with a notice.
            let skiing = try #require(list.items.first { $0.currency == "CHF" })
            #expect(skiing.monthly == nil && skiing.yearly == nil)
            #expect(
                list.warnings.contains { if case .missingExchangeRate("CHF", _, _, _) = $0 { true } else { false } })
            let monthly = list.items.compactMap(\.monthly).reduce(Amount.zero, +)
            let yearly = list.items.compactMap(\.yearly).reduce(Amount.zero, +)
            #expect(list.monthlyTotal == monthly && list.yearlyTotal == yearly)
            let accounts = AccountsModel(server: account.server)
            await accounts.load()
            let depot = try #require(accounts.state.value?.first { $0.name == "Depot" })
            #expect(depot.currency == "USD")
            #expect(depot.money.formatted(.english).hasPrefix("$"))
            #expect(accounts.state.value?.map(\.currency) == ["EUR", "EUR", "USD"])
        }

        @Test("C-TXN-1: the server's search folds case by Unicode rules: „süd“ finds ALDI SÜD")
        @MainActor func searchFoldsCase() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(server: account.server)
            model.searchText = "süd"
            await model.submit()
            let items = try #require(model.state.value?.items)
            #expect(!items.isEmpty)
            #expect(items.allSatisfy { $0.counterparty == "ALDI SÜD" })
        }

        @Test(
            "C-ERR-1: a screen is loading, content, empty or failed; a failed refresh keeps the content and adds the error"
        )
        @MainActor func screensHaveFourStates() async throws {
            let account = try await server.connect()
            let model = AccountsModel(server: account.server)
            #expect(model.state == .loading)
            try await server.post("/_control/fail", ["path": "/api/accounts", "status": 500, "times": 20])
            await model.load()
            #expect(model.state == .failed(reason: "Vom Test ausgelöster Fehler.", signInRequired: false))
            try await server.post("/_control/fail", ["path": "/api/accounts", "times": 0])
            await model.load()
            guard case .content(let accounts, _) = model.state else { throw Failure("\(model.state)") }
            try await server.post("/_control/fail", ["path": "/api/accounts", "status": 500, "times": 20])
            await model.load()
            #expect(model.state.value == accounts && model.state.problem == "Vom Test ausgelöster Fehler.")
            // An answer with nothing in it is empty, not content.
            let search = TransactionsModel(server: account.server)
            search.searchText = "nothing matches this"
            await search.submit()
            guard case .empty = search.state else { throw Failure("not empty: \(search.state)") }
        }
    }
}
