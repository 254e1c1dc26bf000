import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import Foundation
import MainworthyCore

/// `companion mainworthy …`: the Mainworthy app core, headless.
///
/// The server is the build's (`https://mainworthy.com`) unless `--server` or `$MAINWORTHY_URL` names another;
/// plain http only to a loopback address, and never with `--https-only`. The session cookie goes to the secret
/// store in `<home>/secrets`, where every later command finds it; the password is never stored. Every command is
/// declared here as data with the function it runs: this file holds sign-in, sessions, the queue and runs;
/// `MainworthyChangesCommands` and `MainworthyCasesCommands` the rest.
enum MainworthyCommands {
    /// `mainworthy login|logout|sessions|projects|queue|question|answer|undo|decided|runs|run|result|plan|…`.
    static let family = CommandFamily(
        title: "Apps",
        commands: [
            .group(
                "mainworthy", summary: "the Mainworthy app, headless",
                details: """
                    The server is --server, else $MAINWORTHY_URL, else https://mainworthy.com; plain http only to
                    a loopback address (never with --https-only). The session cookie goes to the secret store in
                    $COMPANION_HOME/secrets, where every later command finds it; the password is never stored.
                    """,
                commands + MainworthyChangesCommands.commands + MainworthyCasesCommands.commands
                    + MainworthyRetryCommands.commands)
        ])

    /// The options every `mainworthy` command takes.
    static let common: [Command.Option] = [
        .option("server", "URL", "the Mainworthy server"),
        .option("project", "KEY", "the project (default: your first)"),
        .httpsOnly,
        .json,
    ]

    /// A `mainworthy` command: `positionals` is how many positional arguments it takes; `run` gets the parsed
    /// arguments once their number is right.
    static func command(
        _ name: String, _ summary: String, _ parameters: [Command.Parameter] = [], options: [Command.Option] = [],
        positionals: ClosedRange<Int> = 0...0, run: @escaping @MainActor (Arguments) async throws -> Int32
    ) -> Command {
        Command(
            name: name, summary: summary, parameters: parameters, options: options + common,
            run: { arguments in
                try arguments.expectAtMost(positionals.upperBound)
                // `--retry` sends the kept command again: it needs none of the command's arguments.
                if arguments.positionals.count < positionals.lowerBound, !arguments.flag("retry") {
                    let count = positionals.lowerBound
                    throw UsageError(
                        "\(name) needs \(count) argument\(count == 1 ? "" : "s"); run `companion mainworthy \(name) --help`"
                    )
                }
                return try await run(arguments)
            })
    }

    private static let questionParameter = Command.Parameter(syntax: "<question>", help: "the question's id")
    private static let runParameter = Command.Parameter(syntax: "<run>", help: "the run's id")

