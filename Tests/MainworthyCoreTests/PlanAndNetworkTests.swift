import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    @Suite struct Planning {
        @MainActor @Test func aPlanSaysHowManySlotsItMadeAndOpensTheRun() async throws {  // M-PLAN-1, M-PLAN-5
            let server = try ReferenceServer()
            try await server.reset()
            let runs = try #require(try await server.workspace("ada").runs)
            await runs.plan(name: "Release 4.3", selection: .folder(id: "f_3"), commit: "a1b2c3d")
            guard case .planned(let runID, 10) = runs.planOutcome else {
                Issue.record("expected 10 slots planned, got \(String(describing: runs.planOutcome))")
                return
            }
            #expect(runs.planOutcome?.sentence == "Planned 10 slots.")
            #expect(runs.plannedRun?.id == runID)
            #expect(runs.plannedRun?.state.value?.accepts == RunAccepts(manual: true, commit: "a1b2c3d"))
            await runs.plan(name: "Smoke", selection: .tag("smoke"))
            #expect(runs.plannedRun?.state.value?.accepts == RunAccepts(manual: true, commit: nil))
            await runs.plan(name: "Cards", selection: .search("c-12"))
            #expect(runs.planOutcome?.sentence == "Planned 1 slot.")
            await runs.plan(name: "All", selection: .all)
            #expect(runs.planOutcome?.sentence == "Planned 120 slots.")
        }

        @MainActor @Test func aPlanNeedsANameAndASearchItsTextBeforeAnythingIsSent() async throws {  // M-PLAN-1
            let server = try ReferenceServer()
            try await server.reset()
            let runs = try #require(try await server.workspace("ada").runs)
            try await server.clearLog()
            await runs.plan(name: "  ", selection: .all)
            #expect(runs.planOutcome == .failed("Give the run a name."))
            await runs.plan(name: "Search", selection: .search(" "))
            #expect(runs.planOutcome == .failed("Type the text to search for."))
            #expect(try await server.log().posts(endingWith: "/runs").isEmpty)
        }

        @MainActor @Test func aPlannedRunThatCannotBeReadIsReadAgainWithoutPlanningAnother() async throws {  // M-PLAN-2
            let server = try ReferenceServer()
            try await server.reset()
            let runs = try #require(try await server.workspace("ada").runs)
            try await server.fail("/api/projects/shop/runs/r_3", status: 500, times: 3)
            await runs.plan(name: "Release 4.3", selection: .tag("smoke"))
            guard case .plannedButUnread("r_3", 40, _) = runs.planOutcome else {
                Issue.record("expected planned but unread, got \(String(describing: runs.planOutcome))")
                return
            }
            try await server.clearLog()
            await runs.readPlannedRunAgain()
            #expect(runs.planOutcome == .planned(runID: "r_3", slotCount: 40))
            let log = try await server.log()
            #expect(log.map { "\($0.method) \($0.path)" } == ["GET /api/projects/shop/runs/r_3"])
            await runs.refresh()
            #expect(runs.state.value?.count == 3)
        }

        @MainActor @Test func aLostPlanReplyIsRetriedWithTheSameKeyAndMakesOneRun() async throws {  // M-PLAN-3, M-NET-3
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let runs = try #require(try await server.workspace("ada", sleeper: sleeper).runs)
            try await server.dropReply("/api/projects/shop/runs")
            await runs.plan(name: "Release 4.3", selection: .all)
            #expect(runs.pendingPlan != nil && sleeper.delays.isEmpty)  // plans get Retry only
            #expect(try await server.log().posts(endingWith: "/runs").count == 1)
            await runs.retryPlan()
            #expect(runs.planOutcome == .planned(runID: "r_3", slotCount: 120))
            let posts = try await server.log().posts(endingWith: "/runs")
            #expect(posts.count == 2 && posts[0].idempotencyKey == posts[1].idempotencyKey && posts[1].replayed)
            await runs.refresh()
            #expect(runs.state.value?.count == 3)
        }

        // M-PLAN-4, M-NET-4
        @MainActor @Test func anEmptySelectionShowsTheServersSentenceAndMakesNoRun() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let runs = try #require(try await server.workspace("ada").runs)
            await runs.plan(name: "Nightly", selection: .tag("nightly"))
            #expect(runs.planOutcome == .failed("The tag “nightly” has no cases."))
            await runs.refresh()
            #expect(runs.state.value?.count == 2)
        }
    }

    @Suite struct Network {
        /// The page of q_2 in a workspace whose server is `dead` (nothing answers there), with the question read
        /// before from the real server into the same account's store: the page opens from it, then the answer goes
        /// to the dead address.
        @MainActor static func pageOnADeadAddress(
            _ server: ReferenceServer, dead: URL, sleeper: RecordingSleeper
        ) async throws -> (QuestionModel, MainworthyWorkspace) {
            let environment = ReferenceServer.environment(sleeper: sleeper)
            let live = try await server.workspace("ada", environment: environment)
            let page = try #require(live.queue?.question("q_2"))
            await page.refresh()
            let offline = try await MainworthyServer.open(
                build: server.build(dead), account: live.server.account, environment: environment,
                profile: ReferenceServer.profile(timeout: .seconds(1)))
            let workspace = MainworthyWorkspace(server: offline)
            await workspace.load()
            let deadPage = QuestionModel(workspace: workspace, project: "shop", id: "q_2")
            await deadPage.refresh()  // the stored page, then no connection
            return (deadPage, live)
        }

        /// What a request that never left must show: not sent, no resend, nothing kept, nothing sent later.
        @MainActor static func expectNeverLeft(
            _ page: QuestionModel, live: MainworthyWorkspace, server: ReferenceServer, sleeper: RecordingSleeper
        ) async throws {
            #expect(page.state.value?.id == "q_2")
            let waitsBefore = sleeper.delays.count
            try await server.clearLog()
            await page.answer("test_wrong")
            #expect(sleeper.delays.count == waitsBefore)  // no resend was scheduled
            #expect(page.problem == "There is no connection to the server, so nothing was sent. Connect and try again.")
            #expect(page.pendingAnswer == nil && page.recorded == nil)  // no Retry: it is known not to have left
            // Connected again, nothing is sent by itself: the server never saw an answer, the question is open.
            let queue = try #require(live.queue)
            await queue.refresh()
            #expect(try await server.log().posts(endingWith: "/decisions").isEmpty)
            #expect(queue.state.value?.items.contains { $0.id == "q_2" } == true)
        }

        @MainActor @Test func anAnswerToARefusedConnectionFailsAtOnceAndNothingIsKept() async throws {  // M-NET-1
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let closed = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())"))
            let (page, live) = try await Self.pageOnADeadAddress(server, dead: closed, sleeper: sleeper)
            try await Self.expectNeverLeft(page, live: live, server: server, sleeper: sleeper)
        }

        @MainActor @Test func anAnswerWhoseConnectionIsNeverAcceptedIsNotSentAndNotResent() async throws {  // M-NET-1
            // A server whose accept queue is full: the connect waits out the timeout. That is a request that never
            // left (not a lost reply): shown as not sent, never resent.
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let socket = try UnacceptingSocket()
            let unaccepting = try #require(URL(string: "http://127.0.0.1:\(socket.port)"))
            let (page, live) = try await Self.pageOnADeadAddress(server, dead: unaccepting, sleeper: sleeper)
            try await Self.expectNeverLeft(page, live: live, server: server, sleeper: sleeper)
        }

        /// A workspace of ada's on `dead` (nothing answers there) in the environment of `live`, whose account's
        /// store holds what `live` read: the projects with their capabilities, and whatever the test read before.
        @MainActor static func deadWorkspace(_ server: ReferenceServer, live: MainworthyWorkspace, dead: URL)
            async throws -> MainworthyWorkspace
        {
            let offline = try await MainworthyServer.open(
                build: server.build(dead), account: live.server.account, environment: live.server.bundle.environment,
                profile: ReferenceServer.profile(timeout: .seconds(1)))
            let workspace = MainworthyWorkspace(server: offline)
            await workspace.load()
            #expect(workspace.capabilities == [.read, .decide, .produce, .plan])  // the stored projects
            return workspace
        }

        // M-NET-1 (issue 37): a result, a plan and a save that never left each fail at once with the connection
        // sentence, are not resent, offer no Retry, and nothing is sent once connected again.
        @MainActor @Test func aResultAPlanAndASaveWithNoConnectionFailAtOnceAndNothingIsKept() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let live = try await server.workspace("ada", environment: ReferenceServer.environment(sleeper: sleeper))
            let liveRun = RunModel(workspace: live, project: "shop", id: "r_1")
            await liveRun.refresh()
            await liveRun.open("s_2")
            let closed = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())"))
            let dead = try await Self.deadWorkspace(server, live: live, dead: closed)
            let notSent = "There is no connection to the server, so nothing was sent. Connect and try again."
            try await server.clearLog()
            // A result.
            let run = RunModel(workspace: dead, project: "shop", id: "r_1")
            await run.refresh()
            await run.open("s_2")
            #expect(run.openSlot?.slot.id == "s_2" && run.canRecord)
            let waitsBefore = sleeper.delays.count  // the reads' own waits are behind
            await run.record(.pass)
            #expect(run.problem == notSent && run.pendingResult == nil && !run.actions.contains(.retry))
            // A plan.
            let runs = RunsModel(workspace: dead, project: "shop")
            await runs.plan(name: "Offline smoke", selection: .tag("smoke"))
            #expect(runs.planOutcome == .failed(notSent) && runs.pendingPlan == nil)
            // A save.
            let editor = try #require(await dead.cases?.newCase())
            editor.setTitle("Written offline")
            editor.addStep(action: "Open the app", expected: "It opens")
            await editor.save()
            #expect(editor.outcome == .failed(notSent) && editor.pendingSave == nil)
            #expect(sleeper.delays.count == waitsBefore)  // no resend was scheduled for any of them
            // Connected again, nothing is sent by itself.
            await liveRun.refresh()
            await live.runs?.refresh()
            let posts = try await server.log().filter { $0.method == "POST" }
            #expect(posts.isEmpty)
        }

        @MainActor @Test func aLostAnswerReplyIsResentWithTheSameKeyAndRecordedOnce() async throws {  // M-NET-2, O-8
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let queue = try #require(try await server.workspace("ada", sleeper: sleeper).queue)
            let page = queue.question("q_2")
            await page.refresh()
            try await server.dropReply("/api/projects/shop/questions/q_2/decisions", times: 2)
            await page.answer("flaky", reason: "Runner timeout")
            #expect(page.recorded != nil && page.problem == nil)
            #expect(sleeper.delays == [.seconds(1), .seconds(2)])  // the first resend at 1 s, the next at 2 s
            let posts = try await server.log().posts(endingWith: "/decisions")
            #expect(posts.count == 3 && Set(posts.map(\.idempotencyKey)).count == 1)
            await page.refresh()
            #expect(page.state.value?.ledger.count == 1)
        }

        @MainActor @Test func afterThreeResendsTheAnswerIsUnconfirmedWithRetry() async throws {  // M-NET-2
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let page = try #require(try await server.workspace("ada", sleeper: sleeper).queue?.question("q_2"))
            await page.refresh()
            try await server.dropReply("/api/projects/shop/questions/q_2/decisions", times: 4)
            await page.answer("test_wrong")
            #expect(sleeper.delays == [.seconds(1), .seconds(2), .seconds(4)])
            #expect(page.pendingAnswer != nil && page.recorded == nil)
            await page.retryAnswer()
            #expect(page.recorded != nil && page.pendingAnswer == nil)
            await page.refresh()
            #expect(page.state.value?.ledger.count == 1)
        }

        // M-UNDO-7, M-NET-2 (issue 37, item 5): an Undo from the bar whose reply is lost after the resends no longer
        // shows the answer as recorded: its state is unknown, with Retry, which sends the same command and key.
        @MainActor @Test func anUndoFromTheBarWhoseReplyIsLostIsUnknownWithRetry() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let queue = try #require(try await server.workspace("ada", sleeper: sleeper).queue)
            await queue.refresh()
            let page = queue.question("q_2")
            await page.refresh()
            await page.answer("test_wrong")
            #expect(queue.bar != nil && queue.undoUnknown == nil)
            try await server.dropReply(
                "/api/projects/shop/decisions/\(try #require(queue.bar?.decisionID))/withdrawal", times: 4)
            try await server.clearLog()
            await queue.undo(reason: "Wrong call")
            #expect(sleeper.delays.suffix(3) == [.seconds(1), .seconds(2), .seconds(4)])
            #expect(queue.pendingUndo != nil)
            #expect(
                queue.undoUnknown == "No reply came from the server. Whether the decision still stands is not known.")
            await queue.retryUndo()
            #expect(queue.pendingUndo == nil && queue.undoUnknown == nil && queue.bar == nil)
            let withdrawals = try await server.log().posts(endingWith: "/withdrawal")
            #expect(withdrawals.count == 5 && Set(withdrawals.map(\.idempotencyKey)).count == 1)
            #expect(queue.state.value?.items.first?.id == "q_2")
        }

        // M-NET-2 (timeout)
        @MainActor @Test func aSlowReplyTimesOutIsResentAndTheServerKeepsOneDecision() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let page = try #require(
                try await server.workspace("ada", sleeper: sleeper, timeout: .seconds(1)).queue?.question("q_2"))
            await page.refresh()
            try await server.fail("/api/projects/shop/questions/q_2/decisions", status: nil, times: 1, delayMs: 2500)
            await page.answer("test_wrong")
            #expect(page.recorded != nil)
            #expect(sleeper.delays.first == .seconds(1))
            // The slow first send finishes on the server after the resend; it replays, it does not decide twice.
            try await waitForLog(server) { $0.posts(endingWith: "/decisions").allSatisfy { $0.status != nil } }
            await page.refresh()
            #expect(page.state.value?.ledger.count == 1)
        }

        @MainActor @Test func resultsAreNotResentByThemselves() async throws {  // M-NET-2 (results get Retry only)
            let server = try ReferenceServer()
            try await server.reset()
            let sleeper = RecordingSleeper()
            let run = try #require(try await server.workspace("ada", sleeper: sleeper).runs?.run("r_1"))
            await run.refresh()
            await run.open("s_2")
            try await server.dropReply("/api/projects/shop/runs/r_1/slots/s_2/results")
            await run.record(.pass)
            #expect(sleeper.delays.isEmpty && run.pendingResult != nil)
            #expect(run.problem?.contains("may or may not have been recorded") == true)
            // Sent once: the server committed it once and never saw it again (no transport resend either).
            try await waitForLog(server) { $0.posts(endingWith: "/results").allSatisfy { $0.status != nil } }
            #expect(try await server.log().posts(endingWith: "/results").count == 1)
            await run.retry()
            #expect(run.pendingResult == nil && run.openSlot?.slot.id == "s_4")
            #expect(try await server.log().posts(endingWith: "/results").last?.replayed == true)
        }

        @MainActor @Test func everyPostNeedsAKeyAndAKeyReusedForAnotherBodyIsRefused() async throws {  // M-NET-3
            let server = try ReferenceServer()
            try await server.reset()
            let connection = try await server.signedIn("ada")
            let path = "/api/projects/shop/runs/r_1/slots/s_2/results"
            let noKey = Request<JSONValue>.post(path, body: ["outcome": "pass"] as JSONValue)
            try await server.clearLog()
            do {
                _ = try await connection.read(noKey)
                Issue.record("a POST without a key was accepted")
            } catch {
                guard case .refused(let refusal) = error else { throw error }
                #expect(refusal.status == 400 && refusal.code == "idempotency_key_required")
            }
            let first = try await connection.read(noKey.idempotencyKey("k-1"))
            let again = try await connection.read(noKey.idempotencyKey("k-1"))
            #expect(first == again)
            let other = Request<JSONValue>.post(path, body: ["outcome": "skip"] as JSONValue).idempotencyKey("k-1")
            do {
                _ = try await connection.read(other)
                Issue.record("a reused key was accepted")
            } catch {
                guard case .refused(let refusal) = error else { throw error }
                #expect(refusal.status == 422 && refusal.code == "idempotency_key_reused")
            }
            // As the server logged them: refused, recorded, replayed (the same reply), refused; one result made.
            let posts = try await server.log().posts(endingWith: "/results")
            #expect(posts.map(\.status) == [400, 201, 201, 422])
            #expect(posts.map(\.replayed) == [false, false, true, false])
            #expect(first["result"]?["outcome"] == "pass")
            // Replies are kept 24 hours; after that the key is free again.
            try await server.advanceClock(hours: 25)
            let later = try await connection.read(other)
            #expect(later["result"]?["outcome"] == "skip")
            // Two commands for the same request carry two keys.
            let body = ResultBody(outcome: .pass, note: nil, failedStep: nil)
            let one = connection.command(MainworthyAPI.record("shop", run: "r_1", slot: "s_2", body))
            let two = connection.command(MainworthyAPI.record("shop", run: "r_1", slot: "s_2", body))
            #expect(one.key != two.key && !one.key.isEmpty)
        }
    }
}

