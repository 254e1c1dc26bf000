import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

// The value rules of the Mainworthy core: no server involved.

@Suite struct QueueSummaryLine {
    @Test func oneFailureAndThreeThatCanWaitReadAsTheGuideSays() {  // M-QUEUE-2
        #expect(QueueSummary(failures: 1, canWait: 3).line == "1 failure to explain \u{00B7} 3 can wait")
    }

    @Test func pluralsAndZerosFollowTheProposedChoice() {  // M-QUEUE-3
        #expect(QueueSummary(failures: 2, canWait: 0).line == "2 failures to explain")
        #expect(QueueSummary(failures: 0, canWait: 3).line == "3 can wait")
        #expect(QueueSummary(failures: 1, canWait: 0).line == "1 failure to explain")
        #expect(QueueSummary(failures: 0, canWait: 0).line == "Nothing needs an answer today")
        #expect(QueueSummary(failures: 2, canWait: 1).line == "2 failures to explain \u{00B7} 1 can wait")
    }

    @Test func theSummaryDecodesTheServersTotals() throws {  // M-QUEUE-4
        let summary = try JSONDecoder().decode(QueueSummary.self, from: Data(#"{"failures":1,"can_wait":3}"#.utf8))
        #expect(summary == QueueSummary(failures: 1, canWait: 3))
    }
}

@Suite struct QueueOrdering {
    @Test func failuresComeFirstAndEachGroupKeepsTheServersOrder() {  // M-QUEUE-1
        let items = [
            QueueItem(id: "q_1", kind: .review, title: "a"), QueueItem(id: "q_2", kind: .failure, title: "b"),
            QueueItem(id: "q_3", kind: .proposal, title: "c"), QueueItem(id: "q_4", kind: .failure, title: "d"),
        ]
        #expect(QueueOrder.failuresFirst(items).map(\.id) == ["q_2", "q_4", "q_1", "q_3"])
    }
}

@Suite struct AnswerRules {
    static let options = [
        AnswerOption(key: "defect", label: "Defect in the product", sentence: "s", asksTracker: true),
        AnswerOption(key: "flaky", label: "Flaky test", sentence: "s", reasonRequired: true),
    ]

    @Test func aRequiredReasonThatIsBlankSendsNothing() {  // M-QUEUE-9
        for blank in ["", "   ", "\n\t"] {
            let made = AnswerBody.make(Self.options[1], reason: blank, tracker: "", expectedDecisionID: nil)
            #expect(made == .failure(.reasonRequired(answer: "Flaky test")))
        }
        let made = AnswerBody.make(Self.options[1], reason: " Runner timeout ", tracker: "", expectedDecisionID: nil)
        #expect(
            made
                == .success(
                    AnswerBody(answer: "flaky", reason: "Runner timeout", tracker: nil, expectedDecisionID: nil)))
    }

    @Test func anEmptyTrackerIsSentAsNull() throws {  // M-QUEUE-10
        let body = try AnswerBody.make(Self.options[0], reason: "", tracker: "  ", expectedDecisionID: nil).get()
        #expect(body.tracker == nil)
        let json = String(decoding: try JSONEncoder.sorted.encode(body), as: UTF8.self)
        #expect(json == #"{"answer":"defect","expected_decision_id":null,"reason":null,"tracker":null}"#)
        let tracked = try AnswerBody.make(Self.options[0], reason: "", tracker: "JIRA-7", expectedDecisionID: "d_1")
            .get()
        #expect(tracked.tracker == "JIRA-7" && tracked.expectedDecisionID == "d_1")
    }

    @Test func aTrackerIsNotSentForAnAnswerThatDoesNotAskForOne() throws {  // M-QUEUE-10
        let body = try AnswerBody.make(Self.options[1], reason: "r", tracker: "JIRA-7", expectedDecisionID: nil).get()
        #expect(body.tracker == nil)
    }

    @Test func aWithdrawalNeedsItsReasonWhereThePolicyAsks() {  // M-UNDO-1
        #expect(WithdrawalBody.make(reason: " ", required: true) == .failure(.withdrawalReasonRequired))
        #expect(WithdrawalBody.make(reason: "", required: false) == .success(WithdrawalBody(reason: nil)))
        #expect(
            WithdrawalBody.make(reason: "Wrong call", required: true) == .success(WithdrawalBody(reason: "Wrong call")))
    }
}

@Suite struct WebHandoffRules {
    static let url = URL(string: "https://mainworthy.com/shop/q/5")

