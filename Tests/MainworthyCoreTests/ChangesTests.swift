import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

/// The control endpoints and pipeline input of the changes part.
extension ReferenceServer {
    /// Moves `change`'s head after the `after`-th part of each of the next `times` reads (or at once).
    func moveHead(_ change: String, times: Int = 1, after: Int = 1, now: Bool = false) async throws {
        let body: JSONValue = [
            "change": .string(change), "times": .integer(Int64(times)), "after": .integer(Int64(after)),
            "now": .bool(now),
        ]
        _ = try await control.send(Request<JSONValue>.post("/_control/move-head", body: body))
    }

    /// The next `times` streams opened send `afterEvents` events, then half of the next, and close.
    func cutStream(afterEvents: Int, times: Int = 1) async throws {
        let body: JSONValue = ["after_events": .integer(Int64(afterEvents)), "times": .integer(Int64(times))]
        _ = try await control.send(Request<JSONValue>.post("/_control/cut-stream", body: body))
    }

    /// Publishes `times` events of `kind` in `shop`; returns the last one's revision.
    @discardableResult
    func publish(_ kind: String, times: Int = 1, data: JSONValue = [:]) async throws -> Int {
        let body: JSONValue = ["kind": .string(kind), "times": .integer(Int64(times)), "data": data]
        let reply = try await control.send(Request<JSONValue>.post("/_control/publish", body: body))
        return Int(reply["revision"]?.intValue ?? 0)
    }

    /// One report on each of `count` new branches of `shop`.
    func branches(_ count: Int, prefix: String = "bulk/") async throws {
        let body: JSONValue = ["count": .integer(Int64(count)), "prefix": .string(prefix)]
        _ = try await control.send(Request<JSONValue>.post("/_control/branches", body: body))
    }

    /// Posts a pipeline report with the fixture's pipeline token (or `token`), as a pipeline would.
    func report(_ report: PipelineReport, token: String? = nil, project: String = "shop") async throws -> ReportReply {
        let pipelineToken: String
        if let token { pipelineToken = token } else { pipelineToken = try await self.pipelineToken() }
        let request = MainworthyAPI.report(project, token: pipelineToken, report)
            .idempotencyKey(UUID().uuidString)
        return try await control.send(request)
    }

    /// The failing report the demo posts: a new head of feat/cart whose card test fails.
    static func failingCartReport(commit: String = "d4e5f6a") -> PipelineReport {
        PipelineReport(
            commit: commit, base: "0f0e0d0", branch: "feat/cart", pullRequest: 412,
            results: [
                .init(
                    test: "checkout.spec.ts › pays with card", outcome: "fail", message: "expected 200, got 500",
                    cases: ["C-12"])
            ], touches: ["C-12"])
    }
}

extension AgainstReferenceServer {
    @Suite struct Changes {
        @MainActor static func page(_ server: ReferenceServer, _ id: String, user: String = "ada") async throws
            -> ChangeModel
        {
            let workspace = try await server.workspace(user)
            return ChangesModel(workspace: workspace, project: "shop").change(id)
        }

        @MainActor @Test func aReportWithABranchOrPullRequestMakesAChangeAndOneWithNeitherMakesNone() async throws {
            // M-CHG-1
            let server = try ReferenceServer()
            try await server.reset()
            let made = try await server.report(PipelineReport(commit: "aaa1111", branch: "feat/search"))
            let byPR = try await server.report(PipelineReport(commit: "bbb2222", pullRequest: 420))
            let neither = try await server.report(PipelineReport(commit: "ccc3333"))
            #expect(made.change == "ch_4" && byPR.change == "ch_5")
            #expect(neither.change == nil)
            let list = ChangesModel(workspace: try await server.workspace("ada"), project: "shop")
            await list.refresh()
            #expect(list.state.value?.map(\.id) == ["ch_5", "ch_4", "ch_2", "ch_1", "ch_3"])
            #expect(list.state.value?.first?.ref == ChangeRef(pullRequest: 420))
            // A report on a known branch updates its change instead of making another.
            let again = try await server.report(PipelineReport(commit: "ddd4444", branch: "feat/search"))
            #expect(again.change == "ch_4")
        }