/// A port on 127.0.0.1 where nothing listens.
func unusedPort() throws -> Int {
    // The socket closes when it is released, at the end of this expression.
    try ListeningSocket().port
}

/// Waits on the server's log for at most 5 s until `condition` holds: checked now and after each change the
/// server reports (its change feed, `log(changedAfter:waitMs:)`), not on a timer.
func waitForLog(
    _ server: ReferenceServer, _ condition: @Sendable ([ReferenceServer.LoggedRequest]) -> Bool
) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    var log = try await server.log(changedAfter: nil)
    while !condition(log.items) {
        let left = (deadline - ContinuousClock.now) / .milliseconds(1)
        guard left > 0, let version = log.version else {
            Issue.record("the server's log did not reach the expected state within 5 s")
            return
        }
        log = try await server.log(changedAfter: version, waitMs: Int(left.rounded(.up)))
    }
}

extension AgainstReferenceServer {
    @Suite struct PipelineResults {
        /// Posts a pipeline report for `commit` failing C-12, with the fixture's pipeline token.
        static func report(_ server: ReferenceServer, commit: String, branch: String?) async throws -> JSONValue {
            var request = Request<JSONValue>.post(
                "/api/projects/shop/reports",
                body: [
                    "commit": .string(commit), "base": "0f0e0d0", "branch": branch.map { .string($0) } ?? .null,
                    "pull_request": .null, "state": "open", "job": "e2e",
                    "results": [
                        ["test": "checkout › pays with card", "outcome": "fail", "message": "500", "cases": ["C-12"]]
                    ],
                    "touches": ["C-12"],
                ] as JSONValue
            ).idempotencyKey("report-\(commit)-\(branch ?? "none")")
            request.headers["Authorization"] = "Bearer \(try await server.pipelineToken())"
            return try await server.control.send(request)
        }

