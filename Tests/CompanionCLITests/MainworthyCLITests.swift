import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// `companion mainworthy …` against the Mainworthy stand-in (`MAINWORTHY_URL`), the built binary run with a
/// temporary home, over each transport (`COMPANION_TRANSPORT`): a lost reply to a result or a save is never
/// resent by itself (issue 23), a case number is found with the case search whatever the server's case ids are,
/// a slot's Undo, and `--json` carrying what the text shows.
/// Holds the stand-in to itself (`.exclusive`): the core's suite resets the same fixture.
@Suite(.serialized, .exclusive("mainworthy"))
struct MainworthyCLITests {
    /// The transports the terminal client can run on.
    static let transports = ["curl", "urlsession"]

    let program: URL
    let home: TemporaryFolder
    let server: URL
    let control: Client

    init() throws {
        program = try ProgramRun.executable("companion")
        home = try TemporaryFolder()
        server = try TestServers.url("MAINWORTHY_URL")
        control = TestClients.loopback(server)
    }

    func run(_ arguments: [String], transport: String = "curl", input: String = "") async throws -> ProgramRun.Result {
        var environment = [
            "HOME": home.url.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        environment["LANG"] = "C.UTF-8"
        environment["MAINWORTHY_URL"] = server.absoluteString
        environment["COMPANION_TRANSPORT"] = transport
        return try await ProgramRun.run(program, ["mainworthy"] + arguments, environment: environment, input: input)
    }

    @discardableResult
    func succeeds(_ arguments: String..., transport: String = "curl", input: String = "") async throws
        -> ProgramRun.Result
    {
        let result = try await run(arguments, transport: transport, input: input)
        #expect(
            result.status == 0,
            "companion mainworthy \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        return result
    }

    /// The fixture in `shape` (`rich`, or `spec`: §2's members only and case ids that are not their numbers),
    /// and ada signed in.
    func start(shape: String = ProcessInfo.processInfo.environment["MAINWORTHY_SHAPE"] ?? "rich") async throws {
        _ = try await control.send(
            Request<JSONValue>.post(
                "/_control/reset", body: ["fixture": "default", "shape": .string(shape)] as JSONValue))
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        let password = fixture["passwords"]?["ada"]?.stringValue ?? ""
        try await succeeds("login", "--user", "ada", "--password-stdin", input: password + "\n")
    }

    /// The server's request log: the requests it took (`status` is what it committed to answer).
    func log() async throws -> [JSONValue] {
        try await control.send(Request<JSONValue>.get("/_control/requests"))["items"]?.arrayValue ?? []
    }

    func clearLog() async throws { try await control.send(Request<Void>.empty(.delete, "/_control/requests")) }

    func dropReply(_ path: String) async throws {
        _ = try await control.send(
            Request<JSONValue>.post("/_control/drop-reply", body: ["path": .string(path), "times": 1] as JSONValue))
    }

    /// The POSTs the server took whose path ends in `suffix`.
    func posts(endingWith suffix: String) async throws -> [JSONValue] {
        try await log().filter {
            $0["method"]?.stringValue == "POST" && $0["path"]?.stringValue?.hasSuffix(suffix) == true
        }
    }

    func json(_ result: ProgramRun.Result) throws -> JSONValue {
        try #require(JSONValue(data: Data(result.output.utf8)), "not JSON: \(result.output)")
    }

    /// The value of a screen command's `--json` report (the terminal's one screen printer).
    func value(_ result: ProgramRun.Result) throws -> JSONValue {
        let report = try json(result)
        #expect(report["screen"]?.stringValue != nil && report["state"]?.stringValue != nil, "\(result.output)")
        return report["value"] ?? .null
    }

    /// Runs `companion mainworthy <arguments> --json`, expects exit 0, and returns what it printed.
    func jsonOutput(_ arguments: String...) async throws -> String {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        return result.output
    }

    /// The account's state file (`<home>/.companion/mainworthy/*.json`) and its folder.
    func stateFile() throws -> URL {
        let folder = home.url.appendingPathComponent(".companion/mainworthy")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count == 1, "\(names)")
        return folder.appendingPathComponent(try #require(names.first))
    }

    /// A file's or folder's permission bits.
    func mode(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    // Issue 23's lost reply, through the terminal: the server commits the write and closes the connection without
    // a byte. The command says it may or may not be recorded and exits 1; the write was sent exactly once.
    @Test(
        "a lost reply to a result or a case save is never resent by itself (M-NET-2, M-DRAFT-5)", arguments: transports)
    func aLostReplyToAResultOrASaveIsSentOnce(_ transport: String) async throws {
        try await start()
        try await dropReply("/api/projects/shop/runs/r_1/slots/s_2/results")
        try await clearLog()
        let result = try await run(["result", "r_1", "s_2", "pass"], transport: transport)
        #expect(result.status == 1 && result.errors.contains("may or may not have been recorded"), "\(result.errors)")
        let results = try await posts(endingWith: "/results")
        #expect(results.count == 1, "\(results)")
        #expect(results.first?["dropped"] == true && results.first?["status"]?.intValue == 201)
        // The run shows the one committed result.
        let runPage = try value(try await succeeds("run", "r_1", "--json", transport: transport))
        let slot = runPage["slots"]?.arrayValue?.first { $0["id"] == "s_2" }
        #expect(slot?["result"]?["outcome"] == "pass")

        let caseID = try value(try await succeeds("case", "C-30", "--json", transport: transport))["id"]?.stringValue
        let id = try #require(caseID)
        try await dropReply("/api/projects/shop/proposals")
        try await clearLog()
        let edit = try await run(["edit", "C-30", "--title", "Checkout scenario 30, once"], transport: transport)
        #expect(edit.status == 1 && edit.output.contains("may or may not"), "\(edit.output) \(edit.errors)")
        let proposals = try await posts(endingWith: "/proposals")
        #expect(proposals.count == 1 && proposals.first?["status"]?.intValue == 201, "\(proposals)")
        let history = try value(try await succeeds("history", id, "--json", transport: transport))
        #expect(history["items"]?.arrayValue?.map { $0["version"]?.intValue } == [2, 1])
    }

    @Test("case, history and edit take a case number on a server whose case ids are not its numbers")
    func aCaseNumberIsFoundWithTheCaseSearch() async throws {
        try await start(shape: "spec")
        let page = try value(try await succeeds("case", "C-12", "--json"))
        let id = try #require(page["id"]?.stringValue)
        #expect(id != "C-12" && id != "c_12" && page["number"] == "C-12" && page["title"] == "Pay by card")
        let text = try await succeeds("case", "c-12")
        #expect(text.output.contains("C-12  Pay by card") && text.output.contains("Version 3"))
        let old = try value(try await succeeds("case", "C-12", "--version", "1", "--json"))
        #expect(old["read_only"] == true && old["current_version"] == 3 && old["version"] == 1)
        let history = try value(try await succeeds("history", "C-12", "--json"))
        #expect(history["items"]?.arrayValue?.count == 3)
        let saved = try json(try await succeeds("edit", "C-12", "--title", "Pay by card, by number", "--json"))
        #expect(saved["state"] == "adopted" && saved["case_id"]?.stringValue == id && saved["version"] == 4)
        let missing = try await run(["case", "C-999"])
        #expect(missing.status == 1 && missing.errors.contains("There is no case C-999"), "\(missing.errors)")
    }

    @Test("a slot's Undo records your earlier result again, or skip (M-RUN-8)")
    func aSlotsUndo() async throws {
        try await start()
        try await succeeds("result", "r_1", "s_2", "fail", "--step", "2", "--note", "500 on submit")
        try await succeeds("result", "r_1", "s_2", "pass")
        let undone = try json(try await succeeds("result", "r_1", "s_2", "undo", "--json"))
        #expect(undone["undone"] == true && undone["result"]?["outcome"] == "fail")
        #expect(undone["result"]?["failed_step"] == 2 && undone["result"]?["note"] == "500 on submit")
        // On a slot with one result of yours, Undo records skip.
        try await succeeds("result", "r_1", "s_4", "blocked")
        let skipped = try json(try await succeeds("result", "r_1", "s_4", "undo", "--json"))
        #expect(skipped["result"]?["outcome"] == "skip" && skipped["result"]?["note"] == nil)
        // Nothing of yours: nothing to undo, nothing sent.
        try await clearLog()
        let nothing = try await run(["result", "r_1", "s_5", "undo"])
        #expect(nothing.status == 1 && nothing.errors.contains("no result in s_5"))
        #expect(try await posts(endingWith: "/results").isEmpty)
    }

    @Test("--json carries what the text shows: greyed answers, row marks, what Start opens")
    func jsonCarriesWhatTheTextShows() async throws {
        try await start()
        let link = try await succeeds("question", "q_5")
        #expect(link.output.contains("[greyed: link]") && link.output.contains("web app"))
        let linkJSON = try value(try await succeeds("question", "q_5", "--json"))
        #expect(linkJSON["answers_enabled"] == false && linkJSON["web_link"]?["url"]?.stringValue != nil)
        #expect(linkJSON["greyed_because"]?.stringValue == "Linking a test to a case is done in the web app.")
        let failure = try value(try await succeeds("question", "q_2", "--json"))
        #expect(failure["answers_enabled"] == true && failure["greyed_because"] == nil)
        let review = try await succeeds("question", "q_1")
        #expect(review.output.contains("Step 3 has no expected result."))
        let reviewJSON = try value(try await succeeds("question", "q_1", "--json"))
        #expect(reviewJSON["evidence_text"]?["review"]?.stringValue?.contains("Step 3 has no expected result.") == true)

        let runText = try await succeeds("run", "r_1")
        #expect(runText.output.contains("Start opens s_2 (C-1)."))
        let runJSON = try value(try await succeeds("run", "r_1", "--json"))
        #expect(runJSON["start"]?["id"] == "s_2" && runJSON["accepts_sentence"] != nil)

        let cases = try await succeeds("cases", "--folder", "f_3")
        #expect(cases.output.contains("C-12"))
        let casesJSON = try value(try await succeeds("cases", "--folder", "f_3", "--json"))
        let twelve = casesJSON["items"]?.arrayValue?.first { $0["number"] == "C-12" }
        #expect(twelve?["mark"] == "none")  // its failure was on an older version
        #expect(casesJSON["items"]?.arrayValue?.allSatisfy { $0["mark"]?.stringValue != nil } == true)
    }

    @Test("sessions --end ends another session and keeps this one (M-SESS-5)")
    func sessionsEnd() async throws {
        try await start()
        let sessions = try value(try await succeeds("sessions", "--json"))
        let other = try #require(sessions.arrayValue?.first { $0["current"] == false }?["id"]?.stringValue)
        let ended = try json(try await succeeds("sessions", "--end", other, "--json"))
        #expect(ended["ended"]?.stringValue == other && ended["signed_out"] == "false")
        try await succeeds("projects")
        let usage = try await run(["sessions", "end", other])
        #expect(usage.status == 2)
    }

    @Test("about shows the versions, the licence and the copyright; browse prints only what is known (issue 37)")
    func aboutAndBrowse() async throws {
        try await start()
        let about = try await succeeds("about")
        #expect(about.output.contains("Mainworthy companion") && about.output.contains("Apache License 2.0"))
        #expect(about.output.contains("Copyright 2026 the Mainworthy authors") && !about.output.contains("not known"))
        let aboutOutput = try await succeeds("about", "--json")
        expectDocumentedShape(aboutOutput.output, "mainworthy about")
        let aboutJSON = try json(aboutOutput)
        #expect(aboutJSON["licence"] == "Apache License 2.0" && aboutJSON["app_version"] == "companion")
        #expect(aboutJSON["server_version"]?.stringValue?.isEmpty == false)
        #expect(aboutJSON["licences_url"]?.stringValue?.hasSuffix("/licence") == true)
        let browse = try await succeeds("browse")
        #expect(browse.output.contains("All cases") && !browse.output.contains("(?)"))
    }

    @Test("a 409 on undo names the decision standing now by its answer's label, as the app does (issue 37)")
    func aChangedDecisionIsNamedByItsLabel() async throws {
        try await start()
        let first = try json(try await succeeds("answer", "q_2", "test_wrong", "--json"))
        let withdrawn = try #require(first["decision"]?["id"]?.stringValue)
        try await succeeds("undo", withdrawn, "--reason", "Wrong call")
        try await succeeds("answer", "q_2", "flaky", "--reason", "Runner timeout")
        let again = try await run(["undo", withdrawn, "--reason", "Again"])
        #expect(again.status == 1)
        #expect(again.errors.contains("Now: Flaky test by ada"), "\(again.errors)")
    }

    @Test("question shows every edit of a proposal step by step: a new case's document, an edit before and after")
    func aProposalsEditsAreShownStepByStep() async throws {  // M-QUEUE-7, M-WEB-4 (issue 37, item 1)
        try await start()
        let page = try await succeeds("question", "q_3")
        #expect(page.output.contains("edit 1 of 21: create_case"), "\(page.output)")
        #expect(page.output.contains("New case: Gift card scenario"))
        #expect(
            page.output.contains("title before: Pay by card") && page.output.contains("title after: Pay by credit card")
        )
    }

    @Test(
        "an answer to a proposal is refused until question showed every edit, kept in the account's state (M-QUEUE-7, M-WEB-4)"
    )
    func anAnswerToAProposalWaitsUntilItsEditsWereShown() async throws {  // issue 37, Mainworthy item 1
        try await start()
        let root = try value(try await succeeds("browse", "--json"))
        let legal = try #require(root["folders"]?.arrayValue?.first { $0["name"] == "Legal" }?["id"]?.stringValue)
        let saved = try json(
            try await succeeds(
                "new", "--folder", legal, "--title", "Accept the terms", "--step", "Open the terms=>They are shown",
                "--json"))
        let question = try #require(saved["question_id"]?.stringValue, "\(saved)")
        #expect(saved["state"] == "waiting")
        try await clearLog()
        // Never shown: refused, nothing sent, and the sentence names what to run.
        let refused = try await run(["answer", question, "adopt"])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.errors.contains("have not been shown")
                && refused.errors.contains("companion mainworthy question \(question)"), "\(refused.errors)")
        #expect(try await posts(endingWith: "/decisions").isEmpty)
        // `question` prints every edit, and the account's state keeps that it did (0600 in a 0700 folder).
        let page = try await succeeds("question", question)
        #expect(page.output.contains("edit 1 of 1: create_case") && page.output.contains("New case: Accept the terms"))
        #expect(page.output.contains("1. Open the terms → They are shown"), "\(page.output)")
        let file = try stateFile()
        #expect(try mode(file) == 0o600 && mode(file.deletingLastPathComponent()) == 0o700)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(question))
        let answered = try await succeeds("answer", question, "adopt")
        #expect(answered.output.contains("Decision"), "\(answered.output)")
        #expect(try await posts(endingWith: "/decisions").count == 1)

        // Or shown in the same command: --show-edits prints every edit and asks; no is nothing sent.
        let other = try json(
            try await succeeds("new", "--folder", legal, "--title", "Decline the terms", "--json"))
        let second = try #require(other["question_id"]?.stringValue, "\(other)")
        try await clearLog()
        let declined = try await run(["answer", second, "adopt", "--show-edits"], input: "n\n")
        #expect(declined.status == 1 && declined.output.contains("New case: Decline the terms"), "\(declined)")
        #expect(try await posts(endingWith: "/decisions").isEmpty)
        let confirmed = try await run(["answer", second, "adopt", "--show-edits"], input: "y\n")
        #expect(confirmed.status == 0 && confirmed.output.contains("Decision"), "\(confirmed.errors)")
        #expect(try await posts(endingWith: "/decisions").count == 1)
    }

