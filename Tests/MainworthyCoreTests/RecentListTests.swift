import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct RecentListsOfCases {
        // M-LIST-1, O-14
        @MainActor @Test func aRecentListShowsAtOnceAndIsReadAgainOnlyAfterTheRevisionRose() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let first = await root.list(.folder(id: "f_3"))
            await first.appearAndRead()
            first.leave()
            let c13 = try await server.caseID("C-13")
            try await server.clearLog()
            let again = await root.list(.folder(id: "f_3"))
            again.appear()
            #expect(again.state.value?.rows == first.rows && !again.state.isLoading)
            #expect(again.reading == nil && !again.isRefreshingInBackground)
            #expect(try await server.log().isEmpty)
            again.leave()
            // Someone edits a case: the revision rises, and the stream tells the tab.
            let other = try await server.retitleElsewhere(c13, to: "Pay by SEPA transfer")
            // The project's revision now, as any list reply carries it (§2's write replies carry none).
            root.projectRevisionChanged(try #require(try await other.read(MainworthyAPI.browse("shop")).revision))
            let third = await root.list(.folder(id: "f_3"))
            third.appear()
            #expect(third.state.value?.rows == first.rows && !third.state.isLoading)
            #expect(third.isRefreshingInBackground)
            await third.reading?.value
            #expect(!third.isRefreshingInBackground)
            #expect(third.state.value?.cases.first { $0.number == "C-13" }?.title == "Pay by SEPA transfer")
            #expect(try await server.log().filter { $0.path == "/api/projects/shop/cases" }.count == 1)
        }

        // M-LIST-1, O-14 through the stream: a root that follows the project's events marks its kept lists
        // for a background read when a case event raises the revision, with no call from the screen.
        @MainActor @Test(.timeLimit(.minutes(1))) func aStreamEventMarksKeptListsForABackgroundRead() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let events = ProjectEvents(workspace: try await server.workspace("ada"), project: "shop")
            defer { events.stop() }
            root.follow(events)
            let first = await root.list(.folder(id: "f_3"))
            await first.appearAndRead()
            first.leave()
            // From the revision the list was read at: nothing after it can be missed (Last-Event-ID).
            events.start(after: root.revision)
            let other = try await server.signedIn("ada")
            let reply = try await server.propose(
                other,
                ProposalBody(
                    .editCase(caseID: try await server.caseID("C-13"), baseVersion: 1),
                    document: CaseDocument(title: "Pay by SEPA transfer", preconditions: "", steps: []), reason: nil))
            #expect(reply.proposal.state == "adopted")
            let revision = try #require(try await other.read(MainworthyAPI.browse("shop")).revision)
            await waitUntilObserved { (events.revision ?? 0) >= revision }
            let again = await root.list(.folder(id: "f_3"))
            again.appear()
            #expect(again.state.value?.rows == first.rows && !again.state.isLoading)
            #expect(again.isRefreshingInBackground)
            await again.reading?.value
            #expect(again.state.value?.cases.first { $0.number == "C-13" }?.title == "Pay by SEPA transfer")
        }

        // M-LIST-2
        @MainActor @Test func leavingA41stListForgetsTheOneLeftLongestAgo() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let oldest = await root.list(.folder(id: "f_3"))
            await oldest.appearAndRead()
            oldest.leave()
            for index in 1...40 {
                let list = await root.list(.tag("tag-\(index)"))
                await list.appearAndRead()
                list.leave()
            }
            #expect(await root.recentListCount() == CasesRootModel.recentListCapacity)
            let reopened = await root.list(.folder(id: "f_3"))
            reopened.appear()
            #expect(reopened.state == .loading && reopened.state.isLoading)
            await reopened.reading?.value
            #expect(reopened.numbers == oldest.numbers)
            let kept = await root.list(.tag("tag-1"))
            kept.appear()
            #expect(kept.state.value != nil && kept.reading == nil)
        }

        // M-LIST-3
        @MainActor @Test func aPullReadsTheListNowWhateverIsKept() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let root = try await server.cases("ada")
            let list = await root.list(.tag("cart"))
            await list.appearAndRead()
            list.leave()
            let again = await root.list(.tag("cart"))
            again.appear()
            #expect(again.reading == nil)
            try await server.clearLog()
            await again.pull()
            #expect(again.reads == 1)
            #expect(try await server.log().map(\.path) == ["/api/projects/shop/cases"])
        }
    }
}