        @MainActor @Test func thePipelineTokenIsGoodOnlyForReportsOfItsProject() async throws {
            // M-CHG-1 (the pipeline input), §2 Auth: the token works only for POST …/reports.
            let server = try ReferenceServer()
            try await server.reset()
            let token = try await server.pipelineToken()
            var read = Request<JSONValue>.get("/api/projects/shop/changes")
            read.headers["Authorization"] = "Bearer \(token)"
            await #expect(throws: HTTPError.self) { try await server.control.send(read) }
            #expect(try await server.control.reply(read).status == 401)
            // Another project's reports refuse it.
            let elsewhere = MainworthyAPI.report("ops", token: token, PipelineReport(commit: "a", branch: "x"))
                .idempotencyKey("k-ops")
            #expect(try await server.control.reply(elsewhere).status == 401)
            // A session cannot report.
            let connection = try await server.signedIn("ada")
            let withCookie = Request<ReportReply>.post(
                "/api/projects/shop/reports", body: PipelineReport(commit: "a", branch: "x")
            ).idempotencyKey("k-cookie")
            do {
                _ = try await connection.read(withCookie)
                Issue.record("a session reported")
            } catch {
                #expect(error == .signedOut(serverSentence: "A report needs the project's pipeline token."))
            }
        }

        @MainActor @Test func theListHoldsTheNewest500AndA501stBranchPushesTheOldestOut() async throws {
            // M-CHG-2, O-20
            let server = try ReferenceServer()
            try await server.reset()
            try await server.branches(497)
            let list = ChangesModel(workspace: try await server.workspace("ada"), project: "shop")
            await list.refresh()
            #expect(list.state.value?.count == 500)
            #expect(list.state.value?.last?.id == "ch_3")  // feat/wallet: the oldest report
            _ = try await server.report(PipelineReport(commit: "e5e5e5e", branch: "feat/501st"))
            await list.refresh()
            let rows = try #require(list.state.value)
            #expect(rows.count == 500)
            #expect(rows.first?.ref?.branch == "feat/501st")
            #expect(!rows.contains { $0.id == "ch_3" })
            let dates = rows.compactMap(\.updatedAt)
            #expect(dates == dates.sorted(by: >))
        }

        @MainActor @Test func aChangeEventUpdatesOrInsertsAtTheTopAndTrimsTo500() async throws {
            // M-CHG-4 (the rule on the list, without the network)
            func row(_ id: String, _ minute: Double, verdict: GateVerdict = .passing) -> ChangeSummary {
                ChangeSummary(
                    id: id, head: "h\(id)", updatedAt: Date(timeIntervalSince1970: minute * 60),
                    gate: GateMark(verdict: verdict))
            }
            let full = (0..<500).map { row("ch_\($0)", Double(1000 - $0)) }
            let inserted = ChangesModel.inserting(row("ch_new", 2000), into: full)
            #expect(inserted.count == 500 && inserted.first?.id == "ch_new" && inserted.last?.id == "ch_498")
            let reported = ChangesModel.inserting(row("ch_7", 2001), into: full)
            #expect(
                reported.first?.id == "ch_7" && reported.count == 500 && reported.filter { $0.id == "ch_7" }.count == 1)
            let verdictOnly = ChangesModel.inserting(row("ch_7", Double(1000 - 7), verdict: .failing), into: full)
            #expect(verdictOnly[7].id == "ch_7" && verdictOnly[7].gate?.verdict == .failing)
            // §2's event data: {"id", "state", "head", "gate"}, no ref, title or report time. A new head is a new
            // report (to the top); the same head is a new verdict (in place); what the row knew stays.
            var known = full
            known[7].ref = ChangeRef(branch: "feat/seven")
            known[7].title = "Seven"
            let newHead = ChangesModel.inserting(
                ChangeSummary(id: "ch_7", state: "open", head: "moved", gate: GateMark(verdict: .pending)), into: known)
            #expect(newHead.first?.id == "ch_7" && newHead.first?.head == "moved" && newHead.count == 500)
            #expect(newHead.first?.ref?.branch == "feat/seven" && newHead.first?.title == "Seven")
            let sameHead = ChangesModel.inserting(
                ChangeSummary(id: "ch_7", state: "open", head: "hch_7", gate: GateMark(verdict: .failing)), into: known)
            #expect(sameHead[7].id == "ch_7" && sameHead[7].gate?.verdict == .failing && sameHead[7].title == "Seven")
            let unknown = ChangesModel.inserting(ChangeSummary(id: "ch_new2", state: "open", head: "h"), into: known)
            #expect(unknown.first?.id == "ch_new2" && unknown.first?.lacksListFields == true && unknown.count == 500)
        }

