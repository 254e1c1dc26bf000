import CertainCore
import CompanionCore
import CompanionHTTP
import Foundation
import Testing

extension CertainStandIn {
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

        /// The query items of one logged query string.
        func items(_ query: String) -> [String: String] {
            var items: [String: String] = [:]
            for item in URLComponents(string: "?" + query)?.queryItems ?? [] { items[item.name] = item.value }
            return items
        }

        @Test("C-TXN-1 C-TXN-2 C-TXN-3 O-10: typing sends nothing; each submit sends one request; every filter at once")
        @MainActor func searchOnSubmitFilterAtOnce() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(server: account.server, pageSize: 3)
            #expect(model.pageSize == 3 && !model.isLoadingPage)
            // The page size stays between 1 and the 200 a page of the server holds at most.
            #expect(TransactionsModel(server: account.server, pageSize: 0).pageSize == 1)
            #expect(TransactionsModel(server: account.server).pageSize == 50)
            #expect(TransactionsModel(server: account.server, pageSize: 1).pageSize == 1)
            #expect(TransactionsModel(server: account.server, pageSize: 200).pageSize == 200)
            #expect(TransactionsModel(server: account.server, pageSize: 201).pageSize == 200)
            await model.load()
            #expect(!model.isLoadingPage)
            try await server.clearRequests()
            for text in ["B", "Bä", "Bäc", "Bäcker"] { model.searchText = text }
            #expect(queries(try await server.requests()).isEmpty)
            await model.submit()
            await model.submit()
            var log = queries(try await server.requests())
            #expect(log.count == 2)
            #expect(log.allSatisfy { items($0)["q"] == "Bäcker" })
            #expect(model.state.value?.items.allSatisfy { $0.counterparty?.hasPrefix("Bäcker") == true } == true)
            await model.clearSearch()
            let lookups = await account.server.lookups.current
            let giro = try #require(lookups.accounts.first { $0.name == "Girokonto" })
            await model.filter(account: giro.id)
            log = queries(try await server.requests())
            #expect(log.count == 4)
            #expect(items(log[2])["q"] == nil)
            #expect(items(log[3])["account_id"] == String(giro.id))
            // Category, tag and date range each go to the server as their own parameter, one request each, and
            // what comes back obeys them (the client never filters a list).
            await model.filter(account: nil)
            let groceries = try #require(lookups.categories.first { $0.name == "Lebensmittel" })
            await model.filter(category: groceries.id)
            #expect(model.state.value?.items.isEmpty == false)
            #expect(model.state.value?.items.allSatisfy { $0.categoryID == groceries.id } == true)
            await model.filter(category: nil)
            let holiday = try #require(lookups.tags.first { $0.name == "Urlaub" })
            await model.filter(tag: holiday.id)
            #expect(model.state.value?.items.map(\.counterparty) == ["Ramen Ichiran"])
            await model.filter(tag: nil)
            let (from, to) = (TransferRowTests.day("2026-10-08"), TransferRowTests.day("2026-10-10"))
            await model.filter(from: from, to: to)
            #expect(model.state.value?.items.isEmpty == false)
            #expect(model.state.value?.items.allSatisfy { $0.bookedOn >= from && $0.bookedOn <= to } == true)
            log = Array(queries(try await server.requests()).dropFirst(4))
            #expect(log.count == 6)
            #expect(items(log[1])["category_id"] == String(groceries.id))
            #expect(items(log[3])["tag_id"] == String(holiday.id))
            #expect(items(log[5])["from"] == "2026-10-08" && items(log[5])["to"] == "2026-10-10")
            #expect(log.allSatisfy { items($0)["limit"] == "3" })
        }

        @Test("C-TXN-4 C-XFER-3 C-XFER-7: legs on different pages: a lone leg first, one row once the next page comes")
        @MainActor func pagingJoinsASplitPair() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(server: account.server, pageSize: 3)
            await model.load()
            let first = try #require(model.state.value)
            #expect(first.items.count == 3 && first.nextCursor != nil)
            guard case .transfer(let lone) = first.rows.first else { throw Failure("\(first.rows)") }
            #expect(!lone.isComplete && lone.legs.map(\.purpose) == ["Split Hin"])
            try await server.clearRequests()
            await model.feed?.loadMore()
            #expect(items(try #require(queries(try await server.requests()).first))["cursor"] == first.nextCursor)
            let second = try #require(model.state.value)
            guard case .transfer(let pair) = second.rows.first else { throw Failure("\(second.rows)") }
            #expect(pair.isComplete && pair.legs.count == 2)
            #expect(second.rows.count == second.items.count - 1)
            await model.feed?.loadAll()
            let all = try #require(model.state.value)
            #expect(all.nextCursor == nil)
            #expect(Set(all.items.map(\.id)).count == all.items.count)  // no id twice
            #expect(all.items.count == 16)
            try await server.clearRequests()
            await model.feed?.loadMore()  // the end: nothing is sent
            #expect(queries(try await server.requests()).isEmpty)
        }

        /// Signs in, loads the lookups and filters by the account named `name`.
        @MainActor func filtered(byAccount name: String) async throws -> (TransactionsModel, Lookups, TransactionList) {
            let account = try await server.connect()
            let lookups = try await account.server.lookups.reload()
            let model = TransactionsModel(server: account.server)
            await model.filter(account: try #require(lookups.accounts.first { $0.name == name }).id)
            return (model, lookups, try #require(model.state.value))
        }

        @Test("C-TXN-5 C-XFER-3 C-XFER-4 C-XFER-5: an account filter keeps a lone leg, marked, pointing by its link")
        @MainActor func filtersKeepLoneLegs() async throws {
            let (model, lookups, list) = try await filtered(byAccount: "Tagesgeld")
            let savings = try #require(lookups.accounts.first { $0.name == "Tagesgeld" })
            let giro = try #require(lookups.accounts.first { $0.name == "Girokonto" })
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

        @Test("C-TXN-5 C-XFER-1: an account filter finds a one-piece transfer into that account through to_account_id")
        @MainActor func aOnePieceTransferIsFoundThroughItsTarget() async throws {
            let (_, lookups, list) = try await filtered(byAccount: "Girokonto")
            let giro = try #require(lookups.accounts.first { $0.name == "Girokonto" })
            let cash = try #require(lookups.accounts.first { $0.name == "Bargeld" })
            let deposit = try #require(list.items.first { $0.purpose == "Bareinzahlung" })
            #expect(deposit.accountID == cash.id && deposit.toAccountID == giro.id)  // found by its other side
            let row = try #require(list.rows.first { $0.transactionIDs == [deposit.id] })
            guard case .transfer(let transfer) = row else { throw Failure("\(row)") }
            #expect(transfer.isComplete && transfer.fromAccountID == cash.id && transfer.toAccountID == giro.id)
            #expect(transfer.amount.description == "200.00 EUR")
            let line = TransactionLine(row, lookups: lookups, texts: Texts(.english))
            #expect(line.text(Texts(.english)) == "3 Oct 2026  Transfer from Bargeld to Girokonto  €200.00")
        }

        @Test("docs/cli-json.md: a line's JSON carries the row's members by their documented names")
        @MainActor func aLinesJSONCarriesTheDocumentedMembers() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(server: account.server)
            await model.load()
            await model.feed?.loadAll()
            let lines = model.lines
            func object(_ line: TransactionLine) throws -> [String: JSONValue] {
                let value = JSONValue(data: try JSONEncoder().encode(line))
                guard case .object(let members)? = value else {
                    throw Failure("not an object: \(String(describing: value))")
                }
                return members
            }
            let booking = try #require(lines.first { $0.kind == .booking && $0.categoryID != nil })
            let members = try object(booking)
            #expect(
                Set(members.keys) == [
                    "id", "kind", "transaction_ids", "booked_on", "title", "amount", "currency", "category_id",
                    "category_name", "tag_ids", "tag_names", "complete",
                ])
            #expect(members["booked_on"]?.stringValue == booking.bookedOn.description)
            #expect(members["category_name"]?.stringValue == booking.categoryName)
            #expect(members["tag_names"] == .array(booking.tagNames.map(JSONValue.string)))
            let transfer = try #require(lines.first { $0.kind == .transfer })
            let moved = try object(transfer)
            for key in ["from_account_id", "from_account_name", "to_account_id", "to_account_name", "booked_on"] {
                #expect(moved[key] != nil, "\(key)")
            }
            #expect(moved["to_account_name"]?.stringValue == transfer.toAccountName)
            #expect(moved["category_id"] == nil && moved["category_name"] == nil)
        }

        @Test("C-OVER-5 C-XFER-3: the overview's latest five pair only within themselves; a lone leg stays a row")
        @MainActor func latestFiveAreRowsOfTheirOwn() async throws {
            let account = try await server.connect()
            let model = OverviewModel(server: account.server)
            await model.refresh()
            let overview = try #require(model.state.value)
            // Newest first: "Split Hin" is among the five, its partner "Split Her" is not.
            #expect(overview.latest.contains { $0.purpose == "Split Hin" })
            #expect(!overview.latest.contains { $0.purpose == "Split Her" })
            guard case .transfer(let row) = overview.latestRows.first else { throw Failure("\(overview.latestRows)") }
            #expect(!row.isComplete)
            #expect(overview.latestRows.count == 5)
            #expect(model.latestLines.first?.isComplete == false)
            #expect(model.latestLines.first?.title == "Transfer from Girokonto to Tagesgeld")
        }

        @Test("C-LOOK-4: unknown ids reload the lookups once, shared by every screen; still unknown → a placeholder")
        @MainActor func unknownIdsReloadOnce() async throws {
            let account = try await server.connect()
            // This app's own requests, from its journal: the stand-in's log also holds other suites' traffic, and a
            // model of an earlier test can still read its lookups after a clear under load.
            func reads(_ path: String) -> Int {
                account.environment.journal.events.filter { $0.kind == .request && $0.message.hasSuffix(path) }.count
            }
            let categoriesBefore = reads("/api/categories")
            let tagsBefore = reads("/api/tags")
            try await server.clearRequests()
            // No lookups loaded yet: every id is unknown to three screens opened together.
            let a = TransactionsModel(server: account.server)
            let b = BudgetModel(server: account.server)
            let c = ContractsModel(server: account.server)
            async let one: Void = a.load()
            async let two: Void = b.load(BudgetMonth("2026-10"))
            async let three: Void = c.load()
            _ = await (one, two, three)
            await a.load()
            let log = try await server.requests()
            #expect(reads("/api/categories") - categoriesBefore == 1, "\(log.map(\.path))")
            #expect(reads("/api/tags") - tagsBefore == 1)
            let english = Texts(.english)
            #expect(a.lookups.accountName(a.state.value?.items.first?.accountID, english) == "Girokonto")
            #expect(a.lookups.accountName(9_999, Texts(.german)) == "Unbekannt")
            // A tag deleted on the web, still on a booking: its name is the placeholder, beside the known one,
            // after the one shared reload (and never a request of its own).
            let ramen = try #require(a.lines.first { $0.title == "Ramen Ichiran" })
            #expect(ramen.tagNames == ["Urlaub", "Unknown"])
            #expect(ramen.tagIDs.count == 2)
            #expect(ramen.text(english).hasSuffix("#Urlaub #Unknown"))
            // An id the server does not know either: one more reload, then never again for it.
            #expect(await account.server.lookups.resolving(accounts: [9_999]).account(9_999) == nil)
            #expect(await account.server.lookups.resolving(accounts: [9_999]).account(9_999) == nil)
            let after = try await server.requests()
            #expect(reads("/api/categories") - categoriesBefore == 2)
            #expect(after.allSatisfy { !$0.path.contains(where: \.isNumber) })  // no request per unknown id
        }

        @Test("C-LOOK-4: ids read before a reload that succeeded, asked after it ended, cause no reload of their own")
        @MainActor func idsReadBeforeAReloadShareIt() async throws {
            let account = try await server.connect()
            func reads() -> Int {
                account.environment.journal.events.filter { $0.kind == .request && $0.message.hasSuffix("/api/tags") }
                    .count
            }
            let lookups = account.server.lookups
            let met = Date()  // a second screen's page read now; it asks only after the first screen's reload ended
            _ = await lookups.resolving(tags: [99_991])
            #expect(reads() == 1)
            #expect(await lookups.resolving(tags: [99_992], readAt: met).tag(99_992) == nil)
            #expect(reads() == 1, "the reload after the page was read already left 99992 unknown")
            // A page read after that reload may name a tag made since: it reloads once.
            _ = await lookups.resolving(tags: [99_993], readAt: Date().addingTimeInterval(1))
            #expect(reads() == 2)
        }

        @Test(
            "C-MONEY-1 C-ACC-1 C-OVER-4: exact amounts in their currency's minor units; an empty account; transfers not income"
        )
        @MainActor func edgeAmountsAndAccounts() async throws {
            let account = try await server.connect()
            let accounts = AccountsModel(server: account.server)
            await accounts.load()
            let list = try #require(accounts.state.value)
            #expect(list.first { $0.name == "Leeres Konto" }?.balance.description == "0.00")
            #expect(list.first { $0.name == "Depot" }?.money.formatted(.german) == "-12,346\u{00A0}$")
            let model = TransactionsModel(server: account.server)
            model.searchText = "Fractional"
            await model.submit()
            #expect(model.state.value?.items.first?.amount.description == "-12.3456")
            #expect(model.lines.first?.text(Texts(.english)).contains("-$12.3456") == true)
            // A yen amount has no minor unit: no decimals, in both languages.
            model.searchText = "Ramen"
            await model.submit()
            let ramen = try #require(model.state.value?.items.first)
            #expect(ramen.currency == "JPY")
            #expect(ramen.money.formatted(.english) == "-¥1,850")
            #expect(ramen.money.formatted(.german) == "-1.850\u{00A0}¥")
            let report = try await account.server.bundle.client.send(
                CertainAPI.monthReport(BudgetMonth("2026-10")))
            #expect(report.income.description == "1042.00")  // salary and the flea market; no transfer leg
        }

        @Test("C-TXN-2 C-TXN-4: a newer search always wins over a late page of an older one")
        @MainActor func aNewerSearchWinsOverALatePage() async throws {
            let account = try await server.connect()
            let model = TransactionsModel(server: account.server, pageSize: 3)
            await model.load()  // the first page of everything, and the lookups it needed
            #expect(model.state.value?.nextCursor != nil)
            // The server holds the next two requests until both are in, then answers the later one (the newer
            // search) first and the earlier one (the older search's next page) after it.
            try await server.post("/_control/hold", ["count": 2, "timeout_ms": 5000, "release": "last_first"])
            let version = try await server.logVersion()
            let page = Task { await model.feed?.loadMore() }
            try await server.waitForLog(after: version)  // the page's request is in, and held
            model.searchText = "Bäcker"
            let search = Task { await model.submit() }
            await search.value
            await page.value
            #expect(try await server.get("/_control/hold")["reached"]?.boolValue == true)
            let list = try #require(model.state.value)
            #expect(list.query.search == "Bäcker" && model.query.search == "Bäcker")
            #expect(list.items.map(\.counterparty) == ["Bäcker C", "Bäcker B", "Bäcker A"])
            #expect(!model.isLoadingPage)
        }

        @Test("C-BUD-8 C-BUD-10: an amount without an exchange rate is named and left out of its category's actual")
        @MainActor func anAmountWithoutARateIsLeftOut() async throws {
            let account = try await server.connect()
            let budget = BudgetModel(server: account.server)
            await budget.load(BudgetMonth("2026-10"))
            let reply = try #require(budget.state.value)
            let groceries = try #require(budget.lookups.categories.first { $0.name == "Lebensmittel" })
            let line = try #require(reply.groups.flatMap(\.categories).first { $0.categoryID == groceries.id })
            let model = TransactionsModel(server: account.server)
            await model.apply(
                TransactionQuery(
                    categoryID: groceries.id, from: TransferRowTests.day("2026-10-01"),
                    to: TransferRowTests.day("2026-10-31")))
            let items = try #require(model.state.value?.items)
            let snack = try #require(items.first { $0.currency == "USD" })
            let euros = items.filter { $0.currency == "EUR" }.map(\.amount).reduce(Amount.zero, +)
            // The actual is the EUR bookings' only: the USD snack of 12 October is in no sum, never taken 1:1.
            #expect(line.actual.value == -euros.value)
            #expect(line.actual.description == "54.80")
            #expect(
                reply.warnings.contains(
                    .missingExchangeRate(
                        currency: "USD", date: TransferRowTests.day("2026-10-12"), transactionIDs: [snack.id])))
            #expect(reply.isIncomplete)
        }
    }
}