    private static let commands: [Command] = [
        command(
            "login", "sign in; the session goes to the secret store",
            options: [
                .option("user", "NAME", "the name (asked for when not given)"),
                .flag("password-stdin", "read the password from standard input"),
            ], run: login),
        command("logout", "end this device's session and forget it", run: logout),
        command(
            "sessions", "your sessions (* marks this device); --end ends one",
            options: [.option("end", "ID", "end the session ID (this device's signs out)")], run: sessions),
        command("projects", "your projects and what you may do in each", run: projects),
        command(
            "about", "the app's and the server's versions, the licence, the copyright line and Works until",
            run: about),
        command(
            "queue", "open questions, failures first, and the summary line",
            options: [.option("kind", "KIND", "only one kind: failure, proposal, review, sign_off, link, overlap")],
            run: queue),
        command(
            "question", "a question's evidence, answers (greyed where the app cannot answer) and ledger",
            [questionParameter], positionals: 1...1, run: question),
        command(
            "answer",
            "answer a question (resent by itself if the reply is lost); a proposal only once `question` showed its edits",
            [questionParameter, .init(syntax: "<answer>", help: "the answer's key")],
            options: [
                .option("reason", "TEXT", "the reason, where the policy asks for one"),
                .option("tracker", "TEXT", "where the defect is tracked"),
                .flag("show-edits", "a proposal not shown yet: print every edit, then ask before answering"),
                MainworthyRetryCommands.retryOption,
            ], positionals: 2...2, run: answer),
        command(
            "undo", "withdraw a decision (resent by itself if the reply is lost)",
            [.init(syntax: "<decision>", help: "the decision's id")],
            options: [
                .option("reason", "TEXT", "the reason, where the policy asks for one"),
                MainworthyRetryCommands.retryOption,
            ], positionals: 1...1, run: undo),
        command("decided", "the decisions standing, and by whom", run: decided),
        command("runs", "the project's runs", run: runs),
        command("run", "a run's verdict, slots and what Start opens", [runParameter], positionals: 1...1, run: run),
        command(
            "result",
            "record a result (never resent by itself); prints the next empty slot; undo records your earlier one",
            [
                runParameter, .init(syntax: "<slot>", help: "the slot's id"),
                .init(
                    syntax: "pass|fail|blocked|skip|undo",
                    help: "the outcome, or undo: your result before your latest one in the slot again, else skip"),
            ],
            options: [
                .option("note", "TEXT", "a note"),
                .option("step", "K", "the failed step (with fail)"),
                MainworthyRetryCommands.retryOption,
            ], positionals: 3...3, run: result),
        command(
            "plan", "plan a run", [.init(syntax: "<name>", help: "the run's name")],
            options: [
                .flag("all", "every case"),
                .option("folder", "ID", "the cases of a folder and its subfolders"),
                .option("tag", "TAG", "the cases with a tag"),
                .option("search", "TEXT", "the cases matching a search"),
                .option("commit", "SHA", "also accept pipeline results for this commit"),
                MainworthyRetryCommands.retryOption,
            ], positionals: 1...1, run: plan),
    ]

    // MARK: - the environment, the server and the workspace

    /// The build for this command line: `--server`, else `$MAINWORTHY_URL`, else the production server.
    static func build(_ arguments: Arguments) throws -> MainworthyBuild {
        let text =
            arguments.option("server") ?? ProcessInfo.processInfo.environment["MAINWORTHY_URL"]
            ?? MainworthyBuild.productionServer
        guard let url = URL(string: text) else { throw UsageError("--server \(text) is not a URL") }
        return MainworthyBuild(server: url, version: "companion")
    }

    /// The process's parts from the terminal's one maker: the platform's transport under this command line's
    /// policy, the secret store in the home folder, the terminal's journal; stores in memory.
    static func environment(_ arguments: Arguments) throws -> AppEnvironment {
        try CommandEnvironment.make(arguments, stores: .memory)
    }

    /// The server with the session stored for it, or a failure telling how to sign in.
    static func signedIn(_ arguments: Arguments) async throws -> MainworthyServer {
        let build = try build(arguments)
        let environment = try environment(arguments)
        let stored: MainworthyServer?
        let key: String
        do throws(MainworthyError) {
            key = try MainworthyServer.address(of: build, environment: environment).serverKey
            stored = try await MainworthyServer.stored(build: build, environment: environment)
        } catch {
            throw fail(error)
        }
        guard let stored else { throw CommandFailure("Not signed in to \(key). Run `companion mainworthy login`.") }
        return stored
    }

    /// The signed-in workspace with `--project` (or the first) open.
    @MainActor
    static func workspace(_ arguments: Arguments) async throws -> (MainworthyWorkspace, Project) {
        let workspace = MainworthyWorkspace(server: try await signedIn(arguments))
        await workspace.load(preferred: arguments.option("project"))
        if workspace.signedOut { throw CommandFailure("The session was ended. Run `companion mainworthy login`.") }
        guard let project = workspace.current else {
            throw CommandFailure(workspace.projects.problem ?? "You have no project on this server.")
        }
        return (workspace, project)
    }

    static func fail(_ error: MainworthyError) -> CommandFailure { CommandFailure(error.description) }

    static func emit(_ value: some Encodable) throws { Terminal.out(try JSONOutput.document(value)) }

    /// Prints `state` of `screen` through the terminal's one screen printer (`--json`: its `ScreenReport`) and
    /// returns the exit code: 0 when something is shown (an empty answer included), 1 when the screen failed.
    @MainActor
    static func show<Value: Encodable & Sendable & Equatable>(
        _ screen: String, _ state: ScreenState<Value>, _ workspace: MainworthyWorkspace, _ arguments: Arguments,
        emptyLines: [String] = [], lines: (Value) -> [String]
    ) throws -> Int32 {
        try ScreenOutput.show(
            screen: screen, state, now: workspace.server.bundle.clock.now(), json: arguments.flag("json"),
            signIn: "companion mainworthy login", emptyLines: emptyLines, lines: lines)
    }

