import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import MainworthyCore

/// `companion mainworthy …`: the Mainworthy app core, headless.
///
/// The server is the build's (`https://mainworthy.com`) unless `--server` or `$MAINWORTHY_URL` names
/// another; plain http only to a loopback address. The session cookie goes to the secret store in
/// `<home>/secrets`, where every later command finds it; the password is never stored.
enum MainworthyCommands {
    /// `mainworthy login|logout|sessions|projects|queue|question|answer|undo|decided|runs|run|result|plan`.
    static let family = CommandFamily(
        title: "Apps",
        commands: [
            .group(
                "mainworthy", summary: "the Mainworthy app, headless",
                details: """
                    The server is --server, else $MAINWORTHY_URL, else https://mainworthy.com; plain http only to
                    a loopback address. The session cookie goes to the secret store in $COMPANION_HOME/secrets,
                    where every later command finds it; the password is never stored.
                    """,
                [
                    command(
                        "login", "sign in; the session goes to the secret store", [],
                        [
                            .option("user", "NAME", "the name (asked for when not given)"),
                            .flag("password-stdin", "read the password from standard input"),
                        ]),
                    command("logout", "end this device's session and forget it", [], []),
                    command(
                        "sessions", "your sessions (* marks this device); end one",
                        [.init(syntax: "[end <id>]", help: "end the session <id>")], []),
                    command("projects", "your projects and what you may do in each", [], []),
                    command(
                        "queue", "open questions, failures first, and the summary line", [],
                        [.option("kind", "KIND", "only one kind: failure, proposal, review, sign_off, link, overlap")]),
                    command("question", "a question's evidence, answers and ledger", [questionParameter], []),
                    command(
                        "answer", "answer a question (resent by itself if the reply is lost)",
                        [questionParameter, .init(syntax: "<answer>", help: "the answer's key")],
                        [
                            .option("reason", "TEXT", "the reason, where the policy asks for one"),
                            .option("tracker", "TEXT", "where the defect is tracked"),
                        ]),
                    command(
                        "undo", "withdraw a decision", [.init(syntax: "<decision>", help: "the decision's id")],
                        [.option("reason", "TEXT", "the reason, where the policy asks for one")]),
                    command("decided", "the decisions standing, and by whom", [], []),
                    command("runs", "the project's runs", [], []),
                    command("run", "a run's verdict and slots", [runParameter], []),
                    command(
                        "result", "record a result; prints the next empty slot",
                        [
                            runParameter, .init(syntax: "<slot>", help: "the slot's id"),
                            .init(syntax: "pass|fail|blocked|skip", help: "the outcome"),
                        ],
                        [
                            .option("note", "TEXT", "a note"),
                            .option("step", "K", "the failed step (with fail)"),
                        ]),
                    command(
                        "plan", "plan a run", [.init(syntax: "<name>", help: "the run's name")],
                        [
                            .flag("all", "every case"),
                            .option("folder", "ID", "the cases of a folder and its subfolders"),
                            .option("tag", "TAG", "the cases with a tag"),
                            .option("search", "TEXT", "the cases matching a search"),
                            .option("commit", "SHA", "also accept pipeline results for this commit"),
                        ]),
                ] + MainworthyChangesCommands.commands + MainworthyCasesCommands.commands)
        ])

    private static let questionParameter = Command.Parameter(syntax: "<question>", help: "the question's id")
    private static let runParameter = Command.Parameter(syntax: "<run>", help: "the run's id")
    private static let common: [Command.Option] = [
        .option("server", "URL", "the Mainworthy server"),
        .option("project", "KEY", "the project (default: your first)"),
        .json,
    ]

    private static func command(
        _ name: String, _ summary: String, _ parameters: [Command.Parameter], _ options: [Command.Option]
    ) -> Command {
        Command(
            name: name, summary: summary, parameters: parameters, options: options + common,
            run: { try await MainworthyCommands.run(name, $0) })
    }

