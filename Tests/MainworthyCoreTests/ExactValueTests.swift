import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

// Exact values a person reads or a decoder keys on, without a server: each sentence word for word, each §2 key
// decoded into its field, each boundary at the limit and one past it.

@Suite struct EditorWarningSentences {
    @Test func everyWarningOfO16ReadsItsOwnSentenceUnderItsOwnField() {  // M-EDIT-3, M-EDIT-4, M-EDIT-6, O-16
        let expected: [(EditorWarning, String, String)] = [
            (.titleEmpty, "title", "Give the case a title."),
            (.titleTooLong(units: 301), "title", "The title has 301 UTF-16 units; at most 300 fit."),
            (.titleLineBreak, "title", "The title has a line break."),
            (.titleTab, "title", "The title has a tab."),
            (.titleLeadingWhitespace, "title", "The title starts with a space or other whitespace."),
            (.titleTrailingWhitespace, "title", "The title ends with a space or other whitespace."),
            (
                .preconditionsWhitespaceOnly, "preconditions",
                "The preconditions are only whitespace: clear them or write some."
            ),
            (.actionEmpty(step: 2), "steps.1.action", "Step 2 has no action."),
            (
                .expectedWhitespaceOnly(step: 3), "steps.2.expected",
                "The expected result of step 3 is only whitespace: clear it or write one."
            ),
            (.reasonTooLong(units: 501), "reason", "The reason has 501 UTF-16 units; at most 500 fit."),
            (.reasonWhitespaceOnly, "reason", "The reason is only whitespace: clear it or write one."),
            (.reasonLeadingWhitespace, "reason", "The reason starts with a space or other whitespace."),
            (.reasonTrailingWhitespace, "reason", "The reason ends with a space or other whitespace."),
        ]
        for (warning, field, sentence) in expected {
            #expect(warning.description == sentence)
            #expect(warning.field == field, "\(warning)")
        }
        #expect(EditorWarning.titleLimit == 300 && EditorWarning.reasonLimit == 500)
    }

    @Test func everyLineBreakOfO16WarnsAndATitleCanCarryEveryWarningAtOnce() {  // O-16
        for scalar in ["\n", "\u{0B}", "\u{0C}", "\r", "\u{85}", "\u{2028}", "\u{2029}"] {
            let warnings = EditorWarning.check(CaseDocument(title: "Pay" + scalar + "now"), reason: "")
            #expect(warnings == [.titleLineBreak], "\(scalar.unicodeScalars.first?.value ?? 0)")
        }
        let long = " " + String(repeating: "a", count: 299) + "\t\n "
        #expect(
            EditorWarning.check(CaseDocument(title: long), reason: " " + String(repeating: "r", count: 500) + " ")
                == [
                    .titleTooLong(units: 303), .titleLineBreak, .titleTab, .titleLeadingWhitespace,
                    .titleTrailingWhitespace, .reasonTooLong(units: 502), .reasonLeadingWhitespace,
                    .reasonTrailingWhitespace,
                ])
    }
}

@Suite struct ReplyKeys {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func browseDecodesTheCaseCount() throws {  // M-FIND-1 (§2 GET P/browse)
        let reply = try decode(
            BrowseReply.self,
            #"{"revision":7,"case_count":42,"folders":[{"id":"f1","name":"Checkout"}],"tags":[{"name":"smoke","count":3}]}"#
        )
        #expect(reply.caseCount == 42 && reply.revision == 7)
        #expect(reply.folders.map(\.id) == ["f1"] && reply.tags.map(\.count) == [3])
    }

