import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct Runs {
        /// ada on s_2 of r_1, with bo (given produce) filling s_4 meanwhile: ada's page still shows it empty.
        @MainActor static func adaOnS2WhileBoFillsS4(_ server: ReferenceServer) async throws -> RunModel {
            try await server.reset()
            try await server.grant("bo", ["read", "produce"])
            let run = try await openRun(server)
            await run.open("s_2")
            let bosRun = try await openRun(server, user: "bo")
            await bosRun.open("s_4")
            await bosRun.record(.pass)
            return run
        }

        @MainActor static func openRun(_ server: ReferenceServer, user: String = "ada") async throws -> RunModel {
            let run = try #require(try await server.workspace(user).runs?.run("r_1"))
            await run.refresh()
            return run
        }

        @MainActor @Test func theRunPageShowsVerdictAcceptedResultsAndSlotsInOrder() async throws {  // M-RUN-1
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            let value = try #require(run.state.value)
            #expect(value.verdict == RunVerdict(value: "failing", sentence: "1 failure; 3 slots without a result."))
            #expect(value.accepts == RunAccepts(manual: true, commit: "a1b2c3d"))
            #expect(value.slots.map(\.position) == [1, 2, 3, 4, 5])
            #expect(value.slots.map(\.case.number) == ["C-12", "C-1", "C-2", "C-3", "C-4"])
        }

        @MainActor @Test func theRunPageOffersNoSlotAssignmentRequiredJobsOrClosing() async throws {  // M-RUN-12
            // Everything the page offers, done on a live run: the only write is a result; nothing assigns a slot,
            // sets required jobs or closes the run (the run stays open, its slots and their testers unchanged).
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            let before = try #require(run.state.value)
            try await server.clearLog()
            for action in RunModel.Action.allCases { await run.perform(action) }
            await run.open("s_2")
            await run.perform(.record)
            await run.perform(.undo)
            let log = try await server.log()
            let writes = log.filter { $0.method != "GET" }
            #expect(!writes.isEmpty)
            #expect(writes.allSatisfy { $0.method == "POST" && $0.path.hasSuffix("/results") }, "\(writes.map(\.path))")
            #expect(log.allSatisfy { $0.path.hasPrefix("/api/projects/shop/runs/r_1") || $0.path == "/api/projects" })
            await run.refresh()
            let after = try #require(run.state.value)
            #expect(after.isOpen && after.slots.map(\.id) == before.slots.map(\.id))
            #expect(after.slots.map(\.case) == before.slots.map(\.case))
        }

        @MainActor @Test func startOpensTheFirstSlotWithNoResult() async throws {  // M-RUN-2
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            #expect(run.canStart)
            // Steps and a note are offered only on an open slot (mutation survivor m-f173edb0e5), as is recording.
            #expect(run.actions.isDisjoint(with: [.markStep, .note, .record]) && run.actions.contains(.start))
            await run.start()
            #expect(run.openSlot?.slot.id == "s_2")
            #expect(run.actions.isSuperset(of: [.markStep, .note, .record]))
        }

        @MainActor @Test func anySlotOpensWithOrWithoutAResultAtItsPinnedVersion() async throws {  // M-RUN-3, M-RUN-4
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            // A slot with no result, pressed directly: not the one Start opens (s_2), and nothing recorded in it.
            #expect(run.state.value?.slots.first { $0.id == "s_4" }?.result == nil)
            await run.open("s_4")
            let empty = try #require(run.openSlot)
            #expect(empty.slot.id == "s_4" && empty.slot.result == nil && empty.results.isEmpty)
            #expect(empty.case.number == "C-3" && !empty.case.steps.isEmpty && run.problem == nil)
            // A slot with a result opens too, and shows it.
            await run.open("s_1")
            let detail = try #require(run.openSlot)
            #expect(detail.slot.id == "s_1" && detail.slot.result?.outcome == .fail)
            #expect(detail.results.first?.outcome == .fail && detail.results.first?.note == "500 on submit")
            // C-12 is at version 3 now; the run pinned version 2, its old title and first step.
            #expect(detail.case.version == 2 && detail.case.title == "Pay by card (version 2)")
            #expect(detail.case.steps.first?.action == "Open the old card form")
        }

        // M-RUN-5, M-RUN-6, M-RUN-12: `perform` does each action as its button does on the open slot: Mark step
        // marks step 1, Note types the page's note, Record sends a pass with that note (a pass sends no step).
        @MainActor @Test func performMarksTypesAndRecordsOnTheOpenSlot() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            await run.open("s_2")
            await run.perform(.markStep)
            await run.perform(.note)
            #expect(run.draft == SlotDraft(note: "Noted on the run page", markedStep: 1))
            try await server.clearLog()
            await run.perform(.record)
            let sent = try await server.log().posts(endingWith: "/slots/s_2/results")
            #expect(sent.first?.body == ["outcome": "pass", "note": "Noted on the run page"])
        }

        // M-RUN-5, M-RUN-6
        @MainActor @Test func stepsAreMarkedOneAtATimeAndFailSendsTheMarkedStep() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            await run.open("s_2")
            run.pressStep(1)
            run.pressStep(2)
            #expect(run.draft.markedStep == 2)
            run.pressStep(2)
            #expect(run.draft.markedStep == nil)
            run.pressStep(3)
            try await server.clearLog()
            await run.record(.fail)
            await run.open("s_2")
            let result = try #require(run.openSlot?.results.first)
            #expect(result.outcome == .fail && result.failedStep == 3 && result.note == nil)
            // What was sent, as the server received it: the marked step (1-based), and an empty note as null.
            let marked = try await server.log().posts(endingWith: "/slots/s_2/results")
            #expect(marked.first?.body == ["outcome": "fail", "note": .null, "failed_step": 3])
            // A fail with no step marked sends `failed_step: null`, and a pass sends no step at all.
            await run.open("s_4")
            #expect(run.draft.markedStep == nil)
            try await server.clearLog()
            await run.record(.fail)
            await run.open("s_5")
            run.pressStep(1)
            await run.record(.pass)
            let sent = try await server.log().filter { $0.method == "POST" }
            #expect(sent.map(\.path).map { $0.hasSuffix("/slots/s_4/results") } == [true, false])
            #expect(sent.first?.body == ["outcome": "fail", "note": .null, "failed_step": .null])
            #expect(sent.first?.body?["failed_step"] == .some(.null))  // present, and null
            #expect(sent.last?.path.hasSuffix("/slots/s_5/results") == true)
            #expect(sent.last?.body == ["outcome": "pass", "note": .null])
            await run.open("s_4")
            #expect(run.openSlot?.results.first?.outcome == .fail && run.openSlot?.results.first?.failedStep == nil)
            // The server refuses a step with any other outcome.
            let connection = try await server.signedIn("ada")
            let bad = Request<JSONValue>.post(
                "/api/projects/shop/runs/r_1/slots/s_2/results",
                body: ["outcome": "pass", "note": .null, "failed_step": 2] as JSONValue
            ).idempotencyKey("forced-step")
            try await server.clearLog()
            await #expect(throws: MainworthyError.self) { try await connection.read(bad) }
            #expect(try await server.log().posts(endingWith: "/results").first?.status == 422)
        }

        @MainActor @Test func afterAResultTheNextEmptySlotOpensSkippingOnesFilledMeanwhile() async throws {  // M-RUN-7
            let server = try ReferenceServer()
            let run = try await Self.adaOnS2WhileBoFillsS4(server)  // s_3 already has a result
            await run.record(.pass)
            #expect(run.openSlot?.slot.id == "s_5")
            await run.record(.pass)
            #expect(run.openSlot == nil)  // every slot has a result: back to the run page
            #expect(!run.canStart)
        }

        // M-RUN-8, M-RUN-9
        @MainActor @Test func undoRecordsYourEarlierResultAgainOrSkipAndKeepsTheHistory() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            await run.open("s_2")
            await run.record(.pass)
            #expect(run.undoable["s_2"] == .some(nil))
            await run.undo("s_2")
            await run.open("s_2")
            #expect(run.openSlot?.slot.result?.outcome == .skip)
            run.setNote("500 on submit")
            run.pressStep(2)
            await run.record(.fail)
            await run.open("s_2")
            await run.record(.pass)
            await run.undo("s_2")
            await run.open("s_2")
            let history = try #require(run.openSlot?.results)
            #expect(
                history.first?.outcome == .fail && history.first?.note == "500 on submit"
                    && history.first?.failedStep == 2)
            #expect(history.map(\.outcome) == [.fail, .pass, .fail, .skip, .pass])
        }

        // M-RUN-8 read from a slot's history: a page that did not record there (the terminal, a new launch) undoes
        // ada's one result in s_1 with skip; where results cannot be recorded (bo with `read` only) nothing is sent.
        @MainActor @Test func undoFromAPageThatDidNotRecordReadsTheSlotsHistory() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            await run.open("s_1")
            let ada = try #require(run.openSlot?.results.first?.by)
            try await server.grant("bo", ["read"])
            let readOnly = try await Self.openRun(server, user: "bo")
            try await server.clearLog()
            #expect(await readOnly.undoLatest("s_1", by: ada) == false)
            #expect(try await server.log().filter { $0.method == "POST" }.isEmpty)
            #expect(await run.undoLatest("s_1", by: ada))
            let sent = try await server.log().posts(endingWith: "/slots/s_1/results")
            #expect(sent.map(\.body) == [["outcome": "skip", "note": .null]])
            // Someone with no result in the slot has nothing to undo: false, and nothing is sent.
            try await server.clearLog()
            #expect(await run.undoLatest("s_1", by: Person(id: "u_nobody", name: "Nobody")) == false)
            #expect(try await server.log().filter { $0.method == "POST" }.isEmpty)
            // A slot this page recorded in is undone as the page's own Undo: true, and skip is sent.
            await run.open("s_2")
            await run.record(.pass)
            try await server.clearLog()
            #expect(await run.undoLatest("s_2", by: ada))
            let undone = try await server.log().posts(endingWith: "/slots/s_2/results")
            #expect(undone.map(\.body) == [["outcome": "skip", "note": .null]])
            #expect(run.undoable["s_2"] == nil)
        }

        @MainActor @Test func notesAndMarksNotRecordedStayWithTheirSlotAcrossMovesAndUndo() async throws {  // M-RUN-10
            let server = try ReferenceServer()
            try await server.reset()
            let run = try await Self.openRun(server)
            await run.open("s_4")
            run.setNote("half done")
            run.pressStep(2)
            await run.open("s_2")
            await run.record(.pass)
            await run.undo("s_2")
            await run.open("s_4")
            #expect(run.draft == SlotDraft(note: "half done", markedStep: 2))
        }

        @MainActor @Test func leavingTheRunDropsWhatWasNotRecorded() async throws {  // M-RUN-10, O-11
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let runs = try #require(workspace.runs)
            let run = runs.run("r_1")
            await run.refresh()
            await run.open("s_4")
            run.setNote("half done")
            run.pressStep(2)
            run.closeSlot()  // moving about the run keeps it
            await run.open("s_4")
            #expect(run.draft == SlotDraft(note: "half done", markedStep: 2))
            run.leave()
            await run.open("s_4")
            #expect(run.drafts.isEmpty && run.draft == SlotDraft())
            // Opened again from the list, the run has nothing of it either, and nothing was recorded.
            let reopened = runs.run("r_1")
            await reopened.refresh()
            await reopened.open("s_4")
            #expect(reopened.drafts.isEmpty && reopened.draft == SlotDraft())
            #expect(reopened.openSlot?.results.isEmpty == true)
        }

        // M-RUN-7: the next slot is chosen from the slots read after the result, never from older ones.
        @MainActor @Test func whenTheRunCannotBeReadAgainAfterAResultNoSlotIsChosenFromOldData() async throws {
            let server = try ReferenceServer()
            let run = try await Self.adaOnS2WhileBoFillsS4(server)
            try await server.fail("/api/projects/shop/runs/r_1", status: 500, times: 10)
            await run.record(.pass)
            #expect(run.openSlot == nil)  // not s_4, which the old slots show as empty
            #expect(run.problem?.hasPrefix("The result was recorded, but the run could not be read again") == true)
        }
    }
}
