import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    /// Screens observe the store: a write on one screen reaches every other screen showing the same data, with no
    /// pull and no request.
    @Suite struct Observing {
        // M-SAVE-1, M-CASE-3: the saved title on the open list, with no pull (runs on the §2-only stand-in too).
        @MainActor @Test(.timeLimit(.minutes(1))) func aCaseSavedOnOneScreenShowsItsNewTitleOnTheOpenCaseList()
            async throws
        {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let list = await root.list(.all)
            await list.appearAndRead()
            await list.list.loadAll()
            let before = try #require(list.state.value?.cases.first { $0.number == "C-30" })
            let page = try await root.casePage(number: "C-30")
            await page.refresh()
            let editor = try #require(await page.edit())
            editor.setTitle("Checkout scenario 30, clearer")
            try await server.clearLog()
            await editor.save()
            #expect(editor.outcome == .adopted(caseID: before.id, version: 2))
            let shown = await waitUntilObserved(upTo: .seconds(10)) {
                list.state.value?.cases.first { $0.id == before.id }?.title == "Checkout scenario 30, clearer"
            }
            #expect(shown)
            #expect(list.state.value?.cases.first { $0.id == before.id }?.version == 2)
            #expect(list.state.value?.cases.count == 120)
            #expect(list.reads == 1)
            #expect(try await server.log().filter { $0.method == "GET" && $0.path.hasSuffix("/cases") }.isEmpty)
        }

        // M-CHG-4 through the store: a change event is a write of the stored list, so a second Changes screen that
        // follows no stream shows the row too, with no read of its own.
        @MainActor @Test(.timeLimit(.minutes(1))) func aChangeEventReachesEveryChangesScreenThroughTheStore()
            async throws
        {
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let events = ProjectEvents(workspace: workspace, project: "shop")
            defer { events.stop() }
            let following = ChangesModel(workspace: workspace, project: "shop", events: events)
            await following.refresh()
            let other = ChangesModel(workspace: workspace, project: "shop")
            await other.refresh()
            let reply = try await server.report(PipelineReport(commit: "9f9f9f9", branch: "feat/live"))
            let id = try #require(reply.change)
            #expect(await waitUntilObserved(upTo: .seconds(20)) { other.state.value?.first?.id == id })
            #expect(other.state.value?.count == 4)
            #expect(other.listReads == 1 && other.rowReads == 0)
        }

        // M-LIST-1, O-14 (issue 37, item 3): the Cases tab starts the project's stream when it is read, not only
        // Changes; a list kept from before another person's save is then read again behind its rows with no pull.
        // On the §2-only stand-in a write reply carries no revision, so only the stream can tell the tab.
        @MainActor @Test(.timeLimit(.minutes(1))) func theCasesTabRunsTheStreamSoAKeptListLearnsOfASaveElsewhere()
            async throws
        {
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            defer { workspace.close() }
            let root = try #require(workspace.cases)
            let events = try #require(workspace.events)
            await root.refresh()
            #expect(events.status == .running)
            let payments = await root.list(.folder(id: "f_3"))
            await payments.appearAndRead()
            let kept = try #require(payments.state.value?.revision)
            payments.leave()
            let c13 = try await root.caseID(for: "C-13")
            try await server.retitleElsewhere(c13, to: "Pay by SEPA transfer")
            #expect(await waitUntilObserved(upTo: .seconds(10)) { root.revision > kept })
            let again = await root.list(.folder(id: "f_3"))
            again.appear()
            #expect(again.isRefreshingInBackground)
            await again.reading?.value
            #expect(again.state.value?.cases.first { $0.id == c13 }?.title == "Pay by SEPA transfer")
        }
    }
}
