import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct Cases {
        // M-CASE-1, O-19
        @MainActor @Test func theRootListsAllCasesTopFoldersSixMostUsedTagsAndAllTags() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            await root.refresh()
            // §2's browse reply has no count; a server that sends one is shown it.
            #expect(root.state.value?.caseCount == (ReferenceServer.specOnly ? nil : 120))
            #expect(root.folders.map(\.name) == ["Unsorted", "Checkout", "Legal"])
            #expect(root.folders.first?.system == true)
            #expect(root.topTags.map(\.name) == ["smoke", "regression", "payments", "mobile", "cart", "a11y"])
            await root.readAllTags()
            #expect(root.allTags.value?.map(\.name).suffix(3) == ["slow", "legacy", "nightly"])
            #expect(root.allTags.value?.count == 9)
            let all = await root.list(.all)
            await all.appearAndRead()
            #expect(all.numbers.first == "C-1" && all.numbers.count == 50)
        }

        // M-CASE-2
        @MainActor @Test func aFolderListsItsSubfoldersFirstThenOnlyItsOwnCases() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let payments = await root.list(.folder(id: "f_3"))
            await payments.appearAndRead()
            #expect(payments.rows.first == .folder(FolderRef(id: "f_5", name: "Cards")))
            #expect(payments.numbers == ["C-10", "C-11", "C-12", "C-13", "C-14", "C-17", "C-18", "C-19"])
            #expect(payments.state.value?.folder?.path.map(\.name) == ["Checkout", "Payments"])
            let cards = await root.list(.folder(id: "f_5"))
            await cards.appearAndRead()
            #expect(cards.rows.first == .folder(FolderRef(id: "f_6", name: "Visa")) && cards.numbers == ["C-15"])
        }

        // M-CASE-2 (mutation survivor m-88ed962de0): a folder whose own page cannot be read shows that failure,
        // never its cases without the folder's subfolders and path.
        @MainActor @Test func aFolderWhosePageCannotBeReadShowsTheFailureNotHalfAList() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            try await server.fail("/api/projects/shop/folders/f_3", status: 404)
            let payments = await root.list(.folder(id: "f_3"))
            await payments.appearAndRead()
            #expect(payments.state.kind == .failed, "\(payments.state)")
            #expect(payments.rows.isEmpty)
        }

        // M-CASE-3
        @MainActor @Test func theEndOfAListReadsTheNextPageByCursorWithNoIdTwice() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let all = await root.list(.all)
            await all.appearAndRead()
            #expect(all.state.value?.nextCursor != nil)
            try await server.clearLog()
            await all.list.loadMore()
            #expect(all.numbers.count == 100)
            // A case made meanwhile comes on the last page; nothing is listed twice.
            let other = try await server.signedIn("ada")
            _ = try await server.propose(
                other,
                ProposalBody(
                    .createCase(folderID: "f_2"), document: CaseDocument(title: "Aaa first", steps: []), reason: nil))
            await all.list.loadMore()
            await all.list.loadMore()
            let ids = all.state.value?.cases.map(\.id) ?? []
            #expect(Set(ids).count == ids.count && ids.count == 121)
            #expect(all.state.value?.isComplete == true)
            let reads = try await server.log().filter { $0.path == "/api/projects/shop/cases" }
            #expect(reads.count == 2 && reads.allSatisfy { $0.query.contains("cursor=") })
            // C-1 starts to match after the first page was read: the server's pages shift by one, so the
            // last row of page 1 comes again on page 2 and is listed once (113 rows, not 114 with a twin).
            let search = await root.list(.all).openSearch()
            search.text = "checkout scenario"
            await search.submit()
            let firstPage = search.cases.map(\.id)
            #expect(firstPage.count == 50)
            _ = try await server.propose(
                other,
                ProposalBody(
                    .editCase(caseID: try await server.caseID("C-1"), baseVersion: 1),
                    document: CaseDocument(title: "Checkout scenario one", steps: []), reason: nil))
            await search.results?.loadMore()
            await search.results?.loadMore()
            let hits = search.cases.map(\.id)
            #expect(Set(hits).count == hits.count && hits.count == 113 && search.hits?.value?.isComplete == true)
            let c1 = try await server.caseID("C-1")
            #expect(Array(hits.prefix(50)) == firstPage && !hits.contains(c1))
        }

        // M-CASE-4, O-13
        @MainActor @Test func aRowsMarkIsTheWorstCurrentResultOnTheCurrentVersion() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let connection = try await server.signedIn("ada")
            let body = try PlanBody.make(name: "Marks", selection: .tag("cart"), commit: "d4e5f6a").get()
            let planned = try await connection.perform(connection.command(MainworthyAPI.plan("shop", body)))
            let run = try await connection.read(MainworthyAPI.run("shop", planned.run.id))
            func slot(_ number: String) throws -> String {
                try #require(run.slots.first { $0.case.number == number }).id
            }
            for (number, outcome) in [("C-1", Outcome.fail), ("C-2", .blocked), ("C-3", .skip)] {
                _ = try await connection.perform(
                    connection.command(
                        MainworthyAPI.record(
                            "shop", run: run.id, slot: try slot(number),
                            ResultBody(outcome: outcome, note: nil, failedStep: nil))))
            }
            try await server.report([
                "commit": "d4e5f6a", "job": "e2e",
                "results": [["test": "cart › totals", "outcome": "error", "message": "boom", "cases": ["C-5"]]],
            ])
            let root = try await server.cases("ada")
            let cart = await root.list(.tag("cart"))
            await cart.appearAndRead()
            let marks = Dictionary(
                uniqueKeysWithValues: (cart.state.value?.cases ?? []).map { ($0.number, $0.mark) })
            // C-1 fail (over an older pass) → cross; C-2 blocked (over passes) → triangle; C-3 skip is
            // ignored, its pass counts → tick; C-4 has no result → none; C-5 a pipeline error → cross.
            #expect(marks == ["C-1": .cross, "C-2": .triangle, "C-3": .tick, "C-4": .none, "C-5": .cross])
            // C-12's failure is on version 2; the current version is 3 → no mark.
            let payments = await root.list(.folder(id: "f_3"))
            await payments.appearAndRead()
            #expect(payments.state.value?.cases.first { $0.number == "C-12" }?.mark == CaseMark.none)
        }

        // M-CASE-5
        @MainActor @Test func aCasePageShowsVersionPreconditionsStepsAndWhoMayRunItAndItsHistory() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await server.cases("ada").casePage(number: "C-12")
            await page.refresh()
            let value = try #require(page.state.value)
            #expect(value.version == 3 && value.title == "Pay by card")
            #expect(value.preconditions == "Signed in as a customer with a filled cart.")
            #expect(value.steps.map(\.action) == ["Open the cart", "Follow scenario 12", "Submit"])
            #expect(value.runnableBy == "Anyone who may produce evidence")
            await page.readHistory()
            let history = try #require(page.history?.value)
            #expect(history.map(\.version) == [3, 2, 1])
            #expect(history.allSatisfy { $0.author.name == "ada" })
            #expect(history.map(\.reason) == ["Card form changed", "Card form changed", nil])
            #expect(history[0].at > history[2].at)
        }

        // M-CASE-6
        @MainActor @Test func anOlderVersionIsReadOnlyWithTheCurrentFolderAndTags() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let current = try await server.cases("ada").casePage(number: "C-12")
            await current.refresh()
            let old = current.version(1)
            await old.refresh()
            let value = try #require(old.state.value)
            #expect(old.shownVersion == 1 && old.currentVersion == 3 && value.title == "Pay by card (version 1)")
            #expect(value.steps.first?.action == "Open the old card form")
            #expect(value.folder.name == "Payments" && value.tags == ["payments", "regression", "smoke"])
            let editor = await old.edit()
            #expect(old.isReadOnly && !old.canEdit && editor == nil)
            // Read-only comes from the version read against the case's current version, read once: asked for by
            // number, the current version itself is editable; an older one read twice reads the current once.
            let root = try await server.cases("ada")
            let id = try await root.caseID(for: "C-12")
            let sameAsCurrent = root.casePage(id).version(3)
            await sameAsCurrent.refresh()
            #expect(!sameAsCurrent.isReadOnly && sameAsCurrent.canEdit)
            let first = root.casePage(id).version(2)
            try await server.clearLog()
            await first.refresh()
            await first.refresh()
            #expect(first.isReadOnly && first.currentVersion == 3)
            let currentReads = try await server.log().filter { $0.path == "/api/projects/shop/cases/\(id)" }
            #expect(currentReads.count == (ReferenceServer.specOnly ? 1 : 0))
            let reopened = old.openCurrent()
            await reopened.refresh()
            #expect(reopened.state.value?.version == 3 && !reopened.isReadOnly && reopened.canEdit)
        }

        // M-FIND-4: a case asked for by its number (`C-12`, any letter case) is found by the number search, since
        // §2's `{id}` is the case's id; anything else (`C-` alone, an id) is taken as the id, with nothing looked up.
        @MainActor @Test func aCaseNumberIsLookedUpAndAnythingElseIsTheId() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let id = try await root.caseID(for: " c-12 ")
            #expect(try await root.caseID(for: "C-12") == id)
            try await server.clearLog()
            #expect(try await root.caseID(for: "C-") == "C-")
            #expect(try await root.caseID(for: id) == id)
            #expect(try await root.caseID(for: "C-1x") == "C-1x")
            // Every character after `C-` is a digit, the first included (mutation survivor m-0e6e098c97).
            #expect(try await root.caseID(for: "C-x1") == "C-x1")
            #expect(try await server.log().isEmpty)
            // A one-digit number is a number too: looked up, never taken as the id.
            let first = try await root.caseID(for: "C-1")
            #expect(try await server.log().count == 1)
            let page = root.casePage(first)
            await page.refresh()
            #expect(page.state.value?.number == "C-1")
            await #expect(
                throws: MainworthyError.refused(
                    ServerRefusal(status: 404, code: "not_found", message: "There is no case C-999 in this project."))
            ) {
                try await root.caseID(for: "C-999")
            }
        }

        // M-CASE-7
        @MainActor @Test func aCasePageOffersItsWebURL() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await server.cases("ada").casePage(number: "C-12")
            await page.refresh()
            #expect(page.webURL?.absoluteString == server.url.absoluteString + "/shop/cases/12")
        }
    }
}