        @MainActor @Test func thePageShowsHeadBaseVerdictReasonFailingTestsCasesAndQuestions() async throws {
            // M-CHG-3
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_1")
            await page.refresh()
            let value = try #require(page.state.value)
            #expect(value.change.head == "a1b2c3d" && value.change.base == "0f0e0d0")
            #expect(value.change.ref == ChangeRef(branch: "feat/cart", pullRequest: 412))
            #expect(value.gate.verdict == .failing)
            #expect(value.gate.reason == "1 failing test is unexplained.")
            #expect(value.failingTests.map(\.test) == ["checkout.spec.ts › pays with card"])
            #expect(value.failingTests.first?.cases.map(\.number) == ["C-12"])
            #expect(value.failingTests.first?.message == "expected 200, got 500")
            #expect(value.cases.map(\.number) == ["C-12", "C-1", "C-2"])
            #expect(value.openQuestions.map(\.id) == ["q_2"])
            #expect(value.partHeads == Array(repeating: "a1b2c3d", count: 4))
            #expect(page.lastReadAttempts == 1)
        }

        @MainActor @Test func anOpenPageStaysReadableWhenItsChangeLeavesTheList() async throws {
            // M-CHG-5
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let list = ChangesModel(workspace: workspace, project: "shop")
            let page = list.change("ch_3")
            await page.refresh()
            try await server.branches(500)
            await list.refresh()
            #expect(list.state.value?.contains { $0.id == "ch_3" } == false)
            #expect(page.state.value?.change.id == "ch_3")
            await page.refresh()
            guard case .content(let value, _) = page.state else {
                Issue.record("the page was not read by id: \(page.state)")
                return
            }
            #expect(value.change.ref?.branch == "feat/wallet" && value.change.state == "merged")
        }

        @MainActor @Test func aHeadMovingBetweenPartsRepeatsTheWholeReadOnce() async throws {
            // M-CHG-6
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_1")
            try await server.moveHead("ch_1", times: 1, after: 2)
            try await server.clearLog()
            await page.refresh()
            let value = try #require(page.state.value)
            #expect(page.lastReadAttempts == 2 && page.moved == nil)
            #expect(value.head != "a1b2c3d")
            #expect(Set(value.partHeads) == [value.head])
            #expect(value.gate.verdict == .pending)  // no report names the new head yet
            let reads = try await server.log().filter { $0.path == "/api/projects/shop/changes/ch_1" }
            #expect(reads.count == 2)
        }

        @MainActor @Test func aHeadMovingAgainKeepsThePreviousPageAndSaysSo() async throws {
            // M-CHG-7
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_1")
            await page.refresh()
            let previous = try #require(page.state.value)
            try await server.moveHead("ch_1", times: 2)
            await page.refresh()
            #expect(page.moved == "The change moved while it was being read. Pull down to try again.")
            #expect(page.state.value == previous)  // never a page that mixes two heads
            #expect(page.state.value?.head == "a1b2c3d")
        }

        @MainActor @Test func withNoPreviousPageOnlyTheMovedSentenceIsShown() async throws {
            // M-CHG-7
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_2")
            try await server.moveHead("ch_2", times: 2, after: 3)
            await page.refresh()
            #expect(page.state == .failed(reason: ChangeModel.movedSentence, signInRequired: false))
            #expect(page.state.value == nil)
        }

        @MainActor @Test func aPullAfterAMoveIsANewReadWithItsOwnRetry() async throws {
            // M-CHG-8
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_1")
            try await server.moveHead("ch_1", times: 3)
            await page.refresh()
            #expect(page.moved != nil)
            // The third move is spent by the pull's first read; its own retry reads a steady head.
            await page.refresh()
            #expect(page.moved == nil && page.lastReadAttempts == 2)
            let value = try #require(page.state.value)
            #expect(Set(value.partHeads) == [value.head])
        }

        @MainActor @Test func aPartThatDoesNotDecodeIsAFailureNotAMove() async throws {
            // M-CHG-6, M-CHG-7: only parts naming different heads repeat the read and say the change moved; a part
            // the client cannot read (here the gate, twice, so a repeat would fail too) is the read's own failure,
            // after one read.
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_1")
            try await server.fail("/api/projects/shop/changes/ch_1/gate", status: 200, times: 2, reply: ["head": 7])
            try await server.clearLog()
            await page.refresh()
            #expect(page.moved == nil && page.lastReadAttempts == 1)
            #expect(page.state.kind == .failed && page.state.problem != ChangeModel.movedSentence)
            let reads = try await server.log().filter { $0.path == "/api/projects/shop/changes/ch_1/gate" }
            #expect(reads.count == 1)
        }