    /// The positionals each command needs: (at least, at most).
    static let positionals: [String: (Int, Int)] = [
        "login": (0, 0), "logout": (0, 0), "sessions": (0, 2), "projects": (0, 0), "queue": (0, 0),
        "question": (1, 1), "answer": (2, 2), "undo": (1, 1), "decided": (0, 0), "runs": (0, 0), "run": (1, 1),
        "result": (3, 3), "plan": (1, 1),
    ]

    /// Runs `command` with its parsed arguments; a wrong number of arguments is a usage error before
    /// anything is sent.
    @MainActor
    static func run(_ command: String, _ arguments: Arguments) async throws -> Int32 {
        guard let (least, most) = positionals[command] else {
            throw UsageError("unknown command \(command); run `companion mainworthy --help`")
        }
        try arguments.expectAtMost(most)
        if arguments.positionals.count < least {
            throw UsageError(
                "\(command) needs \(least) argument\(least == 1 ? "" : "s"); run `companion mainworthy --help`")
        }
        let json = arguments.flag("json")
        let connection = try connect(arguments)
        switch command {
        case "login": return try await login(connection, arguments, json: json)
        case "logout": return try await logout(connection, json: json)
        case "sessions": return try await sessions(connection, arguments, json: json)
        case "projects": return try await projects(connection, json: json)
        default: break
        }
        guard await connection.isSignedIn else {
            throw CommandFailure("Not signed in to \(connection.address.serverKey). Run `companion mainworthy login`.")
        }
        let workspace = MainworthyWorkspace(connection: connection)
        await workspace.load(preferred: arguments.option("project"))
        if workspace.signedOut { throw CommandFailure("The session was ended. Run `companion mainworthy login`.") }
        guard let project = workspace.current else {
            throw CommandFailure(workspace.projects.failureReason ?? "You have no project on this server.")
        }
        switch command {
        case "queue": return try await queue(workspace, project, arguments, json: json)
        case "question": return try await question(workspace, project, arguments, json: json)
        case "answer": return try await answer(workspace, project, arguments, json: json)
        case "undo": return try await undo(workspace, project, arguments, json: json)
        case "decided": return try await decided(workspace, json: json)
        case "runs": return try await runs(workspace, json: json)
        case "run": return try await run(workspace, arguments, json: json)
        case "result": return try await result(workspace, arguments, json: json)
        case "plan": return try await plan(workspace, arguments, json: json)
        default: throw UsageError("unknown command \(command); run `companion mainworthy --help`")
        }
    }

    // MARK: - the connection