    // MARK: - sign-in and sessions

    @MainActor
    static func login(_ arguments: Arguments) async throws -> Int32 {
        let build = try build(arguments)
        let environment = try environment(arguments)
        let address: ServerAddress
        do {
            address = try MainworthyServer.address(of: build, environment: environment)
        } catch {
            throw fail(error)
        }
        let name = try arguments.option("user") ?? AuthCommands.prompt("Name: ")
        let password = try AuthCommands.secret("Password: ", fromStdin: arguments.flag("password-stdin"))
        let flow = MainworthySignIn(address: address, environment: environment)
        let model = MainworthySignIn.model(flow, address: address, environment: environment)
        await model.submitPassword(username: name, password: password)
        guard case .signedIn = model.state else {
            let refusal = model.state.problem
            if case .wrongCredentials(let sentence?) = refusal {
                let note = await flow.refusedCode == "password_not_set" ? " \(MainworthySignIn.passkeyNote)" : ""
                throw CommandFailure(sentence + note)
            }
            throw CommandFailure(refusal?.description ?? "Give a name and a password.")
        }
        if arguments.flag("json") {
            try emit(["server": address.serverKey, "user": name])
        } else {
            Terminal.out("Signed in to \(address.serverKey) as \(name).")
        }
        return 0
    }

    @MainActor
    static func logout(_ arguments: Arguments) async throws -> Int32 {
        let server = try await signedIn(arguments)
        guard let id = await server.credentials.credential?.serverID else {
            throw CommandFailure("Not signed in to \(server.address.serverKey).")
        }
        var note: String?
        do {
            try await server.perform(server.command(MainworthyAPI.endSession(id)))
        } catch {
            note = "The server did not confirm the end of the session: \(error.description)"
        }
        await server.signOut()
        if let note { Terminal.err(note) }
        if arguments.flag("json") {
            try emit(["server": server.address.serverKey, "signed_out": "true"])
        } else {
            Terminal.out("Signed out of \(server.address.serverKey).")
        }
        return 0
    }

    @MainActor
    static func sessions(_ arguments: Arguments) async throws -> Int32 {
        let workspace = MainworthyWorkspace(server: try await signedIn(arguments))
        let screen = SessionsModel(workspace: workspace)
        await screen.refresh()
        let json = arguments.flag("json")
        if let id = arguments.option("end") {
            guard let list = screen.state.value else {
                throw CommandFailure(screen.state.problem ?? "The sessions could not be read.")
            }
            guard let session = list.first(where: { $0.id == id }) else {
                throw CommandFailure("You have no session \(id).")
            }
            screen.requestEnd(session)
            await screen.confirmEnd()
            if let problem = screen.endProblem { throw CommandFailure(problem) }
            if json {
                try emit(["ended": id, "signed_out": session.isCurrent ? "true" : "false"])
            } else {
                Terminal.out(session.isCurrent ? "Ended this device's session; signed out." : "Ended session \(id).")
            }
            return 0
        }
        return try show("sessions", screen.state.map { $0.map(SessionRecord.init) }, workspace, arguments) { list in
            list.map { record in
                let session = record.info
                let mark = session.isCurrent ? "*" : " "
                let opened = session.openedAt.flatMap { try? Timestamp.format($0) } ?? "?"
                let used = session.lastUsedAt.flatMap { try? Timestamp.format($0) } ?? "?"
                return
                    "\(mark) \(session.id)  \(session.client ?? "?")  by \(session.openedBy ?? "?")  opened \(opened) from \(session.openedFrom ?? "?")  last used \(used) from \(session.lastUsedFrom ?? "?")"
            }
        }
    }

    @MainActor
    static func projects(_ arguments: Arguments) async throws -> Int32 {
        let workspace = MainworthyWorkspace(server: try await signedIn(arguments))
        await workspace.load()
        return try show("projects", workspace.projects, workspace, arguments) { list in
            list.map { project in
                let capabilities = Capability.allCases.filter(project.allows).map(\.rawValue).joined(separator: ", ")
                return "\(project.key)  \(project.name)  (\(capabilities))"
            }
        }
    }