    static func proposal(_ ops: [String], count: Int? = nil) -> Question {
        Question(
            id: "q_3", kind: .proposal, title: "p", webURL: url,
            evidence: Evidence(
                proposal: ProposalEvidence(editCount: count ?? ops.count, edits: ops.map { ProposalEdit(op: $0) })),
            answers: [AnswerOption(key: "adopt", label: "Adopt", sentence: "s")])
    }

    static let all: Set<Capability> = [.read, .decide, .produce, .plan]

    @Test func linkAndOverlapQuestionsAreAnsweredInTheWebApp() throws {  // M-WEB-1
        for kind in [QuestionKind.link, .overlap] {
            let question = Question(id: "q_5", kind: kind, title: "t", webURL: Self.url)
            let availability = AnswerAvailability.evaluate(question, capabilities: Self.all, lastEditShown: true)
            #expect(!availability.isEnabled)
            #expect(availability.blocker == .web(.kind(kind)))
            #expect(try #require(availability.webLink).url == Self.url)
        }
        // The sentence beside the button says why (mutation survivor m-03c695bebe).
        #expect(WebHandoff.kind(.link).sentence == "Linking a test to a case is done in the web app.")
        #expect(WebHandoff.kind(.overlap).sentence == "Resolving overlapping edits is done in the web app.")
        #expect(WebHandoff.kind(.signOff).sentence == "This question is answered in the web app.")
    }

    @Test func aProposalWithAnEditOtherThanCreateOrEditGoesToTheWebApp() {  // M-WEB-2
        for op in ["restore_version", "move", "tag", "archive", "make_folder", "change_policy"] {
            let availability = AnswerAvailability.evaluate(
                Self.proposal(["create_case", op]), capabilities: Self.all, lastEditShown: true)
            #expect(availability.blocker == .web(.unsupportedEdit(op)))
            #expect(availability.webLink?.url == Self.url)
        }
    }

    @Test func twentyEditsAreShownAndTwentyOneAreNot() {  // M-WEB-3
        let twenty = AnswerAvailability.evaluate(
            Self.proposal(Array(repeating: "edit_case", count: 20)), capabilities: Self.all, lastEditShown: true)
        #expect(twenty.isEnabled)
        let twentyOne = AnswerAvailability.evaluate(
            Self.proposal(Array(repeating: "edit_case", count: 21)), capabilities: Self.all, lastEditShown: true)
        #expect(twentyOne.blocker == .web(.tooManyEdits(21)))
    }

    @Test func answersStayOffUntilEveryEditLoadedAndTheLastWasShown() {  // M-WEB-4
        let partial = AnswerAvailability.evaluate(
            Self.proposal(["create_case", "edit_case"], count: 3), capabilities: Self.all, lastEditShown: true)
        #expect(partial.blocker == .editsLoading(loaded: 2, total: 3))
        let unseen = AnswerAvailability.evaluate(
            Self.proposal(["create_case", "edit_case"]), capabilities: Self.all, lastEditShown: false)
        #expect(unseen.blocker == .lastEditNotShown)
        let seen = AnswerAvailability.evaluate(
            Self.proposal(["create_case", "edit_case"]), capabilities: Self.all, lastEditShown: true)
        #expect(seen.isEnabled)
    }

    // Mutation survivor m-dc6af97eac: a proposal whose evidence is not a proposal's (a server that sent another
    // shape) cannot be shown edit by edit, so it is answered in the web app, never answered blind.
    @Test func aProposalWithoutItsEditsGoesToTheWebApp() {  // M-WEB-2, M-WEB-4
        let question = Question(id: "q_3", kind: .proposal, title: "p", webURL: Self.url)
        let availability = AnswerAvailability.evaluate(question, capabilities: Self.all, lastEditShown: true)
        #expect(availability.blocker == .web(.kind(.proposal)))
        #expect(availability.webLink?.url == Self.url)
    }

    @Test func withoutDecideTheAnswersAreOff() {  // M-CAP-4
        let question = Question(id: "q_2", kind: .failure, title: "t")
        let availability = AnswerAvailability.evaluate(question, capabilities: [.read], lastEditShown: true)
        #expect(availability.blocker == .missingCapability)
    }
}

@Suite struct RunRules {
    static func slot(_ id: String, _ position: Int, _ outcome: Outcome?) -> Slot {
        Slot(
            id: id, position: position, case: PinnedCase(number: "C-\(position)", title: "t", version: 1),
            result: outcome.map { SlotResult(id: "res_\(id)", outcome: $0) })
    }