    @Test(
        "a lost reply keeps its key: retry, or --retry, sends the same command with the same key; anew, it is pending (M-NET-2, M-DRAFT-5)"
    )
    func aLostReplyIsSentAgainWithTheSameKey() async throws {  // issue 37, Mainworthy item 4
        try await start()
        try await dropReply("/api/projects/shop/runs/r_1/slots/s_2/results")
        try await clearLog()
        let lost = try await run(["result", "r_1", "s_2", "pass"])
        #expect(lost.status == 1 && lost.errors.contains("may or may not have been recorded"), "\(lost.errors)")
        #expect(lost.errors.contains("`companion mainworthy retry`") && !lost.errors.contains("press Retry"))
        let file = try stateFile()
        #expect(try mode(file) == 0o600)
        let first = try await posts(endingWith: "/results")
        let key = try #require(first.first?["idempotency_key"]?.stringValue)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(key))
        // The command anew: nothing is sent, and it says one is pending and how to send it.
        let anew = try await run(["result", "r_1", "s_3", "fail"])
        #expect(
            anew.status == 1 && anew.errors.contains("An unconfirmed result (`result r_1 s_2 pass`"), "\(anew.errors)")
        #expect(anew.errors.contains("companion mainworthy retry"))
        #expect(try await posts(endingWith: "/results").count == 1)
        // retry: the same request with the same key; the server replays its reply, one result stands.
        let retried = try await succeeds("retry", "--json")
        expectDocumentedShape(retried.output, "mainworthy retry")
        #expect(try json(retried)["command"] == "result")
        let results = try await posts(endingWith: "/results")
        #expect(results.count == 2 && results.allSatisfy { $0["idempotency_key"]?.stringValue == key }, "\(results)")
        #expect(results.first?["body"] == results.last?["body"])
        let slot = try value(try await succeeds("run", "r_1", "--json"))["slots"]?.arrayValue?.first {
            $0["id"] == "s_2"
        }
        #expect(slot?["result"]?["outcome"] == "pass")
        let nothing = try await run(["retry"])
        #expect(nothing.status == 1 && nothing.errors.contains("No unconfirmed"), "\(nothing.errors)")

