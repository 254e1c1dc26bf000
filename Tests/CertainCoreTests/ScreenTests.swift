import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation
import Testing

extension CertainServer {
    /// The tab models against the reference server.
    @Suite struct ScreenTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        @Test(
            "C-OVER-1 C-OVER-2 C-OVER-5 C-OVER-6: four requests at once, held by the server until all four arrived; one fetch time"
        )
        @MainActor func overviewFetchesFourTogether() async throws {
            let account = try await server.connect()
            try await server.post("/_control/hold", ["count": 4, "timeout_ms": 4000])
            let model = OverviewModel(connection: account.connection)
            try await server.clearRequests()
            await model.refresh()
            #expect(try await server.get("/_control/hold")["reached"]?.boolValue == true)
            guard case .content(let overview, _) = model.state else { throw Failure("no content: \(model.state)") }
            #expect(Overview.sections == ["overview.month", "overview.budget", "overview.accounts", "overview.latest"])
            // C-OVER-5: the latest five go through the transactions tab's row builder; C-OVER-6: the accounts
            // reply refreshes the accounts lookup.
            #expect(overview.latestRows == TransactionRows.rows(overview.latest))
            #expect(await account.connection.lookups.accounts == overview.accounts)
            #expect(overview.latest.count == 5)
            #expect(overview.accounts.map(\.name) == ["Girokonto", "Tagesgeld", "Depot"])
            let paths = try await server.requests().prefix(4).map { $0.path + ($0.query.isEmpty ? "" : "?" + $0.query) }
            #expect(Set(paths) == ["/api/reports/month", "/api/budget", "/api/accounts", "/api/transactions?limit=5"])
        }

        @Test("C-OVER-3 C-ERR-1: one of four fails → nothing new shown or stored; the old snapshot keeps its time")
        @MainActor func oneFailureKeepsThePreviousSnapshot() async throws {
            let account = try await server.connect()
            let connection = CertainConnection(
                client: account.connection.client,
                store: try CertainAccount.offlineStore(for: account.stored.account, in: nil),
                language: .english)
            let model = OverviewModel(connection: connection)
            await model.refresh()
            guard case .content(let first, let fetchedAt) = model.state else { throw Failure("\(model.state)") }
            // More failures than the client's retry policy retries: the refresh fails for good.
            try await server.post("/_control/fail", ["path": "/api/budget", "status": 500, "times": 20])
            await model.refresh()
            guard case .stale(let kept, _, let problem?) = model.state else { throw Failure("\(model.state)") }
            #expect(kept == first)
            #expect(problem.contains("Vom Test") || problem.contains("500"))
            // A new model over the same store sees the first snapshot, with its own fetch time.
            let stored: Stored<Overview>? = await connection.stored("overview")
            #expect(abs((stored?.fetchedAt ?? .distantPast).timeIntervalSince(fetchedAt)) < 0.001)
        }

        @Test("C-OFF-1 C-OFF-2 C-OFF-4: offline, the last snapshot and each viewed tab show with their time; per user")
        @MainActor func offlineShowsTheLastSnapshotWithItsTime() async throws {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let account = try await server.connect(folder: folder)
            try await account.connection.reloadLookups()
            let online = OverviewModel(connection: account.connection)
            await online.refresh()
            let budget = BudgetModel(connection: account.connection)
            await budget.load(BudgetMonth("2026-10"))
            await ContractsModel(connection: account.connection).load()
            await AccountsModel(connection: account.connection).load()
            guard case .content(let snapshot, let fetchedAt) = online.state else { throw Failure("\(online.state)") }
            // The same account with the server unreachable (a closed port).
            let dead = try #require(URL(string: "http://127.0.0.1:9"))
            let offlineClient = CertainAccount.client(
                address: dead, session: account.session, language: .english, transportPolicy: ReferenceServer.policy)
            let offline = CertainConnection(
                client: offlineClient, store: try CertainAccount.offlineStore(for: account.stored.account, in: folder),
                language: .english)
            let model = OverviewModel(connection: offline)
            await model.refresh()
            guard case .offline(let shown, let age, _) = model.state else { throw Failure("\(model.state)") }
            #expect(shown == snapshot)
            #expect(age >= 0 && age < 120)
            _ = fetchedAt
            let offlineBudget = BudgetModel(connection: offline)
            await offlineBudget.load(BudgetMonth("2026-10"))
            #expect(offlineBudget.state.value?.month.description == "2026-10")
            let contracts = ContractsModel(connection: offline)
            await contracts.load()
            #expect(contracts.state.value?.items.isEmpty == false)
            let accounts = AccountsModel(connection: offline)
            await accounts.load()
            #expect(accounts.state.value?.count == 3)
            #expect(await offline.resolving().categories.isEmpty == false)  // the lookups, offline
            // C-OFF-4: another user on the same device and folder sees none of it.
            let other = try await server.connect("other", folder: folder)
            let theirs: Stored<Overview>? = await other.connection.stored("overview")
            #expect(theirs == nil)
            // C-OFF-3: a search submitted offline says it needs a connection; no local search.
            let search = TransactionsModel(connection: offline)
            search.searchText = "REWE"
            await search.submit()
            #expect(search.state == .failed(reason: Texts(.english)["error.needs_connection"], signInRequired: false))
        }

