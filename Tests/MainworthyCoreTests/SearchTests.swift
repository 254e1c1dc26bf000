import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct Search {
        // M-FIND-1, O-15
        @MainActor @Test func aSearchInAFolderFindsHitsInItsSubfoldersAtEveryDepthAndNowhereElse() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let checkout = await root.list(.folder(id: "f_2"))
            await checkout.appearAndRead()
            let search = checkout.openSearch()
            #expect(search.scope == .folder(id: "f_2"))
            search.text = "scenario 16"  // C-16 is in Checkout › Payments › Cards › Visa
            await search.submit()
            #expect(search.numbers == ["C-16"])
            search.text = "scenario 41"  // C-41 is in Unsorted
            await search.submit()
            #expect(search.hits?.value != nil && search.numbers.isEmpty)
            let payments = await root.list(.folder(id: "f_3")).openSearch()
            payments.text = "SCENARIO"
            await payments.submit()
            #expect(payments.numbers == (10...19).map { "C-\($0)" })
        }

        // M-FIND-2
        @MainActor @Test func aSearchInATagFindsOnlyCasesWithThatTag() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let search = try await server.cases("ada").list(.tag("cart")).openSearch()
            #expect(search.scope == .tag("cart"))
            search.text = "cart"
            await search.submit()
            #expect(search.numbers == ["C-1", "C-2", "C-3", "C-4", "C-5"])
        }

        // M-FIND-3
        @MainActor @Test func everywhereSearchesTheWholeProject() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let search = try await server.cases("ada").list(.tag("cart")).openSearch()
            search.everywhere()
            #expect(search.scope == .project)
            search.text = "cart"
            await search.submit()
            #expect(search.numbers.count == 50 && search.hits?.value?.nextCursor != nil)
            await search.results?.loadMore()
            await search.results?.loadMore()
            #expect(search.numbers.count == 120 && search.hits?.value?.isComplete == true)
        }

        // M-FIND-4, O-15
        @MainActor @Test func aCaseNumberFindsThatCaseOnlyInsideTheScope() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let inPayments = await root.list(.folder(id: "f_3")).openSearch()
            for text in ["C-12", "c-12"] {
                inPayments.text = text
                await inPayments.submit()
                #expect(inPayments.numbers == ["C-12"])
            }
            let inMobile = await root.list(.tag("mobile")).openSearch()
            inMobile.text = "C-12"
            await inMobile.submit()
            #expect(inMobile.hits?.value != nil && inMobile.numbers.isEmpty)
            inMobile.everywhere()
            await inMobile.submit()
            #expect(inMobile.numbers == ["C-12"])
            inMobile.text = "C-1"
            await inMobile.submit()
            #expect(inMobile.numbers == ["C-1"])
        }

        // M-FIND-5
        @MainActor @Test func aSearchIsSentOnSubmitAndClosingClearsItAndKeepsNothing() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let list = await root.list(.folder(id: "f_3"))
            await list.appearAndRead()
            let before = list.rows
            try await server.clearLog()
            let search = list.openSearch()
            for prefix in ["P", "Pa", "Pay", "Pay b", "Pay by"] { search.text = prefix }
            #expect(search.sent == 0)
            #expect(try await server.log().isEmpty)
            await search.submit()
            #expect(search.sent == 1 && search.numbers == ["C-12", "C-13"])
            let queries = try await server.log().map(\.query)
            #expect(queries.count == 1 && queries[0].contains("q=Pay") && queries[0].contains("scope=folder"))
            list.closeSearch()
            #expect(list.search == nil && search.text.isEmpty && search.hits == nil)
            #expect(list.rows == before)
            list.leave()
            #expect(await root.recentListCount() == 1)
            // A search shown as a list and left is not kept among the recent lists either.
            let searched = await root.list(.search("Pay", scope: .project))
            await searched.appearAndRead()
            #expect(searched.numbers.contains("C-12"))
            searched.leave()
            #expect(await root.recentListCount() == 1)
            let again = await root.list(.search("Pay", scope: .project))
            #expect(again.state == .loading)
        }
    }
}