    static func connect(_ arguments: Arguments) throws -> MainworthyConnection {
        let text =
            arguments.option("server") ?? ProcessInfo.processInfo.environment["MAINWORTHY_URL"]
            ?? MainworthyBuild.productionServer
        guard let url = URL(string: text) else { throw UsageError("--server \(text) is not a URL") }
        let secrets = try AuthCommands.store()
        do throws(MainworthyError) {
            return try MainworthyConnection(
                build: MainworthyBuild(server: url, version: "companion"), secrets: secrets,
                transportPolicy: arguments.transportPolicy, journal: Terminal.journal)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    static func fail(_ error: MainworthyError) -> CommandFailure { CommandFailure(error.description) }

    static func emit(_ value: some Encodable) throws { Terminal.out(try JSONOutput.document(value)) }

    // MARK: - sign-in and sessions

    @MainActor
    static func login(_ connection: MainworthyConnection, _ arguments: Arguments, json: Bool) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let screen = SignInScreen(connection: connection)
        screen.name = try arguments.option("user") ?? AuthCommands.prompt("Name: ")
        screen.password = try AuthCommands.secret("Password: ", fromStdin: arguments.flag("password-stdin"))
        await screen.submit()
        switch screen.phase {
        case .signedIn(let person):
            if json {
                try emit(["server": connection.address.serverKey, "user": person.name])
            } else {
                Terminal.out("Signed in to \(connection.address.serverKey) as \(person.name).")
            }
            return 0
        case .refused(let sentence), .failed(let sentence):
            throw CommandFailure(sentence)
        case .passwordNotSet(let sentence):
            throw CommandFailure("\(sentence) \(SignInScreen.passkeyNote)")
        case .idle, .signingIn:
            throw CommandFailure("Give a name and a password.")
        }
    }

    @MainActor
    static func logout(_ connection: MainworthyConnection, json: Bool) async throws -> Int32 {
        guard let id = await connection.credentials.credential?.serverID else {
            throw CommandFailure("Not signed in to \(connection.address.serverKey).")
        }
        var note: String?
        do {
            try await connection.read(MainworthyAPI.endSession(id))
        } catch {
            note = "The server did not confirm the end of the session: \(error.description)"
        }
        await connection.signOut()
        if let note { Terminal.err(note) }
        if json {
            try emit(["server": connection.address.serverKey, "signed_out": "true"])
        } else {
            Terminal.out("Signed out of \(connection.address.serverKey).")
        }
        return 0
    }

    @MainActor
    static func sessions(_ connection: MainworthyConnection, _ arguments: Arguments, json: Bool) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let screen = SessionsScreen(workspace: MainworthyWorkspace(connection: connection))
        await screen.refresh()
        guard let list = screen.state.value else { throw CommandFailure(screen.state.failureReason ?? "No sessions.") }
        if arguments.positionals.first == "end" {
            let id = try arguments.positional(1, "the session's id")
            guard let session = list.first(where: { $0.id == id }) else {
                throw CommandFailure("You have no session \(id).")
            }
            screen.requestEnd(session)
            await screen.confirmEnd()
            if let problem = screen.endProblem { throw CommandFailure(problem) }
            let sentence = session.current ? "Ended this device's session; signed out." : "Ended session \(id)."
            if json {
                try emit(["ended": id, "signed_out": session.current ? "true" : "false"])
            } else {
                Terminal.out(sentence)
            }
            return 0
        }
        if let word = arguments.positionals.first { throw UsageError("unexpected argument \(word)") }
        if json {
            try emit(list)
        } else {
            for session in list {
                let mark = session.current ? "*" : " "
                let opened = session.openedAt.flatMap { try? Timestamp.format($0) } ?? "?"
                let used = session.lastUsedAt.flatMap { try? Timestamp.format($0) } ?? "?"
                Terminal.out(
                    "\(mark) \(session.id)  \(session.client ?? "?")  by \(session.openedBy ?? "?")  opened \(opened) from \(session.openedFrom ?? "?")  last used \(used) from \(session.lastUsedFrom ?? "?")"
                )
            }
        }
        return 0
    }

    @MainActor
    static func projects(_ connection: MainworthyConnection, json: Bool) async throws -> Int32 {
        let list: [Project]
        do {
            list = try await connection.read(MainworthyAPI.projects()).items
        } catch {
            throw fail(error)
        }
        if json {
            try emit(list)
        } else {
            for project in list {
                let capabilities = Capability.allCases.filter(project.allows).map(\.rawValue).joined(separator: ", ")
                Terminal.out("\(project.key)  \(project.name)  (\(capabilities))")
            }
        }
        return 0
    }

    // MARK: - the queue