    @Test func startOpensTheFirstSlotWithoutAResultAndIsOffWhenAllHaveOne() {  // M-RUN-2
        let slots = [Self.slot("s_1", 1, .fail), Self.slot("s_2", 2, nil), Self.slot("s_3", 3, nil)]
        #expect(RunNavigation.start(slots)?.id == "s_2")
        #expect(RunNavigation.start([Self.slot("s_1", 1, .pass), Self.slot("s_2", 2, .skip)]) == nil)
    }

    @Test func nextIsTheFirstEmptySlotAfterTheCurrentThenFromTheTopThenTheRunPage() {  // M-RUN-7, O-10
        let slots = [
            Self.slot("s_1", 1, nil), Self.slot("s_2", 2, .pass), Self.slot("s_3", 3, .pass),
            Self.slot("s_4", 4, nil), Self.slot("s_5", 5, .pass),
        ]
        #expect(RunNavigation.next(after: "s_2", in: slots)?.id == "s_4")
        #expect(
            RunNavigation.next(after: "s_4", in: slots.map { $0.id == "s_4" ? Self.slot("s_4", 4, .fail) : $0 })?.id
                == "s_1")
        #expect(RunNavigation.next(after: "s_5", in: slots)?.id == "s_1")
        let full = slots.map { Self.slot($0.id, $0.position, .pass) }
        #expect(RunNavigation.next(after: "s_3", in: full) == nil)
    }

    @Test func aSlotFilledMeanwhileIsSkipped() {  // M-RUN-7
        // s_3 was empty when the tester opened s_2; the slots read after recording show it filled.
        let reread = [
            Self.slot("s_1", 1, .pass), Self.slot("s_2", 2, .pass), Self.slot("s_3", 3, .pass),
            Self.slot("s_4", 4, nil),
        ]
        #expect(RunNavigation.next(after: "s_2", in: reread)?.id == "s_4")
    }

    @Test func onePressMarksAStepAnotherClearsItAndAnotherStepMovesTheMark() {  // M-RUN-5, O-9
        var draft = SlotDraft()
        draft.press(step: 2)
        #expect(draft.markedStep == 2)
        draft.press(step: 2)
        #expect(draft.markedStep == nil)
        draft.press(step: 1)
        draft.press(step: 3)
        #expect(draft.markedStep == 3)
    }

    @Test func aDraftIsEmptyOnlyWithNoNoteTypedAndNoStepMarked() {  // M-RUN-10
        // What a slot keeps that is not recorded yet: a note alone or a mark alone is something kept.
        #expect(SlotDraft().isEmpty)
        #expect(!SlotDraft(note: "half done").isEmpty)
        #expect(!SlotDraft(markedStep: 2).isEmpty)
        #expect(!SlotDraft(note: "half done", markedStep: 2).isEmpty)
    }

    @Test func failSendsTheMarkedStepOthersSendNoneAndAnEmptyNoteIsNull() throws {  // M-RUN-6
        var draft = SlotDraft(note: "")
        draft.press(step: 2)
        let fail = String(
            decoding: try JSONEncoder.sorted.encode(ResultBody(outcome: .fail, draft: draft)), as: UTF8.self)
        #expect(fail == #"{"failed_step":2,"note":null,"outcome":"fail"}"#)
        let pass = String(
            decoding: try JSONEncoder.sorted.encode(ResultBody(outcome: .pass, draft: draft)), as: UTF8.self)
        #expect(pass == #"{"note":null,"outcome":"pass"}"#)
        let unmarked = ResultBody(outcome: .fail, draft: SlotDraft(note: "500 on submit"))
        #expect(unmarked.failedStep == nil && unmarked.note == "500 on submit")
        #expect(Outcome.manual.map(\.rawValue) == ["pass", "fail", "blocked", "skip"])
    }

    @Test func undoSendsYourEarlierResultOrSkip() {  // M-RUN-8
        let earlier = ResultBody(outcome: .fail, note: "500 on submit", failedStep: 2)
        #expect(ResultBody.undo(to: earlier) == ResultBody(outcome: .fail, note: "500 on submit", failedStep: 2))
        #expect(ResultBody.undo(to: nil) == ResultBody(outcome: .skip, note: nil, failedStep: nil))
        // From a slot's history, newest first, as the terminal's undo and a new launch read it.
        let ada = Person(id: "u_1", name: "ada")
        let bo = Person(id: "u_2", name: "bo")
        let skip = ResultBody(outcome: .skip, note: nil, failedStep: nil)
        let once = [
            SlotResult(id: "x_3", outcome: .pass, by: ada), SlotResult(id: "x_2", outcome: .fail, by: bo),
        ]
        #expect(ResultBody.undo(latestOf: ada, in: once) == skip)  // one result of yours: skip
        let twice = once + [SlotResult(id: "x_1", outcome: .fail, note: "500 on submit", failedStep: 2, by: ada)]
        #expect(ResultBody.undo(latestOf: ada, in: twice) == earlier)  // your earlier one, not bo's
        #expect(ResultBody.undo(latestOf: Person(name: "ada"), in: twice) == earlier)  // by name without an id
        #expect(ResultBody.undo(latestOf: Person(id: "u_9", name: "cy"), in: twice) == nil)  // nothing to undo
    }

    @Test func theRunPageKeepsSlotsInOrderAndSaysWhatItAccepts() throws {  // M-RUN-1
        // A run as the server sends it, its slots listed out of order: decoded, they are in run order.
        let json = #"""
            {"id":"r_7","name":"Release 4.2","state":"open",
             "verdict":{"value":"failing","sentence":"1 failure; 3 slots without a result."},
             "accepts":{"manual":true,"commit":"a1b2c3d"},
             "slots":[{"id":"s_3","position":3,"case":{"id":"c_3","number":"C-3","title":"c","version":1},"result":null},
                      {"id":"s_1","position":1,"case":{"id":"c_1","number":"C-1","title":"a","version":1},
                       "result":{"id":"res_5","outcome":"fail","note":"500 on submit","failed_step":2,"by":{"name":"ada"}}},
                      {"id":"s_2","position":2,"case":{"id":"c_2","number":"C-2","title":"b","version":1},"result":null}]}
            """#
        let run = try Client.makeDecoder().decode(Run.self, from: Data(json.utf8))
        #expect(run.slots.map(\.id) == ["s_1", "s_2", "s_3"])
        #expect(run.verdict == RunVerdict(value: "failing", sentence: "1 failure; 3 slots without a result."))
        #expect(run.accepts.sentence == "Manual results, and pipeline results for a1b2c3d")
        #expect(RunAccepts(manual: true, commit: nil).sentence == "Manual results")
        let made = Run(
            id: "r_1", name: "n", state: "open", verdict: RunVerdict(value: "pending", sentence: "s"),
            accepts: RunAccepts(manual: true, commit: nil), slots: [Self.slot("s_2", 2, nil), Self.slot("s_1", 1, nil)])
        #expect(made.slots.map(\.id) == ["s_1", "s_2"])
    }
}

@Suite struct PlanRules {
    @Test func aPlanBodyCarriesOneSelectionAndAnOptionalCommit() throws {  // M-PLAN-1
        let folder = try PlanBody.make(name: " Release 4.3 ", selection: .folder(id: "f_3"), commit: "a1b2c3d").get()
        let json = String(decoding: try JSONEncoder.sorted.encode(folder), as: UTF8.self)
        #expect(
            json
                == #"{"accepts_commit":"a1b2c3d","name":"Release 4.3","selection":{"folder_id":"f_3","kind":"folder"}}"#
        )
        let all = String(
            decoding: try JSONEncoder.sorted.encode(try PlanBody.make(name: "A", selection: .all, commit: "").get()),
            as: UTF8.self)
        #expect(all == #"{"accepts_commit":null,"name":"A","selection":{"kind":"all"}}"#)
        #expect(PlanBody.make(name: "  ", selection: .all, commit: "") == .failure(.nameRequired))
        #expect(PlanBody.make(name: "A", selection: .search(" "), commit: "") == .failure(.searchTextRequired))
    }
}

@Suite struct BuildAndAbout {
    @Test func theServerIsABuildSettingNotAnAddressStep() {  // M-AUTH-1
        #expect(MainworthyBuild(version: "1.0").server.absoluteString == "https://mainworthy.com")
        let injected = URL(string: "http://127.0.0.1:8765")
        #expect(MainworthyBuild(server: injected, version: "1.0").server == injected)
    }

    @Test func worksUntilShowsTheBuildsExpiryOrNothing() {  // M-AUTH-10
        let expiry = Date(timeIntervalSince1970: 1_796_601_600)  // 7 Dec 2026, 00:00 UTC
        let utc = TimeZone(identifier: "UTC") ?? .current
        #expect(MainworthyBuild(version: "1.0", expiry: expiry).worksUntil(timeZone: utc) == "Works until 7 Dec 2026")
        #expect(MainworthyBuild(version: "1.0").worksUntil(timeZone: utc) == nil)
        // The person's own day: the same instant is still 6 Dec in Los Angeles; January is the first month.
        let losAngeles = TimeZone(identifier: "America/Los_Angeles") ?? .current
        #expect(
            MainworthyBuild(version: "1.0", expiry: expiry).worksUntil(timeZone: losAngeles) == "Works until 6 Dec 2026"
        )
        let january = Date(timeIntervalSince1970: 1_798_761_600)  // 1 Jan 2027, 00:00 UTC
        #expect(MainworthyBuild(version: "1.0", expiry: january).worksUntil(timeZone: utc) == "Works until 1 Jan 2027")
    }

    @Test func aboutLinksToTheLicencePageOfTheInstanceItTalksTo() throws {  // M-ABOUT-1
        // The Licences link is the instance's own /licence: it follows the build's server, mount path included.
        let instance = try #require(URL(string: "https://tests.example.org/mainworthy"))
        let about = About(build: MainworthyBuild(server: instance, version: "2.0"), serverVersion: "1.31.0")
        #expect(about.licencesURL.absoluteString == "https://tests.example.org/mainworthy/licence")
        #expect(about.appVersion == "2.0" && about.serverVersion == "1.31.0")
        #expect(
            About(build: MainworthyBuild(version: "2.0"), serverVersion: nil).licencesURL.absoluteString
                == "https://mainworthy.com/licence")
    }

    // M-CAP-5, M-RUN-12: every request the core can make is one of §2's calls for the app's own work. A model
    // that invited people, managed tokens, changed the policy or notifications, assigned slots, set required
    // jobs or closed a run would need a request that is not among them.
    @Test func theCoreRequestsNothingButTheAppsOwnCalls() throws {
        let source = try String(contentsOf: Self.apiSource, encoding: .utf8)
        let paths = Self.requestPaths(in: source)
        #expect(paths.count >= 28, "\(paths)")
        let allowed: Set<String> = [
            "/api/version", "/api/sessions", "/api/sessions/{}", "/api/me", "/api/projects", "/api/projects/{}",
            "P/queue", "P/questions/{}",
            "P/questions/{}/decisions", "P/decisions/{}/withdrawal", "P/decisions", "P/runs", "P/runs/{}",
            "P/runs/{}/slots/{}", "P/runs/{}/slots/{}/results", "P/changes", "P/changes/{}", "P/changes/{}/gate",
            "P/changes/{}/failing-tests", "P/changes/{}/cases", "P/events", "P/reports", "P/browse", "P/tags",
            "P/folders/{}", "P/cases", "P/cases/{}", "P/cases/{}/versions", "P/cases/{}/versions/{}", "P/proposals",
        ]
        let unknown = paths.subtracting(allowed)
        #expect(unknown.isEmpty, "requests outside the app's own calls: \(unknown.sorted())")
        let admin = ["invit", "member", "token", "polic", "notif", "assign", "required", "close", "job"]
        #expect(!paths.contains { path in admin.contains { path.lowercased().contains($0) } })
        #expect(Capability.allCases.map(\.rawValue) == ["read", "decide", "produce", "plan"])
        #expect(
            RunModel.Action.allCases.map(\.rawValue).allSatisfy { !admin.contains(where: $0.lowercased().contains) })
    }

    // M-CAP-5 across every model (issue 37): no screen model offers inviting people, tokens, the project's policy
    // or notifications. What a model offers is its public members and its actions (`case`s of its enums), so none
    // of those, in any file of `Screens/`, is named for one of them.
    @Test func noScreenModelOffersInvitationsTokensPolicyOrNotifications() throws {
        let screens = Self.apiSource.deletingLastPathComponent().appendingPathComponent("Screens")
        let files = try FileManager.default.contentsOfDirectory(atPath: screens.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 15 && files.contains("QuestionModel.swift"), "\(files)")
        let offered = try Regex(#"public\s+(?:private\(set\)\s+)?(?:func|var|let)\s+(\w+)|^\s+case\s+(\w+)"#)
            .anchorsMatchLineEndings()
        var names: [String] = []
        for file in files {
            let text = try String(contentsOf: screens.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: offered) {
                if let name = match.output[1].substring ?? match.output[2].substring { names.append(String(name)) }
            }
        }
        #expect(names.count >= 100 && names.contains("withdraw") && names.contains("openQuestion"), "\(names.count)")
        let admin = ["invit", "member", "token", "polic", "notif"]
        let named = names.filter { name in admin.contains { name.lowercased().contains($0) } }
        #expect(named.isEmpty, "screen models offer \(named)")
    }

    // M-QUEUE-7, M-WEB-4 (issue 37, item 1): the core reads a proposal's edits into what the page shows step by
    // step: §2's example, a new case's document and an edit's changed fields before and after.
    @Test func aProposalsEditsReadAsANewCaseAndChangedFieldsBeforeAndAfter() throws {
        let created = ProposalEdit(
            op: "create_case",
            document: [
                "title": "Accept the terms", "preconditions": "",
                "steps": [["action": "Open the terms", "expected": "They are shown"], ["action": "Accept"]],
            ])
        #expect(
            created.shown
                == .newCase(
                    title: "Accept the terms", preconditions: "",
                    steps: ["1. Open the terms → They are shown", "2. Accept"]))
        #expect(created.shown?.lines.first == "New case: Accept the terms")
        let edited = ProposalEdit(
            op: "edit_case", caseNumber: "C-12", baseVersion: 3,
            changes: [
                "title": ["Old", "New"], "steps": [[["action": "Pay"]], [["action": "Pay", "expected": "Paid"]]],
            ])
        guard case .changedCase(let number, let base, let changes) = edited.shown else {
            Issue.record("not an edit: \(String(describing: edited.shown))")
            return
        }
        #expect(number == "C-12" && base == 3)
        #expect(
            changes == [
                .init(field: "steps", before: "1. Pay", after: "1. Pay → Paid"),
                .init(field: "title", before: "Old", after: "New"),
            ])
        #expect(edited.shown?.lines.contains("title before: Old") == true)
        #expect(ProposalEdit(op: "move", caseNumber: "C-12").shown == nil)
    }

    // M-QUEUE-6: an answer is the request `MainworthyAPI.answer`; the question's page is the one place that
    // sends it, so no list row (a `QueueItem` in `QueueModel`) can be answered.
    @Test func onlyTheQuestionsPageSendsAnAnswer() throws {
        let core = Self.apiSource.deletingLastPathComponent()
        let files = try FileManager.default.subpathsOfDirectory(atPath: core.path).filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.contains("Screens/QueueModel.swift") && files.contains("Models/QueueItem.swift"), "\(files)")
        let senders = try files.filter { file in
            try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8).contains("MainworthyAPI.answer(")
        }
        #expect(senders == ["Screens/QuestionModel.swift"])
    }

    /// `Sources/Apps/Mainworthy/MainworthyAPI.swift`, where every request of the core is made.
    static var apiSource: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Apps/Mainworthy/MainworthyAPI.swift")
    }

    /// Every path literal of `source` with its interpolations as `{}` and the project's base as `P`.
    static func requestPaths(in source: String) -> Set<String> {
        var paths = Set<String>()
        let characters = Array(source)
        var index = 0
        while index < characters.count {
            guard characters[index] == "\"" else {
                index += 1
                continue
            }
            // A string literal: interpolations `\( … )` may hold parentheses and strings of their own.
            var literal = ""
            var cursor = index + 1
            while cursor < characters.count, characters[cursor] != "\"", characters[cursor] != "\n" {
                if characters[cursor] == "\\", cursor + 1 < characters.count, characters[cursor + 1] == "(" {
                    var depth = 1
                    var inner = ""
                    cursor += 2
                    while cursor < characters.count, depth > 0 {
                        if characters[cursor] == "(" { depth += 1 }
                        if characters[cursor] == ")" { depth -= 1 }
                        if depth > 0 { inner.append(characters[cursor]) }
                        cursor += 1
                    }
                    literal += inner == "base(project)" ? "P" : "{}"
                } else {
                    literal.append(characters[cursor])
                    cursor += 1
                }
            }
            if literal.hasPrefix("/api") || literal.hasPrefix("P/") { paths.insert(literal) }
            index = cursor + 1
        }
        return paths
    }
}

@Suite struct KeptListRevision {
    @Test func aListMadeWithoutARevisionCountsAsReadBeforeAnyRevision() {  // M-LIST-1
        // A kept list is read again once the project's revision rose above its own: one made without a revision
        // (as while its folder loads or failed) holds 0, so the first revision the project reports is newer.
        #expect(CaseListContent().revision == 0)
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys, as the kit's client encodes bodies.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