    // MARK: - the queue

    struct QueueOutput: Encodable, Equatable {
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
    static func queue(_ arguments: Arguments) async throws -> Int32 {
        let kind = arguments.option("kind").map(QuestionKind.init(rawValue:))
        if let kind, !QuestionKind.chips.contains(kind) {
            throw UsageError("--kind is one of \(QuestionKind.chips.map(\.rawValue).joined(separator: ", "))")
        }
        let (workspace, project) = try await workspace(arguments)
        guard let screen = workspace.queue else { throw CommandFailure("No project is open.") }
        await screen.choose(kind)
        await screen.list.loadAll()
        let state = screen.state.map { page in
            QueueOutput(
                project: project.key, summaryLine: page.summaryLine, summary: page.summary, items: page.items,
                nextCursor: page.nextCursor)
        }
        return try show("queue", state, workspace, arguments) { page in
            ["\(project.name): \(page.summaryLine)"]
                + page.items.map { "  \($0.id)  \($0.kind.rawValue)  \($0.title)" }
        }
    }

    /// What `question --json` adds to the question as the server sent it: what the text shows beside it.
    struct QuestionExtras: Encodable, Equatable {
        struct Link: Encodable, Equatable {
            var url: URL
            var sentence: String
        }

        var answersEnabled: Bool
        var greyedBecause: String?
        var webLink: Link?
        var evidenceText: [String: String]
        var decisionSummary: String?

        enum CodingKeys: String, CodingKey {
            case answersEnabled = "answers_enabled"
            case greyedBecause = "greyed_because"
            case webLink = "web_link"
            case evidenceText = "evidence_text"
            case decisionSummary = "decision_summary"
        }
    }

    /// Why the answers are greyed, as the text says it.
    static func sentence(_ blocker: AnswerAvailability.Blocker) -> String {
        switch blocker {
        case .web(let handoff): return handoff.sentence
        case .missingCapability: return "You may not answer in this project (it needs the decide capability)."
        case .editsLoading(let loaded, let total): return "\(loaded) of \(total) edits are loaded."
        case .lastEditNotShown: return "The edits of this proposal have not been shown yet."
        }
    }

    @MainActor
    static func question(_ arguments: Arguments) async throws -> Int32 {
        let id = try arguments.positional(0, "the question's id")
        let (workspace, project) = try await workspace(arguments)
        let page = QuestionModel(workspace: workspace, project: project.key, id: id)
        await page.refresh()
        // Every edit is printed (text) or carried (--json) below: once the proposal's edits have all loaded and it
        // is answered here, that it was shown is kept for `answer` (M-QUEUE-7, M-WEB-4).
        if let question = page.state.value, let proposal = question.evidence.proposal,
            proposal.edits.count == proposal.editCount, AnswerAvailability.handoff(for: question) == nil
        {
            page.reportLastEditShown()
            try MainworthyAccountState.update(workspace.server.account) {
                $0.shownProposals[id] = EditMark.of(proposal.edits)
            }
        }
        let availability = page.availability
        let decision: Decision? = {
            if case .standing(let decision) = page.decisionStatus { return decision }
            return nil
        }()
        let state = page.state.map { question in
            Merged(
                base: question,
                extra: QuestionExtras(
                    answersEnabled: availability.isEnabled, greyedBecause: availability.blocker.map(sentence),
                    webLink: availability.webLink.map {
                        QuestionExtras.Link(url: $0.url, sentence: $0.reason.sentence)
                    },
                    evidenceText: Dictionary(
                        question.evidence.parts.map { ($0.kind, $0.text) }, uniquingKeysWith: { first, _ in first }),
                    decisionSummary: decision?.summary))
        }
        return try show("question", state, workspace, arguments) { merged in
            questionLines(merged.base, availability: availability, decision: decision)
        }
    }