        @MainActor @Test func aRunAcceptsPipelineResultsOnlyForItsCommit() async throws {  // M-PLAN-5
            let server = try ReferenceServer()
            try await server.reset()
            let runs = try #require(try await server.workspace("ada").runs)
            await runs.plan(name: "With commit", selection: .search("C-12"), commit: "d4e5f6a")
            let withCommit = try #require(runs.plannedRun)
            await runs.plan(name: "Manual only", selection: .search("C-12"))
            let manualOnly = try #require(runs.plannedRun)
            let open = runs.run("r_1")  // accepts a1b2c3d
            await open.refresh()
            let before = open.state.value?.slots.first?.result?.id
            _ = try await Self.report(server, commit: "d4e5f6a", branch: "feat/cart")
            await withCommit.refresh()
            await manualOnly.refresh()
            await open.refresh()
            #expect(withCommit.state.value?.slots.first?.result?.outcome == .fail)
            #expect(withCommit.state.value?.slots.first?.result?.by?.name == "pipeline")
            #expect(manualOnly.state.value?.slots.first?.result == nil)
            #expect(open.state.value?.slots.first?.result?.id == before)
            // Manual results still go to the run planned with a commit.
            await withCommit.open(try #require(withCommit.state.value?.slots.first?.id))
            await withCommit.record(.pass)
            #expect(withCommit.problem == nil)
        }

        @Test func aReportNamingNoBranchOrPullRequestMakesNoChange() async throws {  // M-CHG-1 (this part's share)
            let server = try ReferenceServer()
            try await server.reset()
            #expect(try await Self.report(server, commit: "e5f6a7b", branch: nil) == ["change": .null])
            #expect(try await Self.report(server, commit: "e5f6a7b", branch: "feat/cart") == ["change": "ch_1"])
        }
    }
}