        // A save, sent again with --retry on the same command.
        try await dropReply("/api/projects/shop/proposals")
        try await clearLog()
        let edit = try await run(["edit", "C-30", "--title", "Checkout scenario 30, retried"])
        #expect(edit.status == 1 && edit.output.contains("--retry"), "\(edit.output)")
        try await succeeds("edit", "--retry")
        let proposals = try await posts(endingWith: "/proposals")
        #expect(
            proposals.count == 2 && Set(proposals.map { $0["idempotency_key"]?.stringValue }).count == 1, "\(proposals)"
        )
        let history = try value(try await succeeds("history", "C-30", "--json"))
        #expect(history["items"]?.arrayValue?.map { $0["version"]?.intValue } == [2, 1])
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"pending\":[]"))
    }

    @Test("every mainworthy --json prints the shape docs/cli-json.md documents; screens print the one screen report")
    func everyJSONHasItsDocumentedShape() async throws {  // issue 34
        try await start()
        let login = try await succeeds(
            "login", "--user", "ada", "--password-stdin", "--json", input: try await password())
        expectDocumentedShape(login.output, "mainworthy login")
        let output1 = try await jsonOutput("sessions")
        expectDocumentedShape(output1, "mainworthy sessions")
        let output2 = try await jsonOutput("projects")
        expectDocumentedShape(output2, "mainworthy projects")
        let output3 = try await jsonOutput("queue")
        expectDocumentedShape(output3, "mainworthy queue")
        let output4 = try await jsonOutput("queue", "--kind", "failure")
        expectDocumentedShape(output4, "mainworthy queue")
        for question in ["q_1", "q_2", "q_3", "q_5"] {
            let output5 = try await jsonOutput("question", question)
            expectDocumentedShape(output5, "mainworthy question")
        }
        let output6 = try await jsonOutput("runs")
        expectDocumentedShape(output6, "mainworthy runs")
        let output7 = try await jsonOutput("run", "r_1")
        expectDocumentedShape(output7, "mainworthy run")
        let output8 = try await jsonOutput("changes")
        expectDocumentedShape(output8, "mainworthy changes")
        let output9 = try await jsonOutput("change", "ch_1")
        expectDocumentedShape(output9, "mainworthy change")
        let output10 = try await jsonOutput("browse")
        expectDocumentedShape(output10, "mainworthy browse")
        let output11 = try await jsonOutput("cases")
        expectDocumentedShape(output11, "mainworthy cases")
        let output12 = try await jsonOutput("cases", "--folder", "f_3")
        expectDocumentedShape(output12, "mainworthy cases")
        let output13 = try await jsonOutput("cases", "--search", "card")
        expectDocumentedShape(output13, "mainworthy cases")
        let output14 = try await jsonOutput("case", "C-12")
        expectDocumentedShape(output14, "mainworthy case")
        let output15 = try await jsonOutput("case", "C-12", "--version", "1")
        expectDocumentedShape(output15, "mainworthy case")
        let output16 = try await jsonOutput("history", "C-12")
        expectDocumentedShape(output16, "mainworthy history")

        let answered = try await jsonOutput("answer", "q_2", "test_wrong")
        expectDocumentedShape(answered, "mainworthy answer")
        let output17 = try await jsonOutput("decided")
        expectDocumentedShape(output17, "mainworthy decided")
        let decision = try #require(JSONValue(data: Data(answered.utf8))?["decision"]?["id"]?.stringValue)
        let output18 = try await jsonOutput("undo", decision, "--reason", "Wrong call")
        expectDocumentedShape(output18, "mainworthy undo")
        let output19 = try await jsonOutput("result", "r_1", "s_2", "pass")
        expectDocumentedShape(output19, "mainworthy result")
        let output20 = try await jsonOutput("result", "r_1", "s_2", "undo")
        expectDocumentedShape(output20, "mainworthy result")
        let output21 = try await jsonOutput("plan", "Smoke", "--all")
        expectDocumentedShape(output21, "mainworthy plan")
        let output22 = try await jsonOutput("edit", "C-12", "--title", "Pay by card, shaped")
        expectDocumentedShape(output22, "mainworthy save")
        let warned = try await run(["new", "--title", " Padded", "--json"])
        #expect(warned.status == 1, "\(warned.errors)")
        expectDocumentedShape(warned.output, "mainworthy save")

        let revision = try #require(try json(try await run(["changes", "--json"]))["value"]?["revision"]?.intValue)
        let token = try await control.send(Request<JSONValue>.get("/_control/fixture"))["pipeline_token"]?.stringValue
        let report = try await run(
            ["report", "--project", "shop", "--commit", "abc1234", "--branch", "feature/shape", "--json"],
            input: (token ?? "") + "\n")
        #expect(report.status == 0, "\(report.errors)")
        expectDocumentedShape(report.output, "mainworthy report")
        let watched = try await run(["watch", "--after", String(revision), "--count", "1", "--timeout", "20", "--json"])
        #expect(watched.status == 0, "\(watched.errors)")
        expectDocumentedShape(watched.output, "mainworthy watch", lines: true)

        let sessions = try json(try await run(["sessions", "--json"]))["value"]?.arrayValue ?? []
        let other = try #require(sessions.first { $0["current"] == false }?["id"]?.stringValue)
        let output23 = try await jsonOutput("sessions", "--end", other)
        expectDocumentedShape(output23, "mainworthy sessions --end")
        let output24 = try await jsonOutput("logout")
        expectDocumentedShape(output24, "mainworthy logout")
    }

    /// ada's password, with the newline `--password-stdin` reads up to.
    func password() async throws -> String {
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        return (fixture["passwords"]?["ada"]?.stringValue ?? "") + "\n"
    }
}