    /// A proposal's edits as the text shows them: every edit the app shows, step by step (M-QUEUE-7, M-WEB-4).
    static func editLines(_ proposal: ProposalEvidence) -> [String] {
        var lines = ["  proposal of \(proposal.editCount) edits: \(proposal.edits.map(\.op).joined(separator: ", "))"]
        for (index, edit) in proposal.edits.enumerated() {
            lines.append("  edit \(index + 1) of \(proposal.editCount): \(edit.op)")
            lines += (edit.shown?.lines ?? []).map { "    \($0)" }
        }
        return lines
    }

    /// The question's text: its evidence, every edit of a proposal step by step, the answers, and the decision.
    static func questionLines(
        _ question: Question, availability: AnswerAvailability, decision: Decision?
    ) -> [String] {
        var lines = ["\(question.id)  \(question.kind.rawValue)  \(question.state)  \(question.title)"]
        if let failure = question.evidence.failure {
            lines.append("  failed: \(failure.test): \(failure.message ?? "")")
            lines.append("  job \(failure.job ?? "?"), commit \(failure.commit ?? "?"), at \(failure.location ?? "?")")
        }
        if let proposal = question.evidence.proposal { lines += editLines(proposal) }
        lines += question.evidence.parts.map { "  \($0.kind): \($0.text)" }
        for answer in question.answers {
            let extra = [
                answer.reasonRequired ? "needs a reason" : nil, answer.asksTracker ? "asks for a tracker" : nil,
            ]
            .compactMap { $0 }.joined(separator: ", ")
            lines.append(
                "  [\(availability.isEnabled ? answer.key : "greyed: " + answer.key)] \(answer.label): \(answer.sentence)\(extra.isEmpty ? "" : " (\(extra))")"
            )
        }
        if let blocker = availability.blocker, availability.webLink == nil { lines.append("  \(sentence(blocker))") }
        if let link = availability.webLink { lines.append("  \(link.reason.sentence) \(link.url.absoluteString)") }
        if let decision { lines.append("  decided: \(decision.summary) (\(decision.id))") }
        return lines
    }

    struct AnswerOutput: Encodable {
        var recorded: String
        var decision: Decision
    }

    @MainActor
    static func answer(_ arguments: Arguments) async throws -> Int32 {
        if let code = try await MainworthyRetryCommands.retryIfAsked("answer", arguments) { return code }
        let id = try arguments.positional(0, "the question's id")
        let key = try arguments.positional(1, "the answer")
        try await MainworthyRetryCommands.refuseIfPending("answer", arguments)
        let (workspace, project) = try await workspace(arguments)
        let page = QuestionModel(workspace: workspace, project: project.key, id: id)
        await page.refresh()
        guard let question = page.state.value else {
            throw CommandFailure(page.state.problem ?? "The question could not be read.")
        }
        guard question.answers.contains(where: { $0.key == key }) else {
            throw UsageError(
                "\(key) is not an answer of \(id); its answers: \(question.answers.map(\.key).joined(separator: ", "))")
        }
        // A proposal is answered only once every edit was shown: by an earlier `question` of the same proposal,
        // remembered in the account's state with a mark of its edits (M-QUEUE-7, M-WEB-4).
        if let proposal = question.evidence.proposal,
            try MainworthyAccountState.load(workspace.server.account).shownProposals[id]
                == EditMark.of(proposal.edits)
        {
            page.reportLastEditShown()
        }
        // Or shown in this command, with --show-edits: every edit, then the person confirms.
        if let proposal = question.evidence.proposal, page.availability.blocker == .lastEditNotShown,
            arguments.flag("show-edits")
        {
            for line in editLines(proposal) {
                if arguments.flag("json") { Terminal.err(line) } else { Terminal.out(line) }
            }
            let confirmed = try AuthCommands.prompt("Answer \(key) now that every edit was shown? [y/N] ")
            guard ["y", "yes"].contains(confirmed.lowercased()) else {
                throw CommandFailure("Not answered; nothing was sent.")
            }
            page.reportLastEditShown()
            try MainworthyAccountState.update(workspace.server.account) {
                $0.shownProposals[id] = EditMark.of(proposal.edits)
            }
        }
        if let blocker = page.availability.blocker {
            let next =
                blocker == .lastEditNotShown
                ? " Read its edits with `companion mainworthy question \(id)`, then answer (or answer with --show-edits)."
                : ""
            throw CommandFailure(sentence(blocker) + next + " Nothing was sent.")
        }
        await page.answer(key, reason: arguments.option("reason") ?? "", tracker: arguments.option("tracker") ?? "")
        if let pending = page.pendingAnswer {
            throw CommandFailure(
                try MainworthyRetryCommands.keep(pending, as: "answer", arguments, server: workspace.server))
        }
        guard let recorded = page.recorded else {
            throw CommandFailure(page.problem ?? "The answer was not recorded.")
        }
        if arguments.flag("json") {
            try emit(AnswerOutput(recorded: recorded.recorded, decision: recorded.decision))
        } else {
            Terminal.out(
                "\(recorded.recorded) Decision \(recorded.decision.id); undo with `companion mainworthy undo \(recorded.decision.id)`."
            )
        }
        return 0
    }