    @Test func meDecodesThisDevicesSession() throws {  // M-SESS-2 (§2 GET /api/me)
        let me = try decode(Me.self, #"{"user":{"id":"u1","name":"ada"},"session_id":"s-9"}"#)
        #expect(me.sessionID == "s-9" && me.user == Person(id: "u1", name: "ada"))
    }

    @Test func aPlanDecodesItsSlotCount() throws {  // M-PLAN-1
        let reply = try decode(PlanReply.self, #"{"run":{"id":"r1","name":"Nightly"},"slot_count":14}"#)
        #expect(reply.slotCount == 14 && reply.run.id == "r1" && reply.run.name == "Nightly")
    }

    @Test func aProposalDecodesItsCaseAndQuestion() throws {  // M-SAVE-1, M-SAVE-2 (§2 proposal reply)
        let reply = try decode(
            ProposalReply.self,
            #"{"proposal":{"id":"p1","state":"adopted","case_id":"c-3","number":"C-3","version":2,"question_id":"q-5"},"revision":4}"#
        )
        #expect(reply.proposal.caseID == "c-3" && reply.proposal.questionID == "q-5")
        #expect(reply.proposal.number == "C-3" && reply.proposal.version == 2 && reply.revision == 4)
    }

    @Test func theQueueDecodesItsNextCursor() throws {  // M-QUEUE-4 (§2 GET P/queue)
        let reply = try decode(
            QueueReply.self, #"{"summary":{"failures":0,"can_wait":1},"revision":3,"next_cursor":"c2","items":[]}"#)
        #expect(reply.nextCursor == "c2" && reply.summary == QueueSummary(failures: 0, canWait: 1))
    }

    @Test func aResultDecodesYourPreviousOne() throws {  // M-RUN-8
        let reply = try decode(
            RecordReply.self,
            #"{"result":{"id":"x1","outcome":"fail","failed_step":2},"your_previous":{"outcome":"pass","note":"ok"}}"#)
        #expect(reply.result.failedStep == 2 && reply.result.outcome == .fail)
        #expect(reply.yourPrevious == ResultBody(outcome: .pass, note: "ok", failedStep: nil))
    }
}

@Suite struct ErrorSentences {
    private func status(_ code: Int, message: String? = nil) -> HTTPError {
        .status(
            HTTPError.StatusFailure(
                method: "POST", url: "https://mw.example/api/x", status: code,
                envelope: message.map { ServerErrorEnvelope(message: $0) }))
    }

    @Test func a401SignsOutWithTheServersSentenceOrOurs() {  // M-NET-4
        #expect(
            MainworthyError(status(401, message: "Your session ended."))
                == .signedOut(serverSentence: "Your session ended."))
        #expect(MainworthyError(status(401)) == .signedOut(serverSentence: nil))
        #expect(MainworthyError(status(401)).description == "You were signed out. Sign in again.")
        #expect(MainworthyError(status(401, message: "Gone.")).description == "Gone.")
        guard case .refused = MainworthyError(status(403, message: "No.")) else {
            Issue.record("a 403 is a refusal, not a sign-out")
            return
        }
    }

    @Test func anInputProblemAndAnyOtherFailureAreGivenInTheirOwnWords() {  // M-PLAN-1, M-QUEUE-9
        #expect(MainworthyError.input(.nameRequired).description == "Give the run a name.")
        #expect(InputProblem.searchTextRequired.description == "Type the text to search for.")
        #expect(
            InputProblem.withdrawalReasonRequired.description
                == "Withdrawing this decision needs a reason. Type one, then undo again.")
        #expect(
            InputProblem.reasonRequired(answer: "Flaky test").description
                == "“Flaky test” needs a reason. Type one, then answer again.")
        #expect(MainworthyError.other("The store is full.").description == "The store is full.")
        #expect(MainworthyError.other("x").errorDescription == "x")
    }

    @Test func onlyALostReplyIsUnconfirmed() {  // M-NET-1, M-NET-2
        #expect(MainworthyError(HTTPError.connectionLost(url: "u", receivedBytes: 0)).isUnconfirmed)
        #expect(MainworthyError(HTTPError.timedOut(url: "u")).isUnconfirmed)
        #expect(!MainworthyError(HTTPError.offline(detail: "d")).isUnconfirmed)
        #expect(!MainworthyError(status(401)).isUnconfirmed)
    }

    @Test func whatIsReadLivesInMemoryAndOutlivesASignOutAndOnlyA401EndsTheSession() {  // M-DRAFT-2, M-NET-4, O-14
        #expect(MainworthyServer.profile.data == DataPolicy(storage: .memoryOnly, wipesOnRevocation: false))
        #expect(MainworthyServer.profile.revocation == RevocationRule(statuses: [401], permissionCodes: []))
        #expect(MainworthyServer.cookieName == "mw_session")
        // A failed read is worded with the server's own sentence, anything else as the kit says it.
        let refused = ReadFailure(status(404, message: "There is no such run."), keepsValue: false)
        #expect(MainworthyServer.profile.sentence(refused) == "There is no such run.")
        let lost = HTTPError.timedOut(url: "https://mw.example/api/x")
        #expect(!lost.description.isEmpty)
        #expect(MainworthyServer.profile.sentence(ReadFailure(lost, keepsValue: false)) == lost.description)
    }

    @Test func answersAreResentAtExactlyOneTwoAndFourSeconds() {  // M-NET-2
        let rule = MainworthyServer.lostReplyResends
        let delays = (1...4).map { rule.backoff(afterAttempt: $0, random: SystemRandomSource()) }
        #expect(rule.maxAttempts == 4)
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(4)])
        #expect(
            rule.isRetryable(.connectionLost(url: "u", receivedBytes: 0)) && rule.isRetryable(.timedOut(url: "u"))
                && !rule.isRetryable(.unreachable(host: "h", detail: "d")))
    }
}

