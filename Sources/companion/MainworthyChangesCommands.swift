import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import MainworthyCore

/// `companion mainworthy changes|change|watch|report`: changes and their gate, the live stream, and a
/// pipeline report (for demos and tests).
enum MainworthyChangesCommands {
    /// The commands, added to the `mainworthy` family.
    static let commands: [Command] = [
        MainworthyCommands.command(
            "changes", "the newest 500 changes, newest report first, with their gate", run: changes),
        MainworthyCommands.command(
            "change", "a change's head, base, gate, failing tests with their cases, and touched cases",
            [.init(syntax: "<change>", help: "the change's id")], positionals: 1...1, run: change),
        MainworthyCommands.command(
            "watch", "the project's live stream, one line per event",
            options: [
                .option("count", "N", "stop after N events"),
                .option("until", "KIND", "stop after the first event of KIND (change, question, decision, run, case)"),
                .option("after", "REVISION", "start after this revision (default: the changes list's)"),
                .option("timeout", "SECONDS", "give up (exit 1) after SECONDS without reaching --count/--until"),
            ], run: watch),
        MainworthyCommands.command(
            "report", "post a pipeline report with the pipeline token (read from standard input)",
            options: [
                .option("commit", "SHA", "the commit tested (required)"),
                .option("base", "SHA", "the base commit"),
                .option("branch", "NAME", "the branch"),
                .option("pr", "N", "the pull request's number"),
                .option("job", "NAME", "the job (default e2e)"),
                .option("state", "STATE", "open, merged or closed"),
                .option("pass", "TEST", "a passing test", repeats: true),
                .option("fail", "TEST=MESSAGE", "a failing test and its message", repeats: true),
                .option("case", "C-N", "a case linked to every result", repeats: true),
                .option("touch", "C-N", "a case the change touches", repeats: true),
            ], run: report),
    ]

    // MARK: - changes and a change

    struct ListOutput: Encodable, Equatable {
        var project: String
        var revision: Int?
        var items: [ChangeSummary]
    }

    static func line(_ change: ChangeSummary) -> String {
        let ended = change.isEnded ? " (ended: \(change.state))" : ""
        return
            "\(change.id)  \(change.label)  \(change.title ?? "")  head \(change.head)  gate \(change.gate?.verdict.rawValue ?? "?")\(ended)"
    }

    @MainActor
    static func changes(_ arguments: Arguments) async throws -> Int32 {
        let (workspace, project) = try await MainworthyCommands.workspace(arguments)
        let screen = ChangesModel(workspace: workspace, project: project.key)
        await screen.refresh()
        let revision = screen.revision
        let state = screen.state.map { ListOutput(project: project.key, revision: revision, items: $0) }
        return try MainworthyCommands.show("changes", state, workspace, arguments) { list in
            list.items.isEmpty ? ["No changes."] : list.items.map(line)
        }
    }

    struct PageOutput: Encodable, Equatable {
        var change: ChangeSummary
        var gate: Gate
        var failingTests: [FailingTest]
        var cases: [CaseLink]
        var ended: Bool
        var attempts: Int

        enum CodingKeys: String, CodingKey {
            case change, gate, cases, ended, attempts
            case failingTests = "failing_tests"
        }
    }

    @MainActor
    static func change(_ arguments: Arguments) async throws -> Int32 {
        let id = try arguments.positional(0, "the change's id")
        let (workspace, project) = try await MainworthyCommands.workspace(arguments)
        let screen = ChangeModel(workspace: workspace, project: project.key, id: id)
        await screen.refresh()
        let attempts = screen.lastReadAttempts
        let state = screen.state.map { page in
            PageOutput(
                change: page.change, gate: page.gate, failingTests: page.failingTests, cases: page.cases,
                ended: page.change.isEnded, attempts: attempts)
        }
        let openQuestions = screen.state.value?.openQuestions ?? []
        return try MainworthyCommands.show("change", state, workspace, arguments) { page in
            let change = page.change
            var lines = [
                "\(change.id)  \(change.label)  \(change.title ?? "")\(change.isEnded ? "  (ended: \(change.state))" : "")",
                "  head \(change.head)  base \(change.base ?? "?")",
                "  gate: \(page.gate.verdict.rawValue): \(page.gate.reason)",
            ]
            for test in page.failingTests {
                let cases = test.cases.map(\.number).joined(separator: ", ")
                let question = test.question.map { "  question \($0.id) (\($0.answer ?? $0.state ?? "open"))" } ?? ""
                lines.append(
                    "  failing: \(test.test): \(test.message ?? "")  cases: \(cases.isEmpty ? "none" : cases)\(question)"
                )
            }
            if !page.cases.isEmpty {
                lines.append(
                    "  touches: \(page.cases.map { "\($0.number) \($0.title ?? "")" }.joined(separator: "; "))")
            }
            lines += openQuestions.map { "  open question: \($0.id)  \($0.title)" }
            return lines
        }
    }

    // MARK: - the live stream

    struct EventOutput: Encodable {
        var id: String?
        var event: String
        var revision: Int?
        var data: JSONValue
    }