    @MainActor
    static func undo(_ arguments: Arguments) async throws -> Int32 {
        if let code = try await MainworthyRetryCommands.retryIfAsked("undo", arguments) { return code }
        let decision = try arguments.positional(0, "the decision's id")
        try await MainworthyRetryCommands.refuseIfPending("undo", arguments)
        let (workspace, project) = try await workspace(arguments)
        guard workspace.capabilities.contains(.decide) else {
            throw CommandFailure("You may not withdraw decisions in this project (it needs the decide capability).")
        }
        let body = WithdrawalBody(reason: arguments.option("reason").flatMap { $0.isEmpty ? nil : $0 })
        let command = workspace.server.command(
            MainworthyAPI.withdraw(project.key, decision: decision, body), resendsLostReply: true)
        let reply: WithdrawalReply
        do {
            reply = try await workspace.server.perform(command)
        } catch {
            if case .refused(let refusal) = error, let current = refusal.current {
                let labelled = await labelled(
                    current, withdrawing: decision, workspace: workspace, project: project.key)
                throw CommandFailure("\(refusal.message) Now: \(labelled.summary) (\(labelled.id)).")
            }
            if error.isUnconfirmed {
                throw CommandFailure(
                    try MainworthyRetryCommands.keep(command, as: "undo", arguments, server: workspace.server))
            }
            throw fail(error)
        }
        if arguments.flag("json") {
            try emit(reply)
        } else {
            Terminal.out(
                "Withdrew \(reply.withdrawal.withdraws); question \(reply.question.id) is \(reply.question.state) again."
            )
        }
        return 0
    }

    /// `current` with its answer's label, as the app shows it (a 409 names only the key): the labels are the
    /// question's, found by the decision's `question_id`, else by the withdrawn decision in Decided.
    @MainActor
    static func labelled(
        _ current: Decision, withdrawing decision: String, workspace: MainworthyWorkspace, project: String
    ) async -> Decision {
        var questionID = current.questionID
        if questionID == nil, let decided = workspace.decided {
            await decided.refresh()
            await decided.list.loadAll()
            questionID = decided.state.value?.first { $0.id == decision || $0.id == current.id }?.question.id
        }
        guard let questionID,
            let question = try? await workspace.server.latest(MainworthyAPI.question(project, questionID))
        else { return current }
        return current.labelled(from: question.answers)
    }

    struct AboutOutput: Encodable {
        var appVersion: String
        var serverVersion: String?
        var licence: String
        var licencesURL: URL
        var copyright: String
        var worksUntil: String?

        enum CodingKeys: String, CodingKey {
            case licence, copyright
            case appVersion = "app_version"
            case serverVersion = "server_version"
            case licencesURL = "licences_url"
            case worksUntil = "works_until"
        }
    }

    @MainActor
    static func about(_ arguments: Arguments) async throws -> Int32 {
        let screen = AboutModel(workspace: MainworthyWorkspace(server: try await signedIn(arguments)))
        await screen.refresh()
        let about = screen.about
        if arguments.flag("json") {
            try emit(
                AboutOutput(
                    appVersion: about.appVersion, serverVersion: about.serverVersion, licence: About.licence,
                    licencesURL: about.licencesURL, copyright: About.copyright, worksUntil: screen.worksUntil))
            return 0
        }
        Terminal.out("Mainworthy \(about.appVersion)")
        Terminal.out(
            "Server \(about.serverVersion ?? "version not known (\(screen.version.state.problem ?? "not read"))")")
        Terminal.out("\(About.licence); Licences: \(about.licencesURL.absoluteString)")
        Terminal.out(About.copyright)
        if let worksUntil = screen.worksUntil { Terminal.out(worksUntil) }
        return 0
    }

