import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct Projects {
        @MainActor @Test(.timeLimit(.minutes(1)))
        func oneProjectIsOpenAndSwitchingRenewsEveryScreenAndStopsTheOldStream() async throws {  // M-PROJ-1
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            #expect(workspace.current?.name == "Shop")
            let shop = (
                queue: try #require(workspace.queue), runs: try #require(workspace.runs),
                decided: try #require(workspace.decided), changes: try #require(workspace.changes),
                cases: try #require(workspace.cases), events: try #require(workspace.events)
            )
            await shop.queue.refresh()
            await shop.runs.refresh()
            await shop.changes.refresh()  // starts the project's stream
            await shop.cases.refresh()
            #expect(shop.queue.state.value?.items.count == 6 && shop.events.status == .running)
            #expect(shop.changes.state.value?.isEmpty == false && shop.cases.folders.count == 3)

            let ops = try #require(workspace.projects.value?.first { $0.key == "ops" })
            workspace.open(ops)
            #expect(workspace.current?.name == "Operations")
            #expect(shop.events.status == .idle)  // the old project's stream is stopped
            let opened = (
                queue: try #require(workspace.queue), runs: try #require(workspace.runs),
                decided: try #require(workspace.decided), changes: try #require(workspace.changes),
                cases: try #require(workspace.cases), events: try #require(workspace.events)
            )
            // Every screen is new, for the other project, and shows nothing yet.
            #expect(opened.queue !== shop.queue && opened.runs !== shop.runs && opened.decided !== shop.decided)
            #expect(opened.changes !== shop.changes && opened.cases !== shop.cases && opened.events !== shop.events)
            #expect(
                [
                    opened.queue.project, opened.runs.project, opened.decided.project, opened.changes.project,
                    opened.cases.project, opened.events.project,
                ] == Array(repeating: "ops", count: 6))
            #expect(opened.queue.state == .loading && opened.runs.state == .loading)
            #expect(opened.changes.state == .loading && opened.cases.state == .loading)
            // Each reads the other project's data.
            try await server.clearLog()
            await opened.queue.refresh()
            await opened.runs.refresh()
            await opened.changes.refresh()
            await opened.cases.refresh()
            #expect(opened.queue.state.value?.items.map(\.title) == ["Runbook step 2 needs a rollback"])
            #expect(opened.runs.state.value?.isEmpty == true && opened.changes.state.value?.isEmpty == true)
            #expect(opened.cases.folders.map(\.name) == ["Unsorted"])
            let paths = try await server.log().map(\.path)
            #expect(!paths.contains { $0.hasPrefix("/api/projects/shop/") })
            // A change published in the old project no longer reaches anything of it.
            let received = shop.events.received
            try await server.publish("run", data: ["id": "r_after_switch"])
            #expect(shop.events.received == received && shop.events.status == .idle)
            workspace.close()
        }

        @MainActor @Test func capabilitiesComePerProjectAndASwitchReplacesThem() async throws {  // M-CAP-1
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            #expect(workspace.capabilities == [.read, .decide, .produce, .plan])
            workspace.open(try #require(workspace.projects.value?.first { $0.key == "ops" }))
            #expect(workspace.capabilities == [.read])
            #expect(workspace.runs?.canPlan == false)
        }

        // M-CAP-2: results, + in Cases and Edit case all need produce; nothing is sent without it.
        @MainActor @Test func withoutProduceNoOutcomeNoPlusAndNoEditCaseAreOfferedAndNothingIsSent() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("bo")
            let run = try #require(workspace.runs?.run("r_1"))
            await run.refresh()
            await run.open("s_2")
            #expect(!run.canRecord && !run.actions.contains(.record))
            let root = try #require(workspace.cases)
            let page = try await root.casePage(number: "C-12")
            await page.refresh()
            #expect(page.state.value != nil && !page.canEdit)
            let folder = await root.list(.folder(id: "f_3"))
            try await server.clearLog()
            await run.record(.pass)
            let editor = await page.edit()
            let plus = await root.newCase()
            let plusInFolder = await folder.newCase()
            #expect(editor == nil && plus == nil && plusInFolder == nil)
            let posts = try await server.log().filter { $0.method == "POST" }
            #expect(posts.isEmpty)
            // A forced result is refused with 403 capability_missing, and bo stays signed in.
            let forced = workspace.server.command(
                MainworthyAPI.record(
                    "shop", run: "r_1", slot: "s_2", ResultBody(outcome: .pass, note: nil, failedStep: nil)))
            await #expect(throws: MainworthyError.self) { try await workspace.server.perform(forced) }
            #expect(try await server.log().posts(endingWith: "/results").first?.status == 403)
            #expect(!workspace.signedOut)
        }

        // M-NET-4, M-CAP-2: a 403 on a screen's own write makes the workspace read the capabilities again, and the
        // screen stops offering what is gone.
        @MainActor @Test(.timeLimit(.minutes(1)))
        func aCapabilityMissingOnAScreenReadsTheCapabilitiesAgain() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let run = try #require(workspace.runs?.run("r_1"))
            await run.refresh()
            await run.open("s_2")
            #expect(run.canRecord)
            // The project's admin takes produce away while the run is open.
            try await server.grant("ada", ["read", "decide", "plan"])
            #expect(workspace.capabilityReads == 1)  // read once, when the workspace opened
            await run.record(.pass)
            #expect(run.problem == "You need the produce capability in this project.")  // the server's words
            let readAgain = await waitUntilObserved(upTo: .seconds(20)) {
                workspace.capabilityReads == 2 && !workspace.capabilities.contains(.produce)
            }
            #expect(readAgain, "the 403 read the capabilities again, once")
            #expect(!run.canRecord && !workspace.signedOut)
            try await server.clearLog()
            await run.record(.pass)
            #expect(try await server.log().posts(endingWith: "/results").isEmpty)
        }

        @MainActor @Test func withoutPlanThereIsNoPlusAndAForcedPlanIsRefused() async throws {  // M-CAP-3
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("bo")
            let runs = try #require(workspace.runs)
            #expect(!runs.canPlan)
            try await server.clearLog()
            await runs.plan(name: "Nope", selection: .all)
            #expect(try await server.log().posts(endingWith: "/runs").isEmpty)
            let forced = workspace.server.command(
                MainworthyAPI.plan("shop", PlanBody(name: "Nope", selection: .all, acceptsCommit: nil)))
            await #expect(throws: MainworthyError.self) { try await workspace.server.perform(forced) }
            #expect(try await server.log().posts(endingWith: "/runs").first?.status == 403)
        }

        // M-CAP-4: answers, Withdraw and the Undo bar all need decide.
        @MainActor @Test func withoutDecideTheAnswersWithdrawAndUndoAreOffAndAForcedAnswerIsRefused() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("bo")
            let page = try #require(workspace.queue?.question("q_2"))
            await page.refresh()
            #expect(page.availability.blocker == .missingCapability)
            let decided = try #require(workspace.decided)
            await decided.refresh()
            let standing = decided.question(try #require(decided.state.value?.first))
            await standing.refresh()
            #expect(!standing.canWithdraw)
            try await server.clearLog()
            await page.answer("test_wrong")
            await standing.withdraw(reason: "Wrong call")
            #expect(try await server.log().filter { $0.method == "POST" }.isEmpty)
            let refusal = try await workspace.server.refusalOfAnswer("test_wrong", to: "q_2")
            #expect(refusal?.status == 403 && refusal?.capability == "decide")
            // The Undo bar: ada answers, then loses decide; Undo sends nothing.
            let ada = try await server.workspace("ada")
            let queue = try #require(ada.queue)
            await queue.refresh()
            let answered = queue.question("q_2")
            await answered.refresh()
            await answered.answer("test_wrong")
            #expect(queue.bar != nil && queue.canUndo)
            try await server.grant("ada", ["read", "produce", "plan"])
            await ada.load()
            #expect(!queue.canUndo)
            try await server.clearLog()
            await queue.undo(reason: "Wrong call")
            #expect(try await server.log().posts(endingWith: "/withdrawal").isEmpty)
        }
    }

    @Suite struct Queue {
        @MainActor @Test func failuresComeFirstAndTheRestKeepsTheServersOrder() async throws {  // M-QUEUE-1
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            await queue.refresh()
            // The server sends the review first (it waits longest); the failure goes to the top.
            #expect(queue.state.value?.items.map(\.id) == ["q_2", "q_1", "q_3", "q_4", "q_5", "q_6"])
        }

        // M-QUEUE-2, M-QUEUE-4
        @MainActor @Test func theSummaryLineIsTheServersTotalsWhateverThePageOrChip() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let queue = QueueModel(workspace: workspace, project: "shop", pageSize: 2)
            await queue.refresh()
            #expect(queue.state.value?.summaryLine == "1 failure to explain \u{00B7} 5 can wait")
            #expect(queue.state.value?.items.count == 2)
            await queue.choose(.link)
            #expect(queue.state.value?.summaryLine == "1 failure to explain \u{00B7} 5 can wait")
        }

        @MainActor @Test func aChipListsOneKindFromTheServer() async throws {  // M-QUEUE-5
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            try await server.clearLog()
            await queue.choose(.proposal)
            #expect(queue.state.value?.items.map(\.kind) == [.proposal, .proposal])
            #expect(
                try await server.log().contains { $0.path == "/api/projects/shop/queue" && $0.query == "kind=proposal" }
            )
            #expect(queue.state.value?.summary == QueueSummary(failures: 1, canWait: 5))
        }

        @MainActor @Test func pagingAppendsTheNextPageWithNoIdTwice() async throws {  // M-QUEUE-4 (paging)
            let server = try ReferenceServer()
            try await server.reset()
            let queue = QueueModel(workspace: try await server.workspace("ada"), project: "shop", pageSize: 4)
            await queue.refresh()
            #expect(queue.state.value?.nextCursor != nil)
            await queue.list.loadMore()
            #expect(queue.state.value?.items.count == 6 && queue.state.value?.nextCursor == nil)
            #expect(Set(queue.state.value?.items.map(\.id) ?? []).count == 6)
        }

        @MainActor @Test func answersExistOnlyOnTheQuestionsPageOnceItsEvidenceLoaded() async throws {  // M-QUEUE-6
            let server = try ReferenceServer()
            try await server.reset()
            let page = try #require(try await server.workspace("ada").queue?.question("q_2"))
            try await server.clearLog()
            await page.answer("test_wrong")  // the evidence has not been read yet
            #expect(try await server.log().posts(endingWith: "/decisions").isEmpty)
            #expect(page.problem != nil)
            await page.refresh()  // once the evidence is read, the same answer is sent
            await page.answer("test_wrong")
            #expect(try await server.log().posts(endingWith: "/decisions").map(\.status) == [201])
        }

        @MainActor @Test func thePageShowsTheEvidenceOfItsKind() async throws {  // M-QUEUE-7
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            let failure = queue.question("q_2")
            await failure.refresh()
            let evidence = try #require(failure.state.value?.evidence.failure)
            #expect(evidence.test == "checkout.spec.ts › pays with card" && evidence.message == "expected 200, got 500")
            #expect(evidence.job == "e2e" && evidence.commit == "a1b2c3d" && evidence.location == "checkout.spec.ts:42")
            let proposal = queue.question("q_3")
            await proposal.refresh()
            let edits = try #require(proposal.state.value?.evidence.proposal)
            #expect(
                edits.editCount == 21 && edits.edits.last?.op == "edit_case" && edits.edits.last?.caseNumber == "C-12")
            let review = queue.question("q_1")
            await review.refresh()
            // A review's evidence has no shape in §2: it shows as labelled text, whatever shape the server uses.
            let found = try #require(review.state.value?.evidence.part("review"))
            #expect(found.text.contains("Step 3 has no expected result."), "\(found)")
            #expect(review.availability.isEnabled)  // the question opens and its answers follow the rules
        }

        @MainActor @Test func everyAnswerComesWithTheServersSentence() async throws {  // M-QUEUE-8
            let server = try ReferenceServer()
            try await server.reset()
            let page = try #require(try await server.workspace("ada").queue?.question("q_2"))
            await page.refresh()
            let answers = try #require(page.state.value?.answers)
            #expect(answers.map(\.key) == ["defect", "flaky", "test_wrong"])
            #expect(answers[0].sentence == "Keeps the failure on the gate and records where it is tracked.")
            #expect(answers.allSatisfy { !$0.sentence.isEmpty })
        }

        @MainActor @Test func aRequiredReasonIsAskedForAndTheServerRefusesItsAbsence() async throws {  // M-QUEUE-9
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let page = try #require(workspace.queue?.question("q_2"))
            await page.refresh()
            #expect(page.state.value?.answers.first { $0.key == "flaky" }?.reasonRequired == true)
            try await server.clearLog()
            // Empty, or only whitespace: the app asks for a reason and sends nothing.
            for blank in ["", "   ", "\n\t "] {
                await page.answer("flaky", reason: blank)
                #expect(page.problem == "“Flaky test” needs a reason. Type one, then answer again.", "\(blank)")
            }
            #expect(try await server.log().posts(endingWith: "/decisions").isEmpty)
            // Forced past the app, with no reason or a blank one: 422 reason_required, and nothing is recorded.
            for reason in [nil, "  "] as [String?] {
                let refusal = try await workspace.server.refusalOfAnswer("flaky", to: "q_2", reason: reason)
                #expect(refusal?.status == 422 && refusal?.code == "reason_required")
                #expect(refusal?.message == "“Flaky test” needs a reason.")
            }
            #expect(try await server.log().posts(endingWith: "/decisions").map(\.status) == [422, 422])
            await page.refresh()
            #expect(page.state.value?.ledger.isEmpty == true && page.state.value?.isOpen == true)
        }

        @MainActor @Test func aDefectWithAnEmptyTrackerIsAccepted() async throws {  // M-QUEUE-10
            let server = try ReferenceServer()
            try await server.reset()
            let page = try #require(try await server.workspace("ada").queue?.question("q_2"))
            await page.refresh()
            await page.answer("defect", tracker: "")
            #expect(page.problem == nil)
            #expect(page.recorded?.decision.answer == "defect" && page.recorded?.decision.tracker == nil)
        }

        // M-QUEUE-2, M-QUEUE-11 (mutation survivor m-849f76987f): with two failures open, an answered failure leaves
        // the list and the summary counts exactly one failure fewer, the others as they were.
        @MainActor @Test func anAnsweredFailureCountsExactlyOneFewer() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            _ = try await server.report(
                PipelineReport(
                    commit: "d4e5f6a", branch: "feat/cart", pullRequest: 412,
                    results: [.init(test: "cart › removes an item", outcome: "fail", message: "expected 1 item, got 2")]
                ))
            let queue = try #require(try await server.workspace("ada").queue)
            await queue.refresh()
            let before = try #require(queue.state.value?.summary)
            try #require(before.failures >= 2, "\(before)")
            let page = queue.question("q_2")
            await page.refresh()
            await page.answer("test_wrong")
            #expect(page.recorded != nil, "\(page.problem ?? "")")
            #expect(queue.state.value?.summary.failures == before.failures - 1)
            #expect(queue.state.value?.summary.canWait == before.canWait)
            #expect(queue.state.value?.items.contains { $0.id == "q_2" } == false)
        }

        @MainActor @Test func theLastQuestionThatCanWaitLeavesACountOfZero() async throws {  // M-QUEUE-11, M-QUEUE-3
            // The ops project's queue is one review: answered (ada given `decide` there), the count that can wait
            // goes to 0, not below and not held at 1.
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("ada", ["read", "decide"], in: "ops")
            let queue = try #require(try await server.workspace("ada", project: "ops").queue)
            await queue.refresh()
            try #require(queue.state.value?.summary == QueueSummary(failures: 0, canWait: 1))
            let id = try #require(queue.state.value?.items.first?.id)
            let page = queue.question(id)
            await page.refresh()
            await page.answer("accept")
            #expect(page.recorded != nil, "\(page.problem ?? "")")
            // Bounded: a re-read started by the project's stream can land beside the answer's own store write (as
            // in aConfirmedAnswerShowsTheRecordedBarAndLeavesTheList); a count held at 1 still fails after 10 s.
            let settled = await waitUntilObserved(upTo: .seconds(10)) {
                queue.state.value?.summary == QueueSummary(failures: 0, canWait: 0)
                    && queue.state.value?.items.isEmpty == true
            }
            #expect(settled, "\(String(describing: queue.state.value?.summary))")
        }

        @MainActor @Test func aConfirmedAnswerShowsTheRecordedBarAndLeavesTheList() async throws {  // M-QUEUE-11
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            await queue.refresh()
            let page = queue.question("q_2")
            await page.refresh()
            await page.answer("flaky", reason: "Runner timeout")
            let decision = try #require(page.recorded?.decision.id)
            // Back in the list: the bar has the reply's `recorded` sentence, with Undo for that decision.
            #expect(queue.bar?.sentence == "Flaky test recorded for checkout › pays with card.")
            #expect(queue.bar?.decisionID == decision && queue.canUndo)
            #expect(queue.state.value?.items.contains { $0.id == "q_2" } == false)
            // The count settles on the server's: on the §2-only stand-in a re-read of the list started by the
            // project's stream can land beside the answer's own store write (one run in three showed "1 failure to
            // explain" for a moment there).
            let settled = await waitUntilObserved(upTo: .seconds(10)) {
                queue.state.value?.summaryLine == "5 can wait"
            }
            #expect(settled, "\(String(describing: queue.state.value?.summaryLine))")
            // Undo on the bar withdraws that decision: the bar goes and the question is open in the list again.
            try await server.clearLog()
            await queue.undo(reason: "Wrong call")
            let withdrawals = try await server.log().posts(endingWith: "/withdrawal")
            #expect(withdrawals.map(\.path) == ["/api/projects/shop/decisions/\(decision)/withdrawal"])
            #expect(withdrawals.map(\.status) == [201])
            #expect(queue.bar == nil && queue.undoProblem == nil)
            #expect(queue.state.value?.items.first?.id == "q_2")
            #expect(queue.state.value?.summaryLine == "1 failure to explain \u{00B7} 5 can wait")
        }

        // M-QUEUE-12
        @MainActor @Test func answeringAQuestionDecidedMeanwhileIsRefusedWithWhoDecidedWhat() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("bo", ["read", "decide"])
            let ada = try await server.workspace("ada")
            let page = try #require(ada.queue?.question("q_2"))
            await page.refresh()
            #expect(page.state.value?.decision == nil)
            // bo decides while ada's page is open.
            let bo = try await server.workspace("bo")
            let bosPage = try #require(bo.queue?.question("q_2"))
            await bosPage.refresh()
            await bosPage.answer("test_wrong")
            let bos = try #require(bosPage.recorded?.decision.id)
            try await server.clearLog()
            await page.answer("flaky", reason: "Runner timeout")
            // The answer named the decision ada's page showed (none); the server refused it: 409 decision_changed.
            let sent = try await server.log().posts(endingWith: "/questions/q_2/decisions")
            #expect(sent.map(\.status) == [409])
            #expect(sent.first?.body?["expected_decision_id"] == .null)
            #expect(page.recorded == nil && page.pendingAnswer == nil)
            #expect(page.changedMeanwhile?.id == bos)
            #expect(page.changedMeanwhile?.by?.name == "bo" && page.changedMeanwhile?.answer == "test_wrong")
            #expect(page.problem == "This question was decided meanwhile. Now: The test is wrong by bo.")
            // The server's refusal itself: 409, decision_changed, with the current decision.
            let refusal = try await ada.server.refusalOfAnswer("flaky", to: "q_2", reason: "Runner timeout")
            #expect(refusal?.status == 409 && refusal?.code == "decision_changed")
            #expect(refusal?.current?.id == bos && refusal?.current?.by?.name == "bo")
            // Nothing of ada's is recorded: bo's decision is the only one.
            await page.refresh()
            #expect(page.state.value?.ledger.map(\.id) == [bos])
            #expect(page.state.value?.ledger.map(\.by?.name) == ["bo"])
            #expect(page.state.value?.decision?.id == bos)
        }
    }
}