@Suite struct OutcomeSentences {
    @Test func aPlanThatFailedSaysItsOwnSentence() {  // M-PLAN-4
        #expect(PlanOutcome.failed("Nothing matches this selection.").sentence == "Nothing matches this selection.")
        #expect(PlanOutcome.plannedButUnread(runID: "r", slotCount: 1, problem: "x").sentence == "Planned 1 slot.")
        #expect(PlanOutcome.planned(runID: "r", slotCount: 0).sentence == "Planned 0 slots.")
    }

    @Test func aSaveNamesItsFieldsAndKeepsTheDraftUnlessAdoptedOrWaiting() {  // M-SAVE-1..5
        #expect(SaveOutcome.unconfirmed("Press Retry.").sentence == "Press Retry.")
        #expect(SaveOutcome.failed("No connection.").sentence == "No connection.")
        #expect(
            SaveOutcome.overlap(fields: [], with: nil, questionID: nil).sentence
                == "Another edit also changes the same fields. Resolve the proposal in the web app. Your draft is kept."
        )
        #expect(
            SaveOutcome.overlap(fields: ["title"], with: "p-2", questionID: nil).sentence
                == "Another edit (proposal p-2) also changes the title. Resolve the proposal in the web app. Your draft is kept."
        )
        #expect(
            SaveOutcome.adoptedButDifferent(caseID: "c", version: 3, fields: ["title", "steps", "preconditions"])
                .sentence
                == "Saved as version 3, but the saved case differs from what you typed (title, steps and preconditions). Your draft is kept."
        )
        #expect(
            SaveOutcome.refused(message: "Check the fields.", fields: ["title": "blank", "reason": "long"]).sentence
                == "Check the fields. (reason: long, title: blank)")
        #expect(SaveOutcome.refused(message: "No.", fields: [:]).sentence == "No.")
        #expect(!SaveOutcome.adopted(caseID: "c", version: 1).keepsDraft)
        #expect(!SaveOutcome.waiting(questionID: nil).keepsDraft)
        #expect(SaveOutcome.failed("x").keepsDraft && SaveOutcome.unconfirmed("x").keepsDraft)
        #expect(SaveOutcome.overlap(fields: [], with: nil, questionID: nil).keepsDraft)
    }

    @Test func anUnsupportedEditNamesItsOperationInWords() {  // M-WEB-2
        #expect(
            WebHandoff.unsupportedEdit("move_case").sentence
                == "This proposal does more than write or change a case (move case); answer it in the web app.")
    }

    @Test func aNewCaseAndAnEditReadLineByLine() {  // M-QUEUE-7, M-WEB-4
        let created = ProposalEdit(
            op: "create_case",
            document: [
                "title": "Accept", "preconditions": "",
                "steps": [["action": "Open", "expected": "Shown"], ["action": "Accept"]],
            ])
        #expect(
            created.shown?.lines == ["New case: Accept", "Preconditions: none", "  1. Open → Shown", "  2. Accept"])
        let withPre = ProposalEdit(op: "create_case", document: ["title": "T", "preconditions": "Signed in"])
        #expect(withPre.shown?.lines == ["New case: T", "Preconditions: Signed in"])
        let edited = ProposalEdit(
            op: "edit_case", caseNumber: "C-4", baseVersion: 2,
            changes: ["priority": [1, 2], "preconditions": [nil, "Logged in"]])
        #expect(
            edited.shown?.lines == [
                "Edit of C-4 (from version 2)",
                "preconditions before: ", "preconditions after: Logged in",
                "priority before: 1", "priority after: 2",
            ])
        #expect(ProposalEdit(op: "edit_case").shown?.lines == ["Edit of a case"])
    }

    @Test func onlyASearchIsASearch() {  // M-FIND-5
        #expect(CaseListing.search("pay", scope: .folder(id: "f")).isSearch)
        #expect(!CaseListing.all.isSearch && !CaseListing.folder(id: "f").isSearch && !CaseListing.tag("t").isSearch)
    }
}