    @MainActor
    static func decided(_ arguments: Arguments) async throws -> Int32 {
        let (workspace, _) = try await workspace(arguments)
        guard let screen = workspace.decided else { throw CommandFailure("No project is open.") }
        await screen.refresh()
        await screen.list.loadAll()  // every page, to the end
        return try show("decided", screen.state, workspace, arguments) { items in
            items.map { "\($0.id)  \($0.answer.label) by \($0.by.name)  on \($0.question.id) \($0.question.title)" }
        }
    }

    // MARK: - runs

    @MainActor
    static func runs(_ arguments: Arguments) async throws -> Int32 {
        let (workspace, _) = try await workspace(arguments)
        guard let screen = workspace.runs else { throw CommandFailure("No project is open.") }
        await screen.refresh()
        await screen.list.loadAll()  // every page, to the end
        return try show("runs", screen.state, workspace, arguments) { runs in
            runs.map { run in
                let slots = run.slotCount.map { "  \($0) slots" } ?? ""
                let verdict = run.verdict.map { "  \($0.sentence)" } ?? ""
                return "\(run.id)  \(run.state ?? "?")  \(run.name ?? run.id)\(slots)\(verdict)"
            }
        }
    }

    /// What `run --json` adds to the run as the server sent it: the accepted results as a sentence and the slot
    /// Start opens (absent when every slot has a result).
    struct RunExtras: Encodable, Equatable {
        var acceptsSentence: String
        var start: Slot?

        enum CodingKeys: String, CodingKey {
            case start
            case acceptsSentence = "accepts_sentence"
        }
    }

    @MainActor
    static func run(_ arguments: Arguments) async throws -> Int32 {
        let id = try arguments.positional(0, "the run's id")
        let (workspace, _) = try await workspace(arguments)
        guard let runs = workspace.runs else { throw CommandFailure("No project is open.") }
        let screen = runs.run(id)
        await screen.refresh()
        let state = screen.state.map { run in
            Merged(
                base: run,
                extra: RunExtras(acceptsSentence: run.accepts.sentence, start: RunNavigation.start(run.slots)))
        }
        return try show("run", state, workspace, arguments) { merged in
            let run = merged.base
            var lines = [
                "\(run.id)  \(run.name)  \(run.state)  \(run.verdict.value): \(run.verdict.sentence)",
                "  accepts: \(run.accepts.sentence)",
            ]
            for slot in run.slots {
                let result =
                    slot.result.map { "\($0.outcome.rawValue)\($0.by.map { " by \($0.name)" } ?? "")" } ?? "-"
                lines.append(
                    "  \(slot.position). \(slot.id)  \(slot.case.number) v\(slot.case.version)  \(slot.case.title)  \(result)"
                )
            }
            if let start = merged.extra.start { lines.append("  Start opens \(start.id) (\(start.case.number)).") }
            return lines
        }
    }

    struct ResultOutput: Encodable {
        var result: SlotResult
        var nextSlot: Slot?
        var undone: Bool

        enum CodingKeys: String, CodingKey {
            case result, undone
            case nextSlot = "next_slot"
        }
    }