    struct QueueOutput: Encodable {
        var project: String
        var summaryLine: String
        var summary: QueueSummary
        var items: [QueueItem]
        var nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case project, summary, items
            case summaryLine = "summary_line"
            case nextCursor = "next_cursor"
        }
    }

    @MainActor
    static func queue(_ workspace: MainworthyWorkspace, _ project: Project, _ arguments: Arguments, json: Bool)
        async throws -> Int32
    {
        try arguments.expectAtMost(0)
        guard let screen = workspace.queue else { throw CommandFailure("No project is open.") }
        let kind = arguments.option("kind").map(QuestionKind.init(rawValue:))
        if let kind, !QuestionKind.chips.contains(kind) {
            throw UsageError("--kind is one of \(QuestionKind.chips.map(\.rawValue).joined(separator: ", "))")
        }
        await screen.choose(kind)
        guard let page = screen.state.value else { throw CommandFailure(screen.state.failureReason ?? "No queue.") }
        if json {
            try emit(
                QueueOutput(
                    project: project.key, summaryLine: page.summaryLine, summary: page.summary, items: page.items,
                    nextCursor: page.nextCursor))
        } else {
            Terminal.out("\(project.name): \(page.summaryLine)")
            for item in page.items { Terminal.out("  \(item.id)  \(item.kind.rawValue)  \(item.title)") }
        }
        return 0
    }

    @MainActor
    static func question(_ workspace: MainworthyWorkspace, _ project: Project, _ arguments: Arguments, json: Bool)
        async throws -> Int32
    {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the question's id")
        let page = QuestionScreen(workspace: workspace, project: project.key, id: id)
        await page.refresh()
        guard let question = page.state.value else {
            throw CommandFailure(page.state.failureReason ?? "The question could not be read.")
        }
        if json {
            try emit(question)
            return 0
        }
        Terminal.out("\(question.id)  \(question.kind.rawValue)  \(question.state)  \(question.title)")
        if let failure = question.evidence.failure {
            Terminal.out("  failed: \(failure.test): \(failure.message ?? "")")
            Terminal.out("  job \(failure.job ?? "?"), commit \(failure.commit ?? "?"), at \(failure.location ?? "?")")
        }
        if let review = question.evidence.review { Terminal.out("  review found: \(review.finding)") }
        if let proposal = question.evidence.proposal {
            Terminal.out(
                "  proposal of \(proposal.editCount) edits: \(proposal.edits.map(\.op).joined(separator: ", "))")
        }
        let availability = page.availability
        for answer in question.answers {
            let extra = [
                answer.reasonRequired ? "needs a reason" : nil, answer.asksTracker ? "asks for a tracker" : nil,
            ]
            .compactMap { $0 }.joined(separator: ", ")
            Terminal.out(
                "  [\(availability.isEnabled ? answer.key : "greyed: " + answer.key)] \(answer.label): \(answer.sentence)\(extra.isEmpty ? "" : " (\(extra))")"
            )
        }
        if let link = availability.webLink { Terminal.out("  \(link.reason.sentence) \(link.url.absoluteString)") }
        if let decision = question.decision { Terminal.out("  decided: \(decision.summary) (\(decision.id))") }
        return 0
    }

    struct AnswerOutput: Encodable {
        var recorded: String
        var decision: Decision
    }

    @MainActor
    static func answer(_ workspace: MainworthyWorkspace, _ project: Project, _ arguments: Arguments, json: Bool)
        async throws -> Int32
    {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the question's id")
        let key = try arguments.positional(1, "the answer")
        let page = QuestionScreen(workspace: workspace, project: project.key, id: id)
        await page.refresh()
        guard let question = page.state.value else {
            throw CommandFailure(page.state.failureReason ?? "The question could not be read.")
        }
        guard question.answers.contains(where: { $0.key == key }) else {
            throw UsageError(
                "\(key) is not an answer of \(id); its answers: \(question.answers.map(\.key).joined(separator: ", "))")
        }
        page.reportLastEditShown()  // the terminal prints every edit before an answer can be given
        await page.answer(key, reason: arguments.option("reason") ?? "", tracker: arguments.option("tracker") ?? "")
        guard let recorded = page.recorded else {
            throw CommandFailure(page.problem ?? "The answer was not recorded.")
        }
        if json {
            try emit(AnswerOutput(recorded: recorded.recorded, decision: recorded.decision))
        } else {
            Terminal.out(
                "\(recorded.recorded) Decision \(recorded.decision.id); undo with `companion mainworthy undo \(recorded.decision.id)`."
            )
        }
        return 0
    }

    @MainActor
    static func undo(_ workspace: MainworthyWorkspace, _ project: Project, _ arguments: Arguments, json: Bool)
        async throws -> Int32
    {
        try arguments.expectAtMost(1)
        let decision = try arguments.positional(0, "the decision's id")
        let body = WithdrawalBody(reason: arguments.option("reason").flatMap { $0.isEmpty ? nil : $0 })
        let command = workspace.connection.command(
            MainworthyAPI.withdraw(project.key, decision: decision, body), resendsLostReply: true)
        let reply: WithdrawalReply
        do {
            reply = try await workspace.connection.perform(command)
        } catch {
            if case .refused(let refusal) = error, let current = refusal.current {
                throw CommandFailure("\(refusal.message) Now: \(current.summary) (\(current.id)).")
            }
            throw fail(error)
        }
        if json {
            try emit(reply)
        } else {
            Terminal.out(
                "Withdrew \(reply.withdrawal.withdraws); question \(reply.question.id) is \(reply.question.state) again."
            )
        }
        return 0
    }

    @MainActor
    static func decided(_ workspace: MainworthyWorkspace, json: Bool) async throws -> Int32 {
        guard let screen = workspace.decided else { throw CommandFailure("No project is open.") }
        await screen.refresh()
        guard let items = screen.state.value else { throw CommandFailure(screen.state.failureReason ?? "No list.") }
        if json {
            try emit(items)
        } else {
            for item in items {
                Terminal.out(
                    "\(item.id)  \(item.answer.label) by \(item.by.name)  on \(item.question.id) \(item.question.title)"
                )
            }
        }
        return 0
    }

    // MARK: - runs

    @MainActor
    static func runs(_ workspace: MainworthyWorkspace, json: Bool) async throws -> Int32 {
        guard let screen = workspace.runs else { throw CommandFailure("No project is open.") }
        await screen.refresh()
        guard let runs = screen.state.value else { throw CommandFailure(screen.state.failureReason ?? "No runs.") }
        if json {
            try emit(runs)
        } else {
            for run in runs {
                Terminal.out("\(run.id)  \(run.state)  \(run.name)  \(run.slotCount) slots  \(run.verdict.sentence)")
            }
        }
        return 0
    }

    @MainActor
    static func run(_ workspace: MainworthyWorkspace, _ arguments: Arguments, json: Bool) async throws -> Int32 {
        try arguments.expectAtMost(1)
        guard let runs = workspace.runs else { throw CommandFailure("No project is open.") }
        let screen = runs.run(try arguments.positional(0, "the run's id"))
        await screen.refresh()
        guard let run = screen.state.value else { throw CommandFailure(screen.state.failureReason ?? "No run.") }
        if json {
            try emit(run)
            return 0
        }
        Terminal.out("\(run.id)  \(run.name)  \(run.state)  \(run.verdict.value): \(run.verdict.sentence)")
        Terminal.out("  accepts: \(run.accepts.sentence)")
        for slot in run.slots {
            let result = slot.result.map { "\($0.outcome.rawValue)\($0.by.map { " by \($0.name)" } ?? "")" } ?? "-"
            Terminal.out(
                "  \(slot.position). \(slot.id)  \(slot.case.number) v\(slot.case.version)  \(slot.case.title)  \(result)"
            )
        }
        if let start = RunNavigation.start(run.slots) {
            Terminal.out("  Start opens \(start.id) (\(start.case.number)).")
        }
        return 0
    }

    struct ResultOutput: Encodable {
        var result: SlotResult
        var nextSlot: Slot?

        enum CodingKeys: String, CodingKey {
            case result
            case nextSlot = "next_slot"
        }
    }

    @MainActor
    static func result(_ workspace: MainworthyWorkspace, _ arguments: Arguments, json: Bool) async throws -> Int32 {
        try arguments.expectAtMost(3)
        let runID = try arguments.positional(0, "the run's id")
        let slotID = try arguments.positional(1, "the slot's id")
        let word = try arguments.positional(2, "the outcome (pass, fail, blocked or skip)")
        guard let outcome = Outcome(rawValue: word), Outcome.manual.contains(outcome) else {
            throw UsageError("the outcome is pass, fail, blocked or skip")
        }
        var step: Int?
        if let text = arguments.option("step") {
            guard let number = Int(text), number >= 1 else { throw UsageError("--step is a step number from 1") }
            guard outcome == .fail else { throw UsageError("--step goes only with fail") }
            step = number
        }
        guard let runs = workspace.runs else { throw CommandFailure("No project is open.") }
        let screen = runs.run(runID)
        await screen.refresh()
        guard screen.state.value != nil else { throw CommandFailure(screen.state.failureReason ?? "No run.") }
        await screen.open(slotID)
        guard screen.openSlot != nil else { throw CommandFailure(screen.problem ?? "No slot \(slotID).") }
        guard screen.canRecord else {
            throw CommandFailure(
                screen.state.value?.isOpen == false
                    ? "This run is closed and accepts no results." : "You may not record results in this project.")
        }
        if let step { screen.pressStep(step) }
        screen.setNote(arguments.option("note") ?? "")
        await screen.record(outcome)
        if let problem = screen.problem { throw CommandFailure(problem) }
        let recorded = screen.state.value?.slots.first { $0.id == slotID }
        guard let result = recorded?.result else { throw CommandFailure("The result was not confirmed.") }
        let next = screen.openSlot?.slot
        if json {
            try emit(ResultOutput(result: result, nextSlot: next))
        } else {
            Terminal.out("Recorded \(result.outcome.rawValue) on \(slotID) (\(recorded?.case.number ?? "")).")
            if let next {
                Terminal.out("Next: \(next.id) (\(next.case.number) \(next.case.title)).")
            } else {
                Terminal.out("Every slot has a result.")
            }
        }
        return 0
    }

    struct PlanOutput: Encodable {
        var runID: String
        var slotCount: Int
        var sentence: String

        enum CodingKeys: String, CodingKey {
            case sentence
            case runID = "run_id"
            case slotCount = "slot_count"
        }
    }

    @MainActor
    static func plan(_ workspace: MainworthyWorkspace, _ arguments: Arguments, json: Bool) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let name = try arguments.positional(0, "the run's name")
        var selections: [PlanSelection] = []
        if arguments.flag("all") { selections.append(.all) }
        if let folder = arguments.option("folder") { selections.append(.folder(id: folder)) }
        if let tag = arguments.option("tag") { selections.append(.tag(tag)) }
        if let text = arguments.option("search") { selections.append(.search(text)) }
        guard selections.count == 1, let selection = selections.first else {
            throw UsageError("give exactly one of --all, --folder, --tag or --search")
        }
        guard let runs = workspace.runs else { throw CommandFailure("No project is open.") }
        guard runs.canPlan else { throw CommandFailure("You may not plan runs in this project.") }
        await runs.plan(name: name, selection: selection, commit: arguments.option("commit") ?? "")
        switch runs.planOutcome {
        case .planned(let runID, let count):
            let sentence = runs.planOutcome?.sentence ?? ""
            if json {
                try emit(PlanOutput(runID: runID, slotCount: count, sentence: sentence))
            } else {
                Terminal.out("\(sentence) Run \(runID).")
            }
            return 0
        case .plannedButUnread(let runID, _, let problem):
            throw CommandFailure(
                "Run \(runID) was planned but could not be read (\(problem)). Read it with `companion mainworthy run \(runID)`."
            )
        case .failed(let sentence):
            throw CommandFailure(sentence)
        case nil:
            throw CommandFailure("Nothing was planned.")
        }
    }
}

extension ScreenState {
    /// Why the screen has nothing to show, if it failed.
    var failureReason: String? {
        if case .failed(let reason, _) = self { return reason }
        return nil
    }
}
