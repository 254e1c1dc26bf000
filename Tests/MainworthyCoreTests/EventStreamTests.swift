import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct EventStream {
        /// A workspace, the project's stream (reconnects at once: the test sleeper does not wait) and the
        /// changes list following it, read once.
        @MainActor static func live(_ server: ReferenceServer) async throws -> (ChangesModel, ProjectEvents) {
            let workspace = try await server.workspace("ada")
            let events = ProjectEvents(workspace: workspace, project: "shop")
            let list = ChangesModel(workspace: workspace, project: "shop", events: events)
            await list.refresh()
            return (list, events)
        }

        @MainActor @Test func theRevisionOnlyRisesFromNothingSeen() async throws {
            // O-14, M-LIST-1: `revision` is the highest revision seen, so a screen refreshes once it rises. Nothing
            // seen stands below every revision (`Int.min` is the floor, never a revision), a lower or equal one
            // changes nothing.
            let server = try ReferenceServer()
            try await server.reset()
            let events = ProjectEvents(workspace: try await server.workspace("ada"), project: "shop")
            events.note(revision: Int.min)
            #expect(events.revision == nil)
            events.note(revision: 5)
            events.note(revision: 3)
            events.note(revision: 5)
            #expect(events.revision == 5)
            events.note(revision: 6)
            #expect(events.revision == 6)
            // Each delivered event is counted, its id kept as where to resume, a reset counted, a revision noted.
            #expect(events.received == 0 && events.resets == 0)
            events.deliver(ProjectEvent(kind: "case", id: "7", revision: 7))
            events.deliver(ProjectEvent(kind: "reset"))
            #expect(events.received == 2 && events.resets == 1 && events.lastEventID == "7" && events.revision == 7)
            #expect(ProjectEvent(kind: "reset").isReset && !ProjectEvent(kind: "change").isReset)
            events.start(after: nil)
            #expect(events.status == .running)
            events.stop()
            #expect(events.status == .idle)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func aReportReachesTheListLiveAtTheTop() async throws {
            // M-CHG-4: a `change` event inserts its row at the top, without reading the list again.
            let server = try ReferenceServer()
            try await server.reset()
            let (list, events) = try await Self.live(server)
            defer { events.stop() }
            let reply = try await server.report(PipelineReport(commit: "9f9f9f9", branch: "feat/live"))
            let id = try #require(reply.change)
            await waitUntilObserved { list.state.value?.first?.id == id }
            #expect(list.state.value?.count == 4 && list.listReads == 1)
            #expect(list.state.value?.first?.gate?.verdict == .passing)
            // §2's event data is {"id", "state", "head", "gate"}: a row it lacks fields of is read again by id.
            await waitUntilObserved { list.state.value?.first?.ref?.branch == "feat/live" }
            #expect(list.state.value?.first?.updatedAt != nil && list.listReads == 1)
            if ReferenceServer.specOnly { #expect(list.rowReads >= 1) }
            // Every event carries the project's revision; the stream's revision rose with it.
            let revision = try #require(events.revision)
            #expect(revision > 1000)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func anEventInSection2sShapeReadsTheRowItNamesAndNoOther()
            async throws
        {
            // M-CHG-4: §2's event data is {"id", "state", "head", "gate"}; in §2's own shape (whatever the run's),
            // the row the event names is read again by id, and only that row changes.
            let server = try ReferenceServer()
            try await server.reset(shape: "spec")
            let (list, events) = try await Self.live(server)
            defer { events.stop() }
            let before = try #require(list.state.value).map { "\($0.id) \($0.ref?.branch ?? "-")" }
            let reply = try await server.report(PipelineReport(commit: "9f9f9f9", branch: "feat/live"))
            let id = try #require(reply.change)
            let read = await waitUntilObserved(upTo: .seconds(20)) {
                list.state.value?.first { $0.id == id }?.ref?.branch == "feat/live"
            }
            #expect(read, "the row the event named was read again")
            let rows = try #require(list.state.value)
            #expect(rows.map { "\($0.id) \($0.ref?.branch ?? "-")" } == ["\(id) feat/live"] + before)
            #expect(rows.first?.updatedAt != nil && list.rowReads >= 1 && list.listReads == 1)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func anEventWithoutItsReportTimeReadsTheRowWhichStaysInPlace()
            async throws
        {
            // M-CHG-4 (mutation survivors m-856e68eaf1, m-7ffa03901c): an event without its report's time has its
            // row read again by id; a row whose report time did not change stays where it is.
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let list = ChangesModel(workspace: workspace, project: "shop")
            await list.refresh()
            let rows = try #require(list.state.value)
            try #require(rows.count >= 2)
            let second = rows[1]
            list.follow(
                ProjectEvent(
                    kind: "change", revision: 1_000,
                    data: [
                        "id": .string(second.id), "state": .string(second.state), "head": .string(second.head),
                        "title": "Not read yet",
                    ]))
            // The row read by id gives its title back; a §2 row has no title (`second.title` is nil there), so
            // the event's own title is all there is to show and only the read itself is checked.
            let read = await waitUntilObserved(upTo: .seconds(20)) {
                list.rowReads >= 1
                    && (ReferenceServer.specOnly
                        || list.state.value?.first { $0.id == second.id }?.title == second.title)
            }
            #expect(read, "the row was read again by id: \(list.rowReads) reads")
            #expect(list.state.value?.map(\.id) == rows.map(\.id))
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func aRowReadAgainWithALaterReportMovesToTheTop() async throws {
            // M-CHG-1, M-CHG-4 (mutation survivor m-5368d0975c): the second row, read again by id after an event
            // without its report's time, shows a later report than the top row's: it moves to the top.
            let server = try ReferenceServer()
            try await server.reset()
            let list = ChangesModel(workspace: try await server.workspace("ada"), project: "shop")
            await list.refresh()
            let rows = try #require(list.state.value)
            try #require(rows.count >= 2 && rows[1].state == "open")
            let second = rows[1]
            _ = try await server.report(PipelineReport(commit: "7e7e7e7", branch: try #require(second.ref?.branch)))
            list.follow(
                ProjectEvent(
                    kind: "change", revision: 1_000,
                    data: ["id": .string(second.id), "state": .string(second.state), "head": .string(second.head)]))
            let moved = await waitUntilObserved(upTo: .seconds(20)) { list.state.value?.first?.id == second.id }
            #expect(moved, "the row read again with a later report moved to the top")
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func aNewChangeWithoutItsBranchIsReadByItsOwnId() async throws {
            // M-CHG-4 (mutation survivor m-856e68eaf1): an event for a change the list does not hold yet, carrying
            // its report's time but not its branch, is judged by its own fields: its row is read again by its id.
            let server = try ReferenceServer()
            try await server.reset()
            let list = ChangesModel(workspace: try await server.workspace("ada"), project: "shop")
            await list.refresh()
            let id = try #require(
                try await server.report(PipelineReport(commit: "8a8a8a8", branch: "feat/new-row")).change)
            list.follow(
                ProjectEvent(
                    kind: "change", revision: 1_000,
                    data: [
                        "id": .string(id), "state": "open", "head": "8a8a8a8",
                        "updated_at": "2026-12-01T10:00:00.000000Z",
                    ]))
            let read = await waitUntilObserved(upTo: .seconds(20)) {
                list.state.value?.first { $0.id == id }?.ref?.branch == "feat/new-row"
            }
            #expect(read, "the new row was read again by its id")
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func aStreamTheServerRefusesEndsAsFailed() async throws {
            // M-CHG-4 (mutation survivor m-7736834c0d): a stream the server refuses ends as failed, saying why,
            // never left as running.
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            try await server.fail("/api/projects/shop/events", status: 403, times: 5)
            let events = ProjectEvents(workspace: workspace, project: "shop")
            events.start(after: 0)
            #expect(events.status == .running)
            let failed = await waitUntilObserved(upTo: .seconds(20)) {
                if case .failed = events.status { return true }
                return false
            }
            #expect(failed, "\(events.status)")
            events.stop()
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func theLiveListStaysAt500() async throws {
            // M-CHG-2, M-CHG-4: a 501st branch arriving by the stream trims the oldest.
            let server = try ReferenceServer()
            try await server.reset()
            try await server.branches(497)
            let (list, events) = try await Self.live(server)
            defer { events.stop() }
            #expect(list.state.value?.last?.id == "ch_3")
            _ = try await server.report(PipelineReport(commit: "5015015", branch: "feat/501st"))
            await waitUntilObserved { list.state.value?.first?.ref?.branch == "feat/501st" }
            #expect(list.state.value?.count == 500)
            #expect(list.state.value?.contains { $0.id == "ch_3" } == false)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func aNewHeadOnTheOpenChangeReadsItsPageAgain() async throws {
            // M-CHG-4, M-CHG-6: the gate turns failing live on the new head.
            let server = try ReferenceServer()
            try await server.reset()
            let (list, events) = try await Self.live(server)
            defer { events.stop() }
            let page = list.change("ch_2")
            await page.refresh()
            #expect(page.state.value?.gate.verdict == .passing)
            let failing = PipelineReport(
                commit: "7a7a7a7", base: "0f0e0d0", branch: "fix/vat",
                results: [.init(test: "vat.spec.ts › rounds half up", outcome: "fail", message: "0.01 off")])
            _ = try await server.report(failing)
            await waitUntilObserved { page.state.value?.head == "7a7a7a7" }
            #expect(page.state.value?.gate.verdict == .failing)
            #expect(page.state.value?.failingTests.first?.message == "0.01 off")
            #expect(page.state.value?.openQuestions.count == 1)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func aStreamCutMidEventResumesWithLastEventID() async throws {
            // M-CHG-11, O-12: the half-sent event is not delivered; the reconnect sends Last-Event-ID and
            // gets it whole, then the rest, each exactly once.
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let events = ProjectEvents(workspace: workspace, project: "shop")
            defer { events.stop() }
            final class Seen { var ids: [String] = [] }
            let seen = Seen()
            events.subscribe(seen) { seen.ids.append($0.subject ?? "?") }
            try await server.cutStream(afterEvents: 1)
            try await server.clearLog()
            var revisions: [Int] = []
            for n in 1...3 { revisions.append(try await server.publish("run", data: ["id": .string("r_cut\(n)")])) }
            let start = revisions[0] - 1
            events.start(after: start)
            await waitUntilObserved { events.received >= 3 || events.status != .running }
            #expect(events.status == .running)
            #expect(seen.ids == ["r_cut1", "r_cut2", "r_cut3"])
            let streams = try await server.log().filter { $0.path == "/api/projects/shop/events" }
            #expect(streams.count == 2)
            // The headers as the server received them: the first connection resumes after the revision it was
            // started after; the reconnect after the one event delivered whole before the cut.
            #expect(streams.map(\.lastEventID) == [String(start), String(revisions[0])])
            #expect(events.lastEventID == String(revisions[2]))
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func moreThan1000EventsWhileAwayGiveResetAndTheListIsReadAgain()
            async throws
        {
            // M-CHG-11: past 1,000 kept events the server sends `reset`; the list is read again.
            let server = try ReferenceServer()
            try await server.reset()
            let (list, events) = try await Self.live(server)
            defer { events.stop() }
            events.stop()
            let resumeAfter = try #require(events.lastEventID ?? events.revision.map(String.init))
            try await server.publish("run", times: 1001, data: ["id": "r_1"])
            _ = try await server.report(PipelineReport(commit: "1234567", branch: "feat/while-away"))
            try await server.clearLog()
            events.start(after: nil)
            await waitUntilObserved { list.listReads == 2 && list.state.value?.first?.ref?.branch == "feat/while-away" }
            #expect(events.resets == 1)
            #expect(list.state.value?.count == 4)
            // The reconnect named where it had stopped (the server found it more than 1,000 events back).
            let streams = try await server.log().filter { $0.path == "/api/projects/shop/events" }
            #expect(streams.first?.lastEventID == resumeAfter)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func a1000EventBacklogIsSentWithoutReset() async throws {
            // M-CHG-11: exactly 1,000 events behind is still a resume, not a reset.
            let server = try ReferenceServer()
            try await server.reset()
            let (list, events) = try await Self.live(server)
            defer { events.stop() }
            events.stop()
            let received = events.received
            try await server.publish("run", times: 1000, data: ["id": "r_1"])
            events.start(after: nil)
            await waitUntilObserved { events.received - received == 1000 }
            #expect(events.resets == 0 && list.listReads == 1)
        }
    }
}
