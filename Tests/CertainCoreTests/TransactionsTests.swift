import CertainCore
import CompanionCore
import Foundation
import Testing

extension CertainServer {
    /// The transactions tab on the `edge` fixture: hand-made shapes, found by purpose, never by id.
    @Suite struct TransactionsTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset("edge")
        }

        func queries(_ log: [LoggedRequest]) -> [String] {
            log.filter { $0.path == "/api/transactions" }.map(\.query)
        }

        @Test("C-TXN-1 C-TXN-2 C-TXN-3 O-10: typing sends nothing; each submit sends one request; a filter at once")
        @MainActor func searchOnSubmitFilterAtOnce() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(connection: account.connection, pageSize: 3)
            await model.load()
            try await server.clearRequests()
            for text in ["B", "Bä", "Bäc", "Bäcker"] { model.searchText = text }
            #expect(queries(try await server.requests()).isEmpty)
            await model.submit()
            await model.submit()
            var log = queries(try await server.requests())
            #expect(log.count == 2)
            #expect(log.allSatisfy { $0.contains("q=B%C3%A4cker") })
            #expect(model.state.value?.items.allSatisfy { $0.counterparty?.hasPrefix("Bäcker") == true } == true)
            await model.clearSearch()
            let accounts = await account.connection.resolving().accounts
            let giro = try #require(accounts.first { $0.name == "Girokonto" })
            await model.filter(account: giro.id)
            log = queries(try await server.requests())
            #expect(log.count == 4)
            #expect(!log[2].contains("q="))
            #expect(log[3].contains("account_id=\(giro.id)"))
        }

        @Test("C-TXN-4 C-XFER-3 C-XFER-7: legs on different pages: a lone leg first, one row once the next page comes")
        @MainActor func pagingJoinsASplitPair() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(connection: account.connection, pageSize: 3)
            await model.load()
            let first = try #require(model.state.value)
            #expect(first.items.count == 3 && first.nextCursor != nil)
            guard case .transfer(let lone) = first.rows.first else { throw Failure("\(first.rows)") }
            #expect(!lone.isComplete && lone.legs.map(\.purpose) == ["Split Hin"])
            await model.loadMore()
            let second = try #require(model.state.value)
            guard case .transfer(let pair) = second.rows.first else { throw Failure("\(second.rows)") }
            #expect(pair.isComplete && pair.legs.count == 2)
            #expect(second.rows.count == second.items.count - 1)
            await model.loadAll()
            let all = try #require(model.state.value)
            #expect(all.nextCursor == nil)
            #expect(Set(all.items.map(\.id)).count == all.items.count)  // no id twice
            #expect(all.items.count == 13)
        }

        @Test("C-TXN-5 C-XFER-3 C-XFER-4 C-XFER-5: an account filter keeps a lone leg, marked, pointing by its link")
        @MainActor func filtersKeepLoneLegs() async throws {
            let account = try await server.connect()
            let lookups = try await account.connection.reloadLookups()
            let savings = try #require(lookups.accounts.first { $0.name == "Tagesgeld" })
            let giro = try #require(lookups.accounts.first { $0.name == "Girokonto" })
            let model = TransactionsModel(connection: account.connection)
            await model.filter(account: savings.id)
            let list = try #require(model.state.value)
            let transfers = list.rows.compactMap { if case .transfer(let row) = $0 { row } else { nil } }
            #expect(transfers.count == 2)
            #expect(
                transfers.allSatisfy { !$0.isComplete && $0.fromAccountID == giro.id && $0.toAccountID == savings.id })
            // C-XFER-5: the flea market's +42.00 has no link and stays an ordinary booking.
            #expect(
                list.rows.contains { if case .booking(let t) = $0 { t.counterparty == "Flohmarkt" } else { false } })
            // Only one leg matches the search: it keeps its own row, as a transfer.
            model.searchText = "Urlaubskasse"
            await model.filter(account: nil)
            await model.submit()
            let found = try #require(model.state.value)
            #expect(found.items.count == 1)
            guard case .transfer(let row) = found.rows.first else { throw Failure("\(found.rows)") }
            #expect(!row.isComplete && row.amount.description == "300.00 EUR")
        }

        @Test("C-OVER-5 C-XFER-3: the overview's latest five pair only within themselves; a lone leg stays a row")
        @MainActor func latestFiveAreRowsOfTheirOwn() async throws {
            let account = try await server.connect()
            let model = OverviewModel(connection: account.connection)
            await model.refresh()
            let overview = try #require(model.state.value)
            // Newest first: "Split Hin" is among the five, its partner "Split Her" is not.
            #expect(overview.latest.contains { $0.purpose == "Split Hin" })
            #expect(!overview.latest.contains { $0.purpose == "Split Her" })
            guard case .transfer(let row) = overview.latestRows.first else { throw Failure("\(overview.latestRows)") }
            #expect(!row.isComplete)
            #expect(overview.latestRows.count == 5)
        }

        @Test("C-LOOK-4: unknown ids reload the lookups once, shared by every screen; still unknown → a placeholder")
        @MainActor func unknownIdsReloadOnce() async throws {
            let account = try await server.connect()
            try await server.clearRequests()
            // No lookups loaded yet: every id is unknown to three screens opened together.
            let a = TransactionsModel(connection: account.connection)
            let b = BudgetModel(connection: account.connection)
            let c = ContractsModel(connection: account.connection)
            async let one: Void = a.load()
            async let two: Void = b.load(BudgetMonth("2026-10"))
            async let three: Void = c.load()
            _ = await (one, two, three)
            await a.load()
            let log = try await server.requests()
            #expect(log.filter { $0.path == "/api/categories" }.count == 1)
            #expect(log.filter { $0.path == "/api/tags" }.count == 1)
            #expect(a.lookups.accountName(a.state.value?.items.first?.accountID, Texts(.english)) == "Girokonto")
            #expect(a.lookups.accountName(9_999, Texts(.german)) == "Unbekannt")
            // An id the server does not know either: one more reload, then never again for it.
            #expect(await account.connection.resolving(accounts: [9_999]).account(9_999) == nil)
            #expect(await account.connection.resolving(accounts: [9_999]).account(9_999) == nil)
            #expect(try await server.requests().filter { $0.path == "/api/categories" }.count == 2)
        }

        @Test("C-MONEY-1 C-ACC-1 C-OVER-4: four-decimal USD amounts exact; an empty account; transfers not income")
        @MainActor func edgeAmountsAndAccounts() async throws {
            let account = try await server.connect()
            let accounts = AccountsModel(connection: account.connection)
            await accounts.load()
            let list = try #require(accounts.state.value)
            #expect(list.first { $0.name == "Leeres Konto" }?.balance.description == "0.00")
            #expect(list.first { $0.name == "Depot" }?.money.formatted(.german) == "-12,346\u{00A0}$")
            let model = TransactionsModel(connection: account.connection)
            model.searchText = "Fractional"
            await model.submit()
            #expect(model.state.value?.items.first?.amount.description == "-12.3456")
            let report = try await account.connection.fetch(
                CertainAPI.monthReport.adding(query: ["month": "2026-10"]))
            #expect(report.income.description == "1042.00")  // salary and the flea market; no transfer leg
        }
    }
}