    @MainActor
    static func result(_ arguments: Arguments) async throws -> Int32 {
        if let code = try await MainworthyRetryCommands.retryIfAsked("result", arguments) { return code }
        let runID = try arguments.positional(0, "the run's id")
        let slotID = try arguments.positional(1, "the slot's id")
        let word = try arguments.positional(2, "the outcome (pass, fail, blocked, skip or undo)")
        let outcome = Outcome(rawValue: word)
        guard word == "undo" || outcome.map(Outcome.manual.contains) == true else {
            throw UsageError("the outcome is pass, fail, blocked or skip, or undo")
        }
        var step: Int?
        if let text = arguments.option("step") {
            guard let number = Int(text), number >= 1 else { throw UsageError("--step is a step number from 1") }
            guard outcome == .fail else { throw UsageError("--step goes only with fail") }
            step = number
        }
        if word == "undo", arguments.option("note") != nil { throw UsageError("--note does not go with undo") }
        try await MainworthyRetryCommands.refuseIfPending("result", arguments)
        let (workspace, project) = try await workspace(arguments)
        guard let runs = workspace.runs else { throw CommandFailure("No project is open.") }
        let screen = runs.run(runID)
        await screen.refresh()
        guard screen.state.value != nil else { throw CommandFailure(screen.state.problem ?? "No run.") }
        await screen.open(slotID)
        guard screen.openSlot != nil else { throw CommandFailure(screen.problem ?? "No slot \(slotID).") }
        guard screen.canRecord else {
            throw CommandFailure(
                screen.state.value?.isOpen == false
                    ? "This run is closed and accepts no results." : "You may not record results in this project.")
        }
        if let outcome {
            if let step { screen.pressStep(step) }
            screen.setNote(arguments.option("note") ?? "")
            await screen.record(outcome)
        } else {
            let me: Me
            do {
                me = try await workspace.server.latest(MainworthyAPI.me())
            } catch {
                throw fail(error)
            }
            guard await screen.undoLatest(slotID, by: me.user) else {
                throw CommandFailure("You have no result in \(slotID) to undo.")
            }
        }
        if let pending = screen.pendingResult {
            throw CommandFailure(
                try MainworthyRetryCommands.keep(pending.command, as: "result", arguments, server: workspace.server))
        }
        if let problem = screen.problem { throw CommandFailure(problem) }
        let recorded = screen.state.value?.slots.first { $0.id == slotID }
        guard let result = recorded?.result else { throw CommandFailure("The result was not confirmed.") }
        let next = outcome == nil ? nil : screen.openSlot?.slot
        if arguments.flag("json") {
            try emit(ResultOutput(result: result, nextSlot: next, undone: outcome == nil))
            return 0
        }
        let number = recorded?.case.number ?? ""
        if outcome == nil {
            Terminal.out(
                "Undone on \(slotID) (\(number)) in \(project.name): recorded \(result.outcome.rawValue) again.")
            return 0
        }
        Terminal.out("Recorded \(result.outcome.rawValue) on \(slotID) (\(number)).")
        if let next {
            Terminal.out("Next: \(next.id) (\(next.case.number) \(next.case.title)).")
        } else {
            Terminal.out("Every slot has a result.")
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
    static func plan(_ arguments: Arguments) async throws -> Int32 {
        if let code = try await MainworthyRetryCommands.retryIfAsked("plan", arguments) { return code }
        let name = try arguments.positional(0, "the run's name")
        var selections: [PlanSelection] = []
        if arguments.flag("all") { selections.append(.all) }
        if let folder = arguments.option("folder") { selections.append(.folder(id: folder)) }
        if let tag = arguments.option("tag") { selections.append(.tag(tag)) }
        if let text = arguments.option("search") { selections.append(.search(text)) }
        guard selections.count == 1, let selection = selections.first else {
            throw UsageError("give exactly one of --all, --folder, --tag or --search")
        }
        try await MainworthyRetryCommands.refuseIfPending("plan", arguments)
        let (workspace, _) = try await workspace(arguments)
        guard let runs = workspace.runs else { throw CommandFailure("No project is open.") }
        guard runs.canPlan else { throw CommandFailure("You may not plan runs in this project.") }
        await runs.plan(name: name, selection: selection, commit: arguments.option("commit") ?? "")
        if let pending = runs.pendingPlan {
            throw CommandFailure(
                try MainworthyRetryCommands.keep(pending, as: "plan", arguments, server: workspace.server))
        }
        switch runs.planOutcome {
        case .planned(let runID, let count):
            let sentence = runs.planOutcome?.sentence ?? ""
            if arguments.flag("json") {
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

/// One JSON object of `base`'s members and `extra`'s beside them: a value as the server sent it, with what the
/// terminal's text shows about it.
struct Merged<Base: Encodable & Sendable & Equatable, Extra: Encodable & Sendable & Equatable>: Encodable, Sendable,
    Equatable
{
    /// The value as it came.
    var base: Base
    /// The members added.
    var extra: Extra

    func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
        try extra.encode(to: encoder)
    }
}