    static func line(_ event: ProjectEvent, client: Client) -> String {
        let revision = event.revision.map { "\($0)" } ?? "-"
        if let change = event.change(decodedBy: client) { return "\(revision)  change  \(line(change))" }
        if event.isReset { return "\(revision)  reset  (read the lists again)" }
        let extra = ["state", "kind", "question_id", "number"].compactMap { key in
            event.data[key]?.stringValue.map { "\(key) \($0)" }
        }
        return ([revision, event.kind, event.subject ?? ""] + extra).joined(separator: "  ")
    }

    @MainActor
    static func watch(_ arguments: Arguments) async throws -> Int32 {
        let json = arguments.flag("json")
        let count = try arguments.option("count").map { text throws(UsageError) -> Int in
            guard let value = Int(text), value > 0 else { throw UsageError("--count is a whole number above 0") }
            return value
        }
        let after = try arguments.option("after").map { text throws(UsageError) -> Int in
            guard let value = Int(text), value >= 0 else { throw UsageError("--after is a revision number") }
            return value
        }
        let timeout = try arguments.option("timeout").map { text throws(UsageError) -> Double in
            guard let value = Double(text), value > 0 else { throw UsageError("--timeout is a number of seconds") }
            return value
        }
        let until = arguments.option("until")
        let (workspace, opened) = try await MainworthyCommands.workspace(arguments)
        let project = opened.key
        let events = ProjectEvents(workspace: workspace, project: project)
        final class Tally {
            var seen = 0
            var done = false
        }
        let tally = Tally()
        let (finished, signal) = AsyncStream<Void>.makeStream()
        events.subscribe(tally) { event in
            guard !tally.done else { return }
            tally.seen += 1
            if json {
                let output = EventOutput(id: event.id, event: event.kind, revision: event.revision, data: event.data)
                Terminal.out((try? JSONOutput.line(output)) ?? "{}")
            } else {
                Terminal.out(line(event, client: workspace.server.bundle.client))
            }
            if tally.seen == count || (until != nil && event.kind == until) {
                tally.done = true
                signal.finish()
            }
        }
        if let after {
            events.start(after: after)
        } else {
            let list = ChangesModel(workspace: workspace, project: project)
            await list.refresh()
            guard let revision = list.revision else {
                throw CommandFailure(list.state.problem ?? "The changes could not be read.")
            }
            events.start(after: revision)
        }
        let watchdog = Task { @MainActor in
            while !tally.done {
                if case .failed = events.status { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
            signal.finish()
        }
        let deadline = timeout.map { seconds in
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                signal.finish()
            }
        }
        for await _ in finished {}
        watchdog.cancel()
        deadline?.cancel()
        events.stop()
        if case .failed(let reason) = events.status { throw CommandFailure(reason) }
        if !tally.done && (count != nil || until != nil) {
            throw CommandFailure(
                "The stream ended before \(count.map { "\($0) events" } ?? "an event of \(until ?? "")").")
        }
        return 0
    }

    // MARK: - a pipeline report

    @MainActor
    static func report(_ arguments: Arguments) async throws -> Int32 {
        guard let commit = arguments.option("commit"), !commit.isEmpty else {
            throw UsageError("report needs --commit SHA")
        }
        let pullRequest = try arguments.option("pr").map { text throws(UsageError) -> Int in
            guard let value = Int(text) else { throw UsageError("--pr is a number") }
            return value
        }
        guard let project = arguments.option("project") else { throw UsageError("report needs --project KEY") }
        guard let token = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !token.isEmpty
        else {
            throw UsageError("give the pipeline token on standard input")
        }
        Terminal.journal.register(secret: token)
        let cases = arguments.options["case"] ?? []
        var results = (arguments.options["pass"] ?? []).map {
            PipelineReport.Result(test: $0, outcome: "pass", cases: cases)
        }
        for failure in arguments.options["fail"] ?? [] {
            let parts = failure.split(separator: "=", maxSplits: 1).map(String.init)
            results.append(
                .init(test: parts[0], outcome: "fail", message: parts.count > 1 ? parts[1] : nil, cases: cases))
        }
        let body = PipelineReport(
            commit: commit, base: arguments.option("base"), branch: arguments.option("branch"),
            pullRequest: pullRequest, job: arguments.option("job") ?? "e2e", results: results,
            touches: arguments.options["touch"] ?? [], state: arguments.option("state"))
        // The token goes in this one request, on a client of its own (no session cookie), as one write command.
        let environment = try MainworthyCommands.environment(arguments)
        let build = try MainworthyCommands.build(arguments)
        let address: ServerAddress
        do {
            address = try MainworthyServer.address(of: build, environment: environment)
        } catch {
            throw MainworthyCommands.fail(error)
        }
        var profile = MainworthyServer.profile
        profile.retryPolicy = .never
        let client = environment.client(for: address.url, profile: profile)
        let request = WriteCommand(MainworthyAPI.report(project, token: token, body), random: environment.random)
            .request
        let reply: ReportReply
        do {
            reply = try await client.send(request)
        } catch {
            throw MainworthyCommands.fail(MainworthyError(error))
        }
        if arguments.flag("json") {
            try MainworthyCommands.emit(reply)
        } else {
            Terminal.out(
                reply.change.map { "Reported \(commit): change \($0)." }
                    ?? "Reported \(commit): no change (no branch or pull request).")
        }
        return 0
    }
}
