import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct Undo {
        @MainActor @Test func undoWithdrawsTheDecisionIdFromTheAnswersOwnReply() async throws {  // M-UNDO-1
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            await queue.refresh()
            let page = queue.question("q_2")
            await page.refresh()
            await page.answer("flaky", reason: "Runner timeout")
            let decisionID = try #require(page.recorded?.decision.id)
            #expect(queue.bar?.decisionID == decisionID)
            await queue.undo(reason: "")
            #expect(queue.undoProblem == "Withdrawing this decision needs a reason. Type one, then undo again.")
            await queue.undo(reason: "Wrong call")
            let withdrawals = try await server.log().posts(endingWith: "/withdrawal")
            #expect(withdrawals.map(\.path) == ["/api/projects/shop/decisions/\(decisionID)/withdrawal"])
            #expect(queue.bar == nil && queue.undoProblem == nil)
        }

        @MainActor @Test func answerThenUndoLeavesBothInTheLedgerAndTheQuestionOpen() async throws {  // M-UNDO-2
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            await queue.refresh()
            let page = queue.question("q_2")
            await page.refresh()
            await page.answer("flaky", reason: "Runner timeout")
            await queue.undo(reason: "Wrong call")
            #expect(queue.state.value?.items.first?.id == "q_2")
            await page.refresh()
            let ledger = try #require(page.state.value?.ledger)
            #expect(ledger.map(\.type) == ["decision", "withdrawal"])
            #expect(ledger[1].withdraws == ledger[0].id)
            #expect(page.state.value?.isOpen == true && page.decisionStatus == .none)
        }

        @MainActor @Test func undoAfterSomeoneReplacedTheDecisionKeepsTheirsAndSaysSo() async throws {  // M-UNDO-3
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("bo", ["read", "decide"])
            let queue = try #require(try await server.workspace("ada").queue)
            await queue.refresh()
            let page = queue.question("q_2")
            await page.refresh()
            await page.answer("flaky", reason: "Runner timeout")
            let bosPage = try #require(try await server.workspace("bo").queue?.question("q_2"))
            await bosPage.refresh()
            await bosPage.answer("defect", tracker: "SHOP-7")  // replaces ada's decision
            try await server.clearLog()
            await queue.undo(reason: "Wrong call")
            #expect(queue.undoProblem == "This question was decided meanwhile. Now: Defect in the product by bo.")
            #expect(queue.bar == nil)
            #expect(try await server.log().posts(endingWith: "/withdrawal").count == 1)
            await page.refresh()
            #expect(page.state.value?.decision?.by?.name == "bo")
        }

        @MainActor @Test func decidedListsWhatWasDecidedAndByWhomAndOpensTheQuestion() async throws {  // M-UNDO-4
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            // Standing: bo's sign-off (the fixture's), then ada's review answer and her second failure answer; her
            // first failure answer is withdrawn with Undo.
            let queue = try #require(workspace.queue)
            await queue.refresh()
            let review = queue.question("q_1")
            await review.refresh()
            await review.answer("accept")
            let failure = queue.question("q_2")
            await failure.refresh()
            await failure.answer("flaky", reason: "Runner timeout")
            let withdrawn = try #require(failure.recorded?.decision.id)
            await queue.undo(reason: "Wrong call")
            #expect(queue.bar == nil && queue.undoProblem == nil)
            await failure.refresh()
            await failure.answer("test_wrong")
            let decided = try #require(workspace.decided)
            await decided.refresh()
            let items = try #require(decided.state.value)
            // Every decision standing, newest first, each with its answer and who made it; the withdrawn one is gone.
            #expect(items.map(\.question.id) == ["q_2", "q_1", "q_7"])
            #expect(items.first?.id == failure.recorded?.decision.id)
            #expect(items.dropFirst().first?.id == review.recorded?.decision.id)
            #expect(!items.contains { $0.id == withdrawn })
            #expect(items.map(\.question.kind) == [.failure, .review, .signOff])
            #expect(items.map(\.answer.key) == ["test_wrong", "accept", "sign_off"])
            #expect(items.map(\.answer.label) == ["The test is wrong", "Accept the finding", "Sign off"])
            #expect(items.map(\.by.name) == ["ada", "ada", "bo"])
            #expect(
                items.map(\.question.title) == [
                    "checkout › pays with card", "Review of C-14 found a missing step", "Release 4.1",
                ])
            // Opening each gives its question's page, that decision standing, with Withdraw.
            for item in items {
                let page = decided.question(item)
                await page.refresh()
                #expect(page.id == item.question.id && page.state.value?.decision?.id == item.id)
                #expect(page.canWithdraw, "\(item.question.id)")
            }
        }

        @MainActor @Test func withdrawNamesTheDecisionShown() async throws {  // M-UNDO-5
            let server = try ReferenceServer()
            try await server.reset()
            let decided = try #require(try await server.workspace("ada").decided)
            await decided.refresh()
            let page = decided.question(try #require(decided.state.value?.first))
            await page.refresh()
            let shown = try #require(page.state.value?.decision?.id)
            await page.withdraw()
            #expect(
                try await server.log().posts(endingWith: "/withdrawal").map(\.path) == [
                    "/api/projects/shop/decisions/\(shown)/withdrawal"
                ])
        }

        @MainActor @Test func afterAConflictWithdrawStaysOffUntilTheQuestionIsReadAgain() async throws {  // M-UNDO-6
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("bo", ["read", "decide"])
            let page = try #require(try await server.workspace("ada").queue?.question("q_2"))
            await page.refresh()
            await page.answer("test_wrong")
            let bosPage = try #require(try await server.workspace("bo").queue?.question("q_2"))
            await bosPage.refresh()
            await bosPage.answer("defect")
            await page.withdraw(reason: "Wrong call")
            #expect(!page.canWithdraw && page.withdrawBlocked)
            try await server.clearLog()
            await page.withdraw(reason: "Wrong call")
            #expect(try await server.log().posts(endingWith: "/withdrawal").isEmpty)
            await page.refresh()
            #expect(page.canWithdraw)
            #expect(page.state.value?.decision?.id == bosPage.recorded?.decision.id)
        }

        @MainActor @Test func anUnconfirmedWithdrawalShowsTheStateAsUnknown() async throws {  // M-UNDO-7, M-NET-2
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let decided = try #require(try await server.workspace("ada", sleeper: sleeper).decided)
            await decided.refresh()
            let page = decided.question(try #require(decided.state.value?.first))
            await page.refresh()
            let decisionID = try #require(page.state.value?.decision?.id)
            try await server.dropReply("/api/projects/shop/decisions/\(decisionID)/withdrawal", times: 4)
            await page.withdraw()
            #expect(sleeper.delays == [.seconds(1), .seconds(2), .seconds(4)])
            guard case .unknown(let sentence) = page.decisionStatus else {
                Issue.record("expected unknown, got \(page.decisionStatus)")
                return
            }
            #expect(sentence.contains("No reply came"))
            #expect(page.pendingWithdrawal != nil)
            let sends = try await server.log().posts(endingWith: "/withdrawal")
            #expect(sends.count == 4 && Set(sends.map(\.idempotencyKey)).count == 1)
            // Retry sends the same command; the server replays the one withdrawal it holds.
            await page.retryWithdrawal()
            #expect(page.pendingWithdrawal == nil && page.decisionStatus == .none)
            #expect(try await server.log().posts(endingWith: "/withdrawal").last?.replayed == true)
            #expect(page.state.value?.ledger.filter { $0.type == "withdrawal" }.count == 1)
        }

        @MainActor @Test func aWithdrawalRefusedWithAnErrorShowsTheServersResponseAndAnUnknownState() async throws {
            // M-UNDO-7
            let server = try ReferenceServer()
            try await server.reset()
            let decided = try #require(try await server.workspace("ada").decided)
            await decided.refresh()
            let page = decided.question(try #require(decided.state.value?.first))
            await page.refresh()
            let decisionID = try #require(page.state.value?.decision?.id)
            try await server.fail("/api/projects/shop/decisions/\(decisionID)/withdrawal", status: 503)
            await page.withdraw()
            let said = "This failure was injected for /api/projects/shop/decisions/\(decisionID)/withdrawal."
            #expect(page.decisionStatus == .unknown(said))
            #expect(page.pendingWithdrawal == nil)
        }

        @MainActor @Test func withdrawingASignOffReopensTheRun() async throws {  // M-UNDO-8, M-RUN-11
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let run = try #require(workspace.runs?.run("r_2"))
            await run.refresh()
            #expect(!run.canRecord)
            let forced = workspace.server.command(
                MainworthyAPI.record(
                    "shop", run: "r_2", slot: "s_6", ResultBody(outcome: .pass, note: nil, failedStep: nil)))
            try await server.clearLog()
            let refusal = try await workspace.server.refusal(of: forced)
            #expect(refusal?.status == 409 && refusal?.code == "run_closed")
            #expect(try await server.log().posts(endingWith: "/results").map(\.status) == [409])
            // The page sends nothing for a closed run: no outcome is offered, and pressing one does nothing.
            await run.open("s_6")
            #expect(run.openSlot != nil && !run.actions.contains(.record))
            try await server.clearLog()
            await run.record(.pass)
            #expect(try await server.log().posts(endingWith: "/results").isEmpty)
            let decided = try #require(workspace.decided)
            await decided.refresh()
            let page = decided.question(try #require(decided.state.value?.first { $0.question.kind == .signOff }))
            await page.refresh()
            await page.withdraw()
            await run.refresh()
            #expect(run.state.value?.isOpen == true && run.canRecord)
            await run.open("s_6")
            await run.record(.blocked)
            #expect(run.problem == nil)
        }
    }

    @Suite struct WebHandoff {
        @MainActor @Test func linkAndOverlapQuestionsListTheirAnswersGreyedWithTheWebLink() async throws {  // M-WEB-1
            let server = try ReferenceServer()
            try await server.reset()
            let queue = try #require(try await server.workspace("ada").queue)
            for id in ["q_5", "q_6"] {
                let page = queue.question(id)
                await page.refresh()
                #expect(page.state.value?.answers.isEmpty == false)
                #expect(!page.availability.isEnabled)
                #expect(page.availability.webLink?.url == page.state.value?.webURL)
                #expect(page.availability.webLink?.url.absoluteString.hasPrefix(server.url.absoluteString) == true)
            }
        }

        @MainActor @Test func aProposalThatMovesACaseIsAnsweredInTheWebApp() async throws {  // M-WEB-2
            let server = try ReferenceServer()
            try await server.reset()
            let page = try #require(try await server.workspace("ada").queue?.question("q_4"))
            await page.refresh()
            #expect(page.availability.blocker == .web(.unsupportedEdit("move")))
            try await server.clearLog()
            await page.answer("adopt")
            #expect(try await server.log().posts(endingWith: "/decisions").isEmpty)
        }

        @MainActor @Test func aProposalOfTwentyOneEditsIsAnsweredInTheWebApp() async throws {  // M-WEB-3
            let server = try ReferenceServer()
            try await server.reset()
            let page = try #require(try await server.workspace("ada").queue?.question("q_3"))
            await page.refresh()
            page.reportLastEditShown()
            #expect(page.availability.blocker == .web(.tooManyEdits(21)))
            #expect(page.availability.webLink != nil)
        }
    }
}
