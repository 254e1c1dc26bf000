import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    /// Runs and Decided page to their end through the kit's paged lists (M-CASE-3's cursor rule, the same for
    /// every list): each next page is asked for with the cursor the last one gave, no id twice, and the pages are
    /// the store's.
    @Suite struct Paging {
        @MainActor @Test func runsPageToTheirEndThroughTheStore() async throws {  // M-CASE-3 (runs)
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let runs = try #require(workspace.runs)
            for name in ["Smoke 1", "Smoke 2", "Smoke 3"] { await runs.plan(name: name, selection: .tag("smoke")) }
            try await server.clearLog()
            let paged = RunsModel(workspace: workspace, project: "shop", pageSize: 2)
            await paged.refresh()
            #expect(paged.state.value?.count == 2)
            #expect(paged.list.hasMore)
            await paged.list.loadAll()
            let ids = try #require(paged.state.value?.map(\.id))
            #expect(ids.count == 5)
            #expect(Set(ids).count == 5)
            #expect(!paged.list.hasMore)
            let reads = try await server.log().filter { $0.method == "GET" && $0.path.hasSuffix("/runs") }
            #expect(reads.count == 3)
            #expect(reads.dropFirst().allSatisfy { $0.query.contains("cursor=") })
            let stored = try #require(try await workspace.server.bundle.store.list("runs:shop"))
            #expect(stored.0.pageCount == 3 && stored.0.isComplete)
        }

        @MainActor @Test func decidedPagesToItsEndThroughTheStore() async throws {  // M-UNDO-4, M-CASE-3
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let queue = try #require(workspace.queue)
            await queue.refresh()
            let review = queue.question("q_1")
            await review.refresh()
            await review.answer("accept")
            let failure = queue.question("q_2")
            await failure.refresh()
            await failure.answer("test_wrong")
            let decided = DecidedModel(workspace: workspace, project: "shop", pageSize: 1)
            await decided.refresh()
            #expect(decided.state.value?.map(\.question.id) == ["q_2"])
            await decided.list.loadAll()
            #expect(decided.state.value?.map(\.question.id) == ["q_2", "q_1", "q_7"])
            #expect(!decided.list.hasMore)
            let stored = try #require(try await workspace.server.bundle.store.list("decided:shop"))
            #expect(stored.0.pageCount == 3)
        }

        @MainActor @Test func aCasesHistoryPagesToItsEndThroughTheStore() async throws {  // M-CASE-5, M-CASE-3
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let root = try #require(workspace.cases)
            let id = try await root.caseID(for: "C-12")  // §2's ids are not the numbers
            let page = root.casePage(id, historyPageSize: 1)
            try await server.clearLog()
            await page.readHistory()
            #expect(page.history?.value?.map(\.version) == [3])
            #expect(page.historyList.hasMore)
            await page.historyList.loadAll()
            #expect(page.history?.value?.map(\.version) == [3, 2, 1])
            #expect(!page.historyList.hasMore)
            let reads = try await server.log().filter { $0.path == "/api/projects/shop/cases/\(id)/versions" }
            #expect(reads.count == 3)
            #expect(reads.dropFirst().allSatisfy { $0.query.contains("cursor=") })
            let stored = try #require(try await workspace.server.bundle.store.list("history:shop:\(id)"))
            #expect(stored.0.pageCount == 3 && stored.0.isComplete)
        }

        @MainActor @Test func theQueuePagesToItsEndWithTheSummaryKept() async throws {  // M-QUEUE-4, M-CASE-3
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let queue = QueueModel(workspace: workspace, project: "shop", pageSize: 2)
            try await server.clearLog()
            await queue.refresh()
            #expect(queue.state.value?.items.count == 2 && queue.list.hasMore)
            await queue.list.loadAll()
            let ids = try #require(queue.state.value?.items.map(\.id))
            #expect(ids.count == 6 && Set(ids).count == 6)
            #expect(queue.state.value?.summaryLine == "1 failure to explain \u{00B7} 5 can wait")
            let reads = try await server.log().filter { $0.path == "/api/projects/shop/queue" }
            #expect(reads.count == 3)
            #expect(reads.dropFirst().allSatisfy { $0.query.contains("cursor=") })
        }
    }
}
