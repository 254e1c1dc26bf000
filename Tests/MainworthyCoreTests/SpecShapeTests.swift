import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

/// The core's decoders against the replies exactly as §2 of the spec shows them (its `…` filled in with
/// plausible values, nothing added): every one decodes, and what the screens need is there. A decoder that
/// required a member §2 does not show fails here.
@Suite struct SpecShapes {
    /// A client, for what the core decodes with the client's decoder (an event's payload).
    static let client = Client(baseURL: URL(filePath: "/"))

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try Client.makeDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func signInSessionsAndProjectsDecodeAsSection2ShowsThem() throws {  // M-AUTH-2, M-SESS-1, M-CAP-1
        let opened = try Self.decode(
            SessionOpened.self,
            #"""
            {"user":{"id":"u_1","name":"ada"},"session":{"id":"se_5","client":"Mainworthy for iPhone",
             "opened_by":"password","opened_at":"2026-11-28T09:00:00Z","opened_from":"Lisbon, PT",
             "last_used_at":"2026-11-28T09:00:00Z","last_used_from":"Lisbon, PT","current":true}}
            """#)
        #expect(opened.user.id == "u_1" && opened.session.current)
        let sessions = try Self.decode(
            ListReply<SessionRecord>.self,
            #"{"items":[{"id":"se_5","current":true},{"id":"se_2","client":"Firefox on macOS","opened_by":"passkey","current":false}]}"#
        )
        #expect(sessions.items.map(\.info.isCurrent) == [true, false])
        let me = try Self.decode(Me.self, #"{"user":{"id":"u_1","name":"ada"},"session_id":"se_5"}"#)
        #expect(me.user.name == "ada" && me.sessionID == "se_5")
        let projects = try Self.decode(
            ListReply<Project>.self,
            #"{"items":[{"key":"shop","name":"Shop","capabilities":["read","decide","produce","plan"]}]}"#)
        #expect(projects.items.first?.capabilities == [.read, .decide, .produce, .plan])
        #expect(try Self.decode(ServerVersion.self, #"{"name":"mainworthy","version":"1.31.0"}"#).version == "1.31.0")
    }

    @Test func theQueueAndAQuestionDecodeAsSection2ShowsThem() throws {  // M-QUEUE-4, M-QUEUE-7, M-QUEUE-12
        let queue = try Self.decode(
            QueueReply.self,
            #"""
            {"summary":{"failures":1,"can_wait":3},"revision":1042,"next_cursor":null,
             "items":[{"id":"q_41","kind":"failure","title":"checkout › pays with card","waiting_since":"2026-11-28T09:00:00Z"}]}
            """#)
        #expect(queue.summary.line == "1 failure to explain \u{00B7} 3 can wait" && queue.items.first?.kind == .failure)
        let question = try Self.decode(
            Question.self,
            #"""
            {"id":"q_41","kind":"failure","state":"open","title":"checkout › pays with card","web_url":"https://m.example/shop/q/41",
             "evidence":{"failure":{"test":"checkout.spec.ts › pays with card","message":"expected 200, got 500","job":"e2e",
                                    "commit":"a1b2c3d","location":"checkout.spec.ts:42"}},
             "answers":[{"key":"defect","label":"Defect in the product","sentence":"Keeps the failure on the gate.",
                         "reason_required":false,"asks_tracker":true},
                        {"key":"flaky","label":"Flaky test","sentence":"Takes it off.","reason_required":true,"asks_tracker":false}],
             "withdraw_reason_required":true,"decision":null,"ledger":[]}
            """#)
        #expect(question.evidence.failure?.location == "checkout.spec.ts:42" && question.answers.count == 2)
        let proposal = try Self.decode(
            Evidence.self,
            #"""
            {"proposal":{"edit_count":2,"edits":[{"op":"create_case","document":{"title":"T","preconditions":"","steps":[]}},
                         {"op":"edit_case","case":"C-12","base_version":3,"changes":{"title":["Old","New"]}}]}}
            """#)
        #expect(proposal.proposal?.edits.map(\.op) == ["create_case", "edit_case"] && proposal.parts.isEmpty)
        let answered = try Self.decode(
            AnswerReply.self,
            #"""
            {"decision":{"id":"d_301","question_id":"q_41","answer":"flaky","by":{"id":"u_1","name":"ada"},
              "at":"2026-11-28T09:00:00Z","reason":"Runner timeout","tracker":null},
             "recorded":"Flaky test recorded for checkout › pays with card."}
            """#)
        // The decision names its question (mutation survivor m-b826bfe9e8): a 409 on Undo finds the labels by it.
        #expect(answered.decision.questionID == "q_41" && answered.decision.reason == "Runner timeout")
        // §2's decision names the answer's key, not its label: the page's answers name it.
        #expect(answered.decision.labelled(from: question.answers).summary == "Flaky test by ada")
        let current = try Self.decode(
            Decision.self, #"{"id":"d_305","answer":"defect","by":{"name":"bo"},"at":"2026-11-28T09:00:00Z"}"#)
        #expect(current.labelled(from: question.answers).summary == "Defect in the product by bo")
        let withdrawn = try Self.decode(
            WithdrawalReply.self,
            #"{"withdrawal":{"id":"d_302","withdraws":"d_301","by":{"name":"ada"},"at":"2026-11-28T09:00:00Z"},"question":{"id":"q_41","state":"open"}}"#
        )
        #expect(withdrawn.withdrawal.withdraws == "d_301")
        let decided = try Self.decode(
            ListReply<DecidedItem>.self,
            #"""
            {"items":[{"id":"d_305","question":{"id":"q_40","kind":"sign_off","title":"Release 4.2"},
              "answer":{"key":"sign_off","label":"Sign off"},"by":{"name":"bo"},"at":"2026-11-28T09:00:00Z"}],"next_cursor":null}
            """#)
        #expect(decided.items.first?.by.name == "bo")
    }

    // O-22: evidence of a kind §2 does not define decodes into labelled text, in any shape, and the question opens.
    @Test func evidenceOfOtherKindsIsLabelledTextAndTheQuestionOpens() throws {  // M-QUEUE-7, O-22
        let shapes = [
            #"{"review":{"finding":"Step 3 has no expected result.","by":{"name":"bo"},"case":{"id":"c_14","number":"C-14"}}}"#,
            #"{"review":{"summary":"Step 3 has no expected result.","reviewer":"bo","case_number":"C-14"}}"#,
            #"{"review":"Step 3 has no expected result."}"#,
        ]
        for shape in shapes {
            let evidence = try Self.decode(Evidence.self, shape)
            let part = try #require(evidence.part("review"), "\(shape)")
            #expect(part.text.contains("Step 3 has no expected result."), "\(part)")
            #expect(part.fields.allSatisfy { !$0.label.isEmpty && !$0.text.isEmpty })
        }
        let later = try Self.decode(
            Question.self,
            #"""
            {"id":"q_9","kind":"audit","state":"open","title":"A kind from a later server","web_url":"https://m.example/q/9",
             "evidence":{"audit":{"checked_by":{"name":"cy"},"items":["C-1","C-2"],"passed":false}},
             "answers":[{"key":"ok","label":"OK","sentence":"s","reason_required":false,"asks_tracker":false}],
             "withdraw_reason_required":false,"decision":null,"ledger":[]}
            """#)
        let audit = try #require(later.evidence.part("audit"))
        #expect(audit.fields.map(\.label) == ["checked by", "items", "passed"])
        #expect(audit.fields.map(\.text) == ["cy", "C-1, C-2", "no"])
        // Its answers follow the rules: a kind the app does not know is answered in the web app.
        let availability = AnswerAvailability.evaluate(later, capabilities: [.read, .decide], lastEditShown: true)
        #expect(availability.blocker == .web(.kind(QuestionKind(rawValue: "audit"))))
        // A failure or proposal member that is not §2's shape is shown as text too, never a page that fails.
        let odd = try Self.decode(Evidence.self, #"{"failure":{"name":"checkout","why":"500"}}"#)
        #expect(odd.failure == nil && odd.part("failure")?.text == "name: checkout; why: 500")
    }

    @Test func runsDecodeAsSection2ShowsThem() throws {  // M-RUN-1, M-RUN-4, M-RUN-8, M-PLAN-1
        let slot = try Self.decode(
            SlotDetail.self,
            #"""
            {"slot":{"id":"s_1","position":1,"case":{"id":"c_12","number":"C-12","title":"Pay by card","version":3},
                     "result":{"id":"res_5","outcome":"fail","note":"500 on submit","failed_step":2,"by":{"name":"ada"},"at":"2026-11-28T09:00:00Z"}},
             "case":{"number":"C-12","version":3,"title":"Pay by card","preconditions":"Signed in.",
                     "steps":[{"action":"Open the cart","expected":null}]},
             "results":[{"id":"res_5","outcome":"fail","note":"500 on submit","failed_step":2,"by":{"name":"ada"},"at":"2026-11-28T09:00:00Z"}]}
            """#)
        #expect(slot.case.steps.first?.action == "Open the cart" && slot.results.first?.failedStep == 2)
        let recorded = try Self.decode(
            RecordReply.self,
            #"{"result":{"id":"res_6","outcome":"fail"},"your_previous":{"outcome":"pass","note":null,"failed_step":null}}"#
        )
        #expect(recorded.yourPrevious?.outcome == .pass)
        let planned = try Self.decode(PlanReply.self, #"{"run":{"id":"r_8","name":"Release 4.3"},"slot_count":14}"#)
        #expect(planned.slotCount == 14)
        // §2 shows no row of the runs list: only an id is required.
        let rows = try Self.decode(
            ListReply<RunSummary>.self, #"{"items":[{"id":"r_8"},{"id":"r_7","name":"Release 4.2","state":"open"}]}"#)
        #expect(rows.items.map(\.id) == ["r_8", "r_7"] && rows.items[0].name == nil)
    }

    @Test func changesDecodeAsSection2ShowsThem() throws {  // M-CHG-2, M-CHG-3, M-CHG-4, M-CHG-6
        let list = try Self.decode(
            ChangeListReply.self,
            #"""
            {"revision":1042,"items":[{"id":"ch_88","ref":{"branch":"feat/cart","pull_request":412},"title":"Cart rework",
              "state":"open","head":"a1b2c3d","gate":{"verdict":"failing"},"updated_at":"2026-11-28T09:00:00Z"}]}
            """#)
        #expect(list.items.first?.ref?.label == "feat/cart #412" && list.items.first?.gate?.verdict == .failing)
        let change = try Self.decode(
            ChangeSummary.self,
            #"{"id":"ch_88","state":"open","head":"a1b2c3d","base":"0f0e0d0","ref":{"branch":"feat/cart","pull_request":412},"updated_at":"2026-11-28T09:00:00Z"}"#
        )
        #expect(change.base == "0f0e0d0" && change.title == nil && change.gate == nil)
        let gate = try Self.decode(
            Gate.self,
            #"{"head":"a1b2c3d","verdict":"failing","reason":"2 failing tests are unexplained.","questions":[{"id":"q_41","kind":"failure","title":"t"}]}"#
        )
        #expect(gate.questions.map(\.id) == ["q_41"])
        // M-CHG-3: §2's failing tests name no outcome; a page with failing tests still reads.
        let failing = try Self.decode(
            HeadedList<FailingTest>.self,
            #"{"head":"a1b2c3d","items":[{"test":"checkout › pays","message":"expected 200, got 500","cases":[{"id":"c_12","number":"C-12"}]}]}"#
        )
        #expect(failing.items.first?.outcome == nil && failing.items.first?.cases.first?.number == "C-12")
        let cases = try Self.decode(
            HeadedList<CaseLink>.self,
            #"{"head":"a1b2c3d","items":[{"id":"c_12","number":"C-12","title":"Pay by card"}]}"#)
        #expect(cases.items.first?.title == "Pay by card")
        // M-CHG-4: §2's change event data.
        let event = ProjectEvent(
            kind: "change", id: "1043", revision: 1043,
            data: ["id": "ch_88", "state": "open", "head": "d4e5f6a", "gate": ["verdict": "pending"], "revision": 1043])
        let row = try #require(event.change(decodedBy: Self.client))
        #expect(row.id == "ch_88" && row.head == "d4e5f6a" && row.gate?.verdict == .pending && row.lacksListFields)
    }

    @Test func casesDecodeAsSection2ShowsThem() throws {  // M-CASE-1..7, M-SAVE-1, M-SAVE-2, M-SAVE-4
        let browse = try Self.decode(
            BrowseReply.self,
            #"{"revision":1042,"folders":[{"id":"f_0","name":"Unsorted","system":true},{"id":"f_1","name":"Checkout"}],"tags":[{"name":"smoke","count":40}]}"#
        )
        #expect(browse.caseCount == nil && browse.folders.first?.system == true)
        let folder = try Self.decode(
            FolderPage.self,
            #"{"id":"f_1","name":"Checkout","path":[{"id":"f_1","name":"Checkout"}],"subfolders":[{"id":"f_3","name":"Payments"}]}"#
        )
        #expect(folder.subfolders.first?.name == "Payments")
        let rows = try Self.decode(
            ListReply<CaseRow>.self,
            #"{"revision":1042,"next_cursor":"x","items":[{"id":"c_12","number":"C-12","title":"Pay by card","version":3,"worst":"fail"},{"id":"c_13","number":"C-13","title":"t","version":1,"worst":null}]}"#
        )
        #expect(rows.items.map(\.mark) == [.cross, .none] && rows.revision == 1042)
        let page = try Self.decode(
            CasePage.self,
            #"""
            {"id":"c_12","number":"C-12","version":3,"title":"Pay by card","preconditions":"Signed in.",
             "steps":[{"action":"Open the cart","expected":null}],"runnable_by":"Anyone who may produce evidence",
             "folder":{"id":"f_3","name":"Payments"},"tags":["smoke"],"web_url":"https://m.example/shop/cases/12"}
            """#)
        #expect(page.version == 3 && page.currentVersion == nil && page.runnableBy != nil)
        // An old version: "the document as of version 2, with the current folder and tags".
        let old = try Self.decode(
            CasePage.self,
            #"{"title":"Pay by card (version 2)","preconditions":"","steps":[],"folder":{"id":"f_3","name":"Payments"},"tags":["smoke"]}"#
        )
        #expect(old.title == "Pay by card (version 2)" && old.id == nil && old.version == nil)
        let history = try Self.decode(
            ListReply<CaseVersionEntry>.self,
            #"{"items":[{"version":3,"author":{"name":"ada"},"at":"2026-11-28T09:00:00Z","reason":"Card form changed"}]}"#
        )
        #expect(history.items.first?.author.name == "ada")
        let adopted = try Self.decode(
            ProposalReply.self, #"{"proposal":{"id":"pr_10","state":"adopted","case_id":"c_12","version":4}}"#)
        let waiting = try Self.decode(
            ProposalReply.self, #"{"proposal":{"id":"pr_11","state":"waiting","question_id":"q_52"}}"#)
        let overlap = try Self.decode(
            ProposalReply.self,
            #"{"proposal":{"id":"pr_12","state":"overlap","question_id":"q_53","overlap":{"fields":["title","steps"],"with":"pr_8"}}}"#
        )
        #expect(adopted.proposal.version == 4 && adopted.revision == nil && waiting.proposal.questionID == "q_52")
        #expect(overlap.proposal.overlap?.fields == ["title", "steps"])
    }
}