        @MainActor @Test(.timeLimit(.minutes(1))) func anAnswerFromTheChangePageReadsTheGateAgain() async throws {
            // M-CHG-9: an answer from the change page follows the queue's rules (M-QUEUE-8, -9, -12), and once it
            // is confirmed the gate is read again.
            let server = try ReferenceServer()
            try await server.reset()
            try await server.grant("bo", ["read", "decide"])
            let page = try await Self.page(server, "ch_1")
            await page.refresh()
            #expect(page.state.value?.openQuestions.map(\.id) == ["q_2"])
            let question = await page.openQuestion("q_2")
            #expect(question.availability.isEnabled)
            // The page's answers are the server's, each with its sentence.
            #expect(question.state.value?.answers.map(\.key) == ["defect", "flaky", "test_wrong"])
            #expect(question.state.value?.answers.allSatisfy { !$0.sentence.isEmpty } == true)
            try await server.clearLog()
            // A required reason left blank: the app asks for it and sends nothing (M-QUEUE-9).
            await question.answer("flaky", reason: "  ")
            #expect(question.problem == "“Flaky test” needs a reason. Type one, then answer again.")
            // An answer that is not the page's own is not sent either (M-QUEUE-8).
            await question.answer("wontfix", reason: "No")
            #expect(question.problem == "This answer cannot be given here.")
            #expect(try await server.log().posts(endingWith: "/decisions").isEmpty)
            // Decided meanwhile by bo: 409 decision_changed, who decided what, nothing of ada's recorded (M-QUEUE-12).
            let bo = try #require(try await server.workspace("bo").queue)
            await bo.refresh()
            let bosPage = bo.question("q_2")
            await bosPage.refresh()
            await bosPage.answer("test_wrong")
            try await server.clearLog()
            await question.answer("flaky", reason: "Runner timeout")
            #expect(try await server.log().posts(endingWith: "/decisions").map(\.status) == [409])
            #expect(question.recorded == nil && question.changedMeanwhile?.by?.name == "bo")
            #expect(question.problem == "This question was decided meanwhile. Now: The test is wrong by bo.")
            // bo undoes his; read again, ada's answer goes through.
            await bo.undo(reason: "Wrong call")
            #expect(bo.undoProblem == nil)
            await question.refresh()
            try await server.clearLog()
            await question.answer("flaky", reason: "Runner timeout")
            #expect(question.recorded?.recorded == "Flaky test recorded for checkout › pays with card.")
            #expect(question.problem == nil)
            // What was sent: the answer, the reason, no tracker, and the decision the page showed (none).
            let sent = try await server.log().posts(endingWith: "/questions/q_2/decisions")
            #expect(sent.map(\.status) == [201])
            #expect(
                sent.first?.body == [
                    "answer": "flaky", "reason": "Runner timeout", "tracker": .null, "expected_decision_id": .null,
                ])
            await waitUntilObserved { page.state.value?.gate.verdict == .passing }
            #expect(page.state.value?.gate.reason == "1 failure was explained.")
            #expect(page.state.value?.openQuestions.isEmpty == true)
            let paths = try await server.log().map(\.path)
            let answered = try #require(paths.firstIndex(of: "/api/projects/shop/questions/q_2/decisions"))
            #expect(paths[answered...].contains("/api/projects/shop/changes/ch_1/gate"))
        }

        // M-CHG-6, M-CHG-10 (mutation survivors m-305303be06, m-b27f20953c): an event that gives the open change a
        // new head reads the page again; a page with nothing read yet is not ended.
        @MainActor @Test func anEventWithANewHeadReadsThePageAgain() async throws {
            let server = try ReferenceServer()
            try await server.reset()
            let page = try await Self.page(server, "ch_1")
            #expect(!page.isEnded)
            await page.refresh()
            let shown = try #require(page.state.value)
            #expect(page.reads == 1 && !page.isEnded)
            let verdict = JSONValue.object(["verdict": .string(shown.gate.verdict.rawValue)])
            page.follow(
                ProjectEvent(
                    kind: "change", revision: 1_000,
                    data: ["id": "ch_1", "state": "open", "head": "0000000", "gate": verdict]))
            let readAgain = await waitUntilObserved(upTo: .seconds(10)) { page.reads == 2 }
            #expect(readAgain)
        }

        @MainActor @Test func aMergedOrClosedChangeIsEndedWithItsLastVerdictAndNoActionEndsOrReruns() async throws {
            // M-CHG-10
            let server = try ReferenceServer()
            try await server.reset()
            let merged = try await Self.page(server, "ch_3")
            await merged.refresh()
            #expect(merged.isEnded && merged.state.value?.change.state == "merged")
            #expect(merged.state.value?.gate.verdict == .passing)
            #expect(merged.actions == [.refresh, .openQuestion])
            // A failing report, then the change is closed: the gate keeps its head's last verdict.
            _ = try await server.report(ReferenceServer.failingCartReport())
            _ = try await server.report(PipelineReport(commit: "d4e5f6a", branch: "feat/cart", state: "closed"))
            let closed = try await Self.page(server, "ch_1")
            await closed.refresh()
            #expect(closed.isEnded && closed.state.value?.gate.verdict == .failing)
        }
    }
}