@Suite struct OptionalReplyKeys {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func aCaseDecodesItsCurrentVersionWhoMayRunItAndItsWebPage() throws {  // M-CASE-1, M-CAP-3 (§2 case)
        let page = try decode(
            CasePage.self,
            #"{"id":"c1","number":"C-1","version":2,"current_version":3,"title":"Pay","preconditions":"","steps":[],"#
                + #""runnable_by":"ada","folder":{"id":"f1","name":"Checkout"},"tags":["smoke"],"#
                + #""web_url":"https://mw.example/c/1","revision":9}"#)
        #expect(page.currentVersion == 3 && page.version == 2 && page.runnableBy == "ada")
        #expect(page.webURL == URL(string: "https://mw.example/c/1") && page.revision == 9 && page.tags == ["smoke"])
    }

    @Test func aChangeDecodesItsPullRequestAndWhenItWasUpdated() throws {  // M-CHG-1
        let ref = try decode(ChangeRef.self, #"{"branch":"fix-pay","pull_request":12}"#)
        #expect(ref.pullRequest == 12 && ref.label == "fix-pay #12")
        #expect(ChangeRef(pullRequest: 7).label == "#7" && ChangeRef(branch: "main").label == "main")
        let change = try decode(
            ChangeSummary.self,
            #"{"id":"ch1","ref":{"branch":"b"},"state":"open","head":"abc","updated_at":0}"#)
        #expect(change.updatedAt == Date(timeIntervalSinceReferenceDate: 0) && !change.lacksListFields)
        #expect(!change.isEnded && change.label == "b")
        for (state, ended) in [("merged", true), ("closed", true), ("open", false), ("draft", false)] {
            var other = change
            other.state = state
            #expect(other.isEnded == ended, "\(state)")
        }
        var bare = change
        bare.updatedAt = nil
        #expect(bare.lacksListFields)
        bare = change
        bare.ref = nil
        #expect(bare.lacksListFields && bare.label == "ch1")
    }

    @Test func aDecisionDecodesItsQuestionAndItsLabel() throws {  // M-QUEUE-8, M-UNDO-1
        let decision = try decode(
            Decision.self,
            #"{"id":"d1","question_id":"q1","answer":"defect","answer_label":"A defect","by":{"name":"ada"}}"#)
        #expect(decision.questionID == "q1" && decision.answerLabel == "A defect")
        #expect(decision.summary == "A defect by ada")
    }

    @Test func aPageOfAListDecodesItsNextCursor() throws {  // M-LIST-2 (§2 paging)
        let page = try decode(ListReply<Person>.self, #"{"items":[{"name":"ada"}],"next_cursor":"n2","revision":5}"#)
        #expect(page.nextCursor == "n2" && page.revision == 5 && page.items == [Person(name: "ada")])
    }

    @Test func queueRowsRunsAndResultsDecodeTheirOptionalFields() throws {  // M-QUEUE-1, M-RUN-1, M-RUN-6
        let item = try decode(QueueItem.self, #"{"id":"q1","kind":"failure","title":"T","waiting_since":0}"#)
        #expect(item.waitingSince == Date(timeIntervalSinceReferenceDate: 0))
        let run = try decode(RunSummary.self, #"{"id":"r1","name":"Nightly","state":"open","slot_count":14}"#)
        #expect(run.slotCount == 14)
        let result = try decode(SlotResult.self, #"{"id":"x","outcome":"fail","failed_step":3}"#)
        #expect(result.failedStep == 3)
    }

    @Test func aProposalsEvidenceDecodesItsCountCaseAndBaseVersion() throws {  // M-WEB-3, M-QUEUE-7
        let evidence = try decode(
            ProposalEvidence.self,
            #"{"edit_count":21,"edits":[{"op":"edit_case","case":"C-4","base_version":2}]}"#)
        #expect(evidence.editCount == 21)
        #expect(evidence.edits == [ProposalEdit(op: "edit_case", caseNumber: "C-4", baseVersion: 2)])
    }

    @Test func anAnswerDecodesWhetherItNeedsAReasonOrATracker() throws {  // M-QUEUE-9, M-QUEUE-10
        let option = try decode(
            AnswerOption.self,
            #"{"key":"flaky","label":"Flaky","sentence":"S","reason_required":true,"asks_tracker":true}"#)
        #expect(option.reasonRequired && option.asksTracker)
        let plain = AnswerOption(key: "k", label: "L", sentence: "S")
        #expect(!plain.reasonRequired && !plain.asksTracker)
        let question = Question(id: "q", kind: .failure, title: "T")
        #expect(!question.withdrawReasonRequired && question.state == "open" && question.isOpen)
    }
}

@Suite struct SmallValueRules {
    @Test func aResultWithoutAnAuthorIsNoOnesToUndo() {  // M-RUN-8
        let ada = Person(id: "u_1", name: "ada")
        let results = [
            SlotResult(id: "x_3", outcome: .pass, by: ada), SlotResult(id: "x_2", outcome: .fail),
            SlotResult(id: "x_1", outcome: .blocked, note: "no device", by: ada),
        ]
        #expect(
            ResultBody.undo(latestOf: ada, in: results)
                == ResultBody(outcome: .blocked, note: "no device", failedStep: nil))
        #expect(ResultBody.undo(latestOf: ada, in: Array(results.prefix(2))) == ResultBody.undo(to: nil))
    }

    @Test func anEvidenceValueReadsAsTextAndAnEmptyOneAddsNothing() {  // O-22
        let part = EvidencePart(
            kind: "failure",
            value: ["ratio": 0.5, "tests": ["a", "b", ""], "none": [], "blank": "", "gone": nil, "runs": 2])
        #expect(
            part.fields == [
                .init(label: "ratio", text: "0.5"), .init(label: "runs", text: "2"),
                .init(label: "tests", text: "a, b"),
            ])
        let plain = EvidencePart(kind: "first_seen", value: "yesterday")
        #expect(plain.fields == [.init(label: "first seen", text: "yesterday")])
        #expect(EvidencePart(kind: "flag", value: false).text == "flag: no")
        #expect(EvidencePart(kind: "owner", value: ["title": "Checkout"]).text == "title: Checkout")
    }

    @Test func aDraftIsChangedByItsDocumentOrItsReasonAlone() {  // M-DRAFT-4
        var draft = CaseDraft(target: .newCase(folderID: nil), opened: CaseDocument(title: "Pay"))
        #expect(!draft.isChanged)
        draft.reason = "why"
        #expect(draft.isChanged)
        draft.reason = ""
        draft.document.title = "Pay now"
        #expect(draft.isChanged)
    }

    @Test func aSearchScopeIsSentAsItsWireValue() {  // M-FIND-2, M-FIND-3, M-FIND-4
        #expect(SearchScope.folder(id: "f1").wireValue == "folder:f1")
        #expect(SearchScope.tag("smoke").wireValue == "tag:smoke")
        #expect(SearchScope.project.wireValue == "project")
    }

    @Test func aCaseListIsCompleteOnlyWithoutANextCursor() {  // M-CASE-3
        #expect(CaseListContent().isComplete && CaseListContent().revision == 0)
        #expect(!CaseListContent(nextCursor: "n2").isComplete)
    }

    @Test func aDecisionTakesItsLabelFromTheQuestionOnlyWhenTheReplyNamedNone() {  // M-QUEUE-8
        let answers = [
            AnswerOption(key: "flaky", label: "Flaky test", sentence: "S"),
            AnswerOption(key: "defect", label: "A defect", sentence: "S"),
        ]
        let bare = Decision(id: "d", answer: "defect")
        #expect(bare.labelled(from: answers).answerLabel == "A defect")
        #expect(bare.summary == "defect")
        var named = bare
        named.answerLabel = "Own label"
        #expect(named.labelled(from: answers).answerLabel == "Own label")
        #expect(Decision(id: "d", answer: "other").labelled(from: answers).answerLabel == nil)
        #expect(Decision(id: "d").summary == "A decision")
    }
}