        @Test("C-OFF-5 C-TOK-6: a revoked token signs out and wipes this server and user's offline data")
        @MainActor func revocationWipesOfflineData() async throws {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let account = try await server.connect(folder: folder)
            let model = OverviewModel(connection: account.connection)
            await model.refresh()
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasSuffix(".sqlite") })
            let cookie = try await server.webCookie("plain")
            var revoke = Request<Void>.empty(.delete, "/api/inbox/tokens/\(account.stored.serverID ?? "")")
            revoke.headers["Cookie"] = cookie
            _ = try await server.anonymousClient().send(revoke)
            await model.refresh()
            #expect(model.state == .failed(reason: "The device token was revoked.", signInRequired: true))
            #expect(await account.connection.isRevoked)
            #expect(try account.secrets.load(account.stored.account) == nil)  // signed out, token deleted
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!files.contains { $0.contains(".sqlite") }, "\(files)")
            let reopened = CertainConnection(
                client: account.connection.client,
                store: try CertainAccount.offlineStore(for: account.stored.account, in: folder), language: .english)
            let gone: Stored<Overview>? = await reopened.stored("overview")
            #expect(gone == nil)
        }

        @Test("C-BUD-2: back and forward request exactly the reply's prev and next; prev of October skips September")
        @MainActor func budgetPagesByTheReply() async throws {
            let account = try await server.connect()
            let model = BudgetModel(connection: account.connection)
            await model.load(BudgetMonth("2026-10"))
            #expect(model.state.value?.prev == "/api/budget?month=2026-08")
            #expect(!model.canGoForward)
            try await server.clearRequests()
            await model.previous()
            #expect(model.state.value?.month.description == "2026-08")
            await model.next()
            #expect(model.state.value?.month.description == "2026-10")
            await model.next()  // null: nothing is sent
            let log = try await server.requests()
            #expect(log.map { "\($0.path)?\($0.query)" } == ["/api/budget?month=2026-08", "/api/budget?month=2026-10"])
        }

        @Test("C-BUD-1 C-BUD-3 C-BUD-4 C-BUD-5 C-BUD-6 C-BUD-7 C-BUD-8 C-BUD-9 C-BUD-10 C-OVER-6: October as sent")
        @MainActor func octoberBudgetWithEveryWarning() async throws {
            let account = try await server.connect()
            let model = BudgetModel(connection: account.connection)
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
            #expect(try line("Bücher").planned == .zero && (try line("Bücher").isRed))
            let living = try #require(reply.groups.first { $0.name == "Lebenshaltung" })
            #expect(!living.isRed)  // groceries over, restaurants under by more
            #expect(try #require(reply.groups.first { $0.name == "Wohnen" }).isRed)
            #expect(reply.isIncomplete)
            #expect(
                reply.warnings.contains {
                    if case .contractWithoutCategory(_, "Fitnessstudio", _) = $0 { true } else { false }
                })
            #expect(
                reply.warnings.contains {
                    $0
                        == .missingExchangeRate(
                            currency: "USD", date: TransferRowTests.day("2026-10-12"), transactionIDs: $0.ids)
                })
            // C-BUD-10: the group's sums are shown as the server sent them.
            let wohnen = try #require(reply.groups.first { $0.name == "Wohnen" })
            #expect(wohnen.planned.description == "1030.00")
            // A month without a budget: no groups, no notices.
            await model.load(BudgetMonth("2026-09"))
            #expect(model.state.value?.isEmpty == true)
            #expect(model.state.value?.isIncomplete == false)
        }

        @Test("C-CON-1 C-CON-2 C-CON-3 C-ACC-1: contracts with the server's sums; accounts in their own currency")
        @MainActor func contractsAndAccounts() async throws {
            let account = try await server.connect()
            let contracts = ContractsModel(connection: account.connection)
            await contracts.load()
            let list = try #require(contracts.state.value)
            let gym = try #require(list.items.first { $0.name == "Fitnessstudio" })
            #expect(gym.categoryID == nil)  // listed like any other
            #expect(
                gym.rhythm == .monthly && gym.monthly?.description == "29.90" && gym.yearly?.description == "358.80")
            let cleaner = try #require(list.items.first { $0.name == "Putzhilfe" })
            #expect(
                cleaner.rhythm == .weekly && cleaner.yearly?.description == "2340.00"
                    && cleaner.monthly?.description == "195.00")
            let skiing = try #require(list.items.first { $0.currency == "CHF" })
            #expect(skiing.monthly == nil)  // no rate: out of the totals, with a notice
            #expect(list.warnings.contains { if case .missingExchangeRate("CHF", _, _) = $0 { true } else { false } })
            let accounts = AccountsModel(connection: account.connection)
            await accounts.load()
            let depot = try #require(accounts.state.value?.first { $0.name == "Depot" })
            #expect(depot.currency == "USD")
            #expect(depot.money.formatted(.english).hasPrefix("$"))
        }
    }
}

extension BudgetNotice {
    /// The transaction ids of a missing-rate notice (empty otherwise).
    var ids: [Int] {
        if case .missingExchangeRate(_, _, let ids) = self { return ids }
        return []
    }
}
