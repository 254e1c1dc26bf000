import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import MainworthyCore

/// `companion mainworthy browse|cases|case|history|edit|new`: the case library and the editor, headless.
///
/// The same sign-in as every `mainworthy` command. Saves go through the app core's editor, so the
/// limits, whitespace warnings and save outcomes are the app's: a warning refuses to send (exit 1), an
/// adopted or waiting proposal exits 0, any other outcome exits 1 with the sentence the app shows.
enum MainworthyCasesCommands {
    /// The commands, added to the `mainworthy` group.
    static let commands: [Command] = [
        MainworthyCommands.command(
            "browse", "the Cases tab's root: folders, the six most used tags, all tags", run: browse),
        MainworthyCommands.command(
            "cases", "a list of cases: All cases, a folder (subfolders first), a tag, or a search",
            options: [
                .option("folder", "ID", "a folder's own cases (with --search: search it and its subfolders)"),
                .option("tag", "TAG", "the cases with a tag (with --search: search them)"),
                .option("search", "TEXT", "words of a case, or its number such as C-12"),
                .option(
                    "scope", "SCOPE", "folder, tag or everywhere (default: the folder or tag given, else everywhere)"),
            ], run: cases),
        MainworthyCommands.command(
            "case", "a case's page: version, preconditions, steps, who may run it, web address", [caseParameter],
            options: [.option("version", "N", "an older version (read-only)")], positionals: 1...1, run: casePage),
        MainworthyCommands.command(
            "history", "every version of a case, with author, time and reason", [caseParameter], positionals: 1...1,
            run: history),
        MainworthyCommands.command(
            "edit", "edit a case from its current version and save it", [caseParameter],
            options: editOptions + [MainworthyRetryCommands.retryOption], positionals: 1...1, run: edit),
        MainworthyCommands.command(
            "new", "write a new case (in Unsorted without --folder) and save it",
            options: [.option("folder", "ID", "the folder it goes to")] + editOptions + [
                MainworthyRetryCommands.retryOption
            ], run: new),
    ]

    private static let caseParameter = Command.Parameter(
        syntax: "<case>", help: "the case: its number (C-12, found with the case search) or its id")
    private static let editOptions: [Command.Option] = [
        .option("title", "TEXT", "the title (at most 300 UTF-16 units)"),
        .option("preconditions", "TEXT", "the preconditions"),
        .option(
            "step", "ACTION=>EXPECTED", "a step, in order; replaces the steps (=>EXPECTED is optional)", repeats: true),
        .option("reason", "TEXT", "why (optional, at most 500 UTF-16 units)"),
    ]

    /// The open project's Cases tab.
    @MainActor
    static func root(_ arguments: Arguments) async throws -> CasesRootModel {
        try await opened(arguments).root
    }

    /// The signed-in workspace and its open project's Cases tab.
    @MainActor
    static func opened(_ arguments: Arguments) async throws -> (workspace: MainworthyWorkspace, root: CasesRootModel) {
        let (workspace, _) = try await MainworthyCommands.workspace(arguments)
        guard let root = workspace.cases else { throw CommandFailure("No project is open.") }
        return (workspace, root)
    }

    /// The page of the case the first argument names: a number (`C-12`) is found with the case search.
    @MainActor
    static func page(_ root: CasesRootModel, _ arguments: Arguments) async throws -> CaseModel {
        let reference = try arguments.positional(0, "the case")
        do throws(MainworthyError) {
            return root.casePage(try await root.caseID(for: reference))
        } catch {
            throw MainworthyCommands.fail(error)
        }
    }

    // MARK: - reading

    struct BrowseOutput: Encodable, Equatable {
        var revision: Int?
        var caseCount: Int?
        var folders: [FolderRef]
        var topTags: [TagUse]
        var tags: [TagUse]

        enum CodingKeys: String, CodingKey {
            case revision, folders, tags
            case caseCount = "case_count"
            case topTags = "top_tags"
        }
    }

    @MainActor
    static func browse(_ arguments: Arguments) async throws -> Int32 {
        let (workspace, root) = try await opened(arguments)
        await root.refresh()
        await root.readAllTags()
        let topTags = root.topTags
        let state = root.state.map { value in
            BrowseOutput(
                revision: value.revision, caseCount: value.caseCount, folders: value.folders, topTags: topTags,
                tags: root.allTags.value ?? value.tags)
        }
        return try MainworthyCommands.show("browse", state, workspace, arguments) { value in
            [value.caseCount.map { "All cases (\($0))" } ?? "All cases"]
                + value.folders.map { "\($0.id)  \($0.name)/" } + value.topTags.map { "#\($0.name) (\($0.count))" }
                + ["All tags: " + value.tags.map { "\($0.name) (\($0.count))" }.joined(separator: ", ")]
        }
    }

    struct ListOutput: Encodable, Equatable {
        var folder: FolderPage?
        var subfolders: [FolderRef]
        var items: [Merged<CaseRow, [String: String]>]
        var revision: Int

        enum CodingKeys: String, CodingKey { case folder, subfolders, items, revision }
    }

    static func mark(_ mark: CaseMark) -> String {
        switch mark {
        case .cross: return "✗"
        case .triangle: return "△"
        case .tick: return "✓"
        case .none: return " "
        }
    }

    @MainActor
    static func cases(_ arguments: Arguments) async throws -> Int32 {
        let folder = arguments.option("folder")
        let tag = arguments.option("tag")
        if folder != nil, tag != nil { throw UsageError("give --folder or --tag, not both") }
        let base: CaseListing = folder.map { .folder(id: $0) } ?? tag.map { .tag($0) } ?? .all
        let (workspace, root) = try await opened(arguments)
        let list = await root.list(base)
        let content: ScreenState<CaseListContent>
        if let text = arguments.option("search") {
            if folder == nil, tag == nil, let scope = arguments.option("scope"), scope != "everywhere" {
                throw UsageError("--scope \(scope) needs --\(scope)")
            }
            let search = list.openSearch()
            switch arguments.option("scope") {
            case nil, "folder", "tag": break
            case "everywhere": search.everywhere()
            case let other?: throw UsageError("--scope is folder, tag or everywhere, not \(other)")
            }
            search.text = text
            await search.submit()
            await search.results?.loadAll()
            guard let hits = search.hits else { throw CommandFailure("The search was not sent.") }
            content = hits
        } else {
            if arguments.option("scope") != nil { throw UsageError("--scope goes with --search") }
            list.appear()
            await list.reading?.value
            await list.list.loadAll()
            content = list.state
        }
        let rows = content.value?.rows ?? []
        let state = content.map { content in
            ListOutput(
                folder: content.folder, subfolders: content.folder?.subfolders ?? [],
                items: content.cases.map { Merged(base: $0, extra: ["mark": $0.mark.rawValue]) },
                revision: content.revision)
        }
        return try MainworthyCommands.show("cases", state, workspace, arguments) { value in
            var lines: [String] = []
            if let path = value.folder?.path { lines.append(path.map(\.name).joined(separator: " › ")) }
            for row in rows {
                switch row {
                case .folder(let sub): lines.append("\(sub.id)  \(sub.name)/")
                case .caseRow(let item):
                    lines.append("\(mark(item.mark)) \(item.number)  \(item.title)  (v\(item.version))")
                }
            }
            if value.items.isEmpty { lines.append("No cases.") }
            return lines
        }
    }

    /// What `case --json` adds to the page as the server sent it: the version shown, the current version, and
    /// whether the page is read-only.
    struct PageExtras: Encodable, Equatable {
        var version: Int?
        var currentVersion: Int?
        var readOnly: Bool

        enum CodingKeys: String, CodingKey {
            case version
            case currentVersion = "current_version"
            case readOnly = "read_only"
        }
    }

    @MainActor
    static func casePage(_ arguments: Arguments) async throws -> Int32 {
        let (workspace, root) = try await opened(arguments)
        var screen = try await page(root, arguments)
        if let raw = arguments.option("version") {
            guard let version = Int(raw), version > 0 else { throw UsageError("--version is a number from 1") }
            screen = screen.version(version)
        }
        await screen.refresh()
        let extras = PageExtras(
            version: screen.shownVersion, currentVersion: screen.currentVersion, readOnly: screen.isReadOnly)
        let caseID = screen.caseID
        let state = screen.state.map { Merged(base: $0, extra: extras) }
        return try MainworthyCommands.show("case", state, workspace, arguments) { merged in
            let page = merged.base
            let current = extras.currentVersion.map { "; current is \($0)" } ?? ""
            let note = extras.readOnly ? "  (older version, read-only\(current))" : ""
            var lines = [
                "\(page.number ?? caseID)  \(page.title)",
                "Version \(extras.version.map(String.init) ?? "?")\(note)",
                "Folder: \(page.folder.name)   Tags: \(page.tags.joined(separator: ", "))",
            ]
            if let runnable = page.runnableBy { lines.append("Who may run it: \(runnable)") }
            if !page.preconditions.isEmpty { lines.append("Preconditions: \(page.preconditions)") }
            for (index, step) in page.steps.enumerated() {
                lines.append("\(index + 1). \(step.action)" + (step.expected.map { " → \($0)" } ?? ""))
            }
            if let url = page.webURL { lines.append("In the web app: \(url.absoluteString)") }
            return lines
        }
    }

    /// What `history --json` shows: every version, newest first.
    struct HistoryOutput: Encodable, Equatable {
        var items: [CaseVersionEntry]
    }

    @MainActor
    static func history(_ arguments: Arguments) async throws -> Int32 {
        let (workspace, root) = try await opened(arguments)
        let screen = try await page(root, arguments)
        await screen.readHistory()
        await screen.historyList.loadAll()
        guard let history = screen.history else { throw CommandFailure("The history was not read.") }
        return try MainworthyCommands.show("history", history.map(HistoryOutput.init), workspace, arguments) {
            $0.items.map { entry in
                "v\(entry.version)  \(entry.author.name)  \((try? Timestamp.format(entry.at)) ?? "?")  \(entry.reason ?? "")"
            }
        }
    }

    // MARK: - writing

    struct SaveOutput: Encodable {
        var state: String
        var sentence: String
        var caseID: String?
        var version: Int?
        var questionID: String?
        var fields: [String: String]?
        var overlapWith: String?
        var warnings: [Warning]?

        struct Warning: Encodable {
            var field: String
            var sentence: String
        }

        enum CodingKeys: String, CodingKey {
            case state, sentence, version, fields, warnings
            case caseID = "case_id"
            case questionID = "question_id"
            case overlapWith = "overlap_with"
        }
    }

    static func output(_ outcome: SaveOutcome) -> SaveOutput {
        var out = SaveOutput(state: "", sentence: outcome.sentence)
        switch outcome {
        case .adopted(let caseID, let version):
            (out.state, out.caseID, out.version) = ("adopted", caseID, version)
        case .adoptedButDifferent(let caseID, let version, let fields):
            (out.state, out.caseID, out.version) = ("adopted_but_different", caseID, version)
            out.fields = Dictionary(uniqueKeysWithValues: fields.map { ($0, "differs") })
        case .adoptedButUnread(let caseID, let version, _):
            (out.state, out.caseID, out.version) = ("adopted_but_unread", caseID, version)
        case .waiting(let questionID):
            (out.state, out.questionID) = ("waiting", questionID)
        case .overlap(let fields, let other, let questionID):
            (out.state, out.questionID, out.overlapWith) = ("overlap", questionID, other)
            out.fields = Dictionary(uniqueKeysWithValues: fields.map { ($0, "overlaps") })
        case .refused(_, let fields):
            (out.state, out.fields) = ("refused", fields)
        case .unconfirmed:
            out.state = "unconfirmed"
        case .failed:
            out.state = "failed"
        }
        return out
    }

    static func steps(_ values: [String]) -> [CaseStep] {
        values.map { value in
            guard let arrow = value.range(of: "=>") else { return CaseStep(action: value) }
            let expected = String(value[arrow.upperBound...])
            return CaseStep(action: String(value[..<arrow.lowerBound]), expected: expected.isEmpty ? nil : expected)
        }
    }

    @MainActor
    static func edit(_ arguments: Arguments) async throws -> Int32 {
        if let code = try await MainworthyRetryCommands.retryIfAsked("edit", arguments) { return code }
        try await MainworthyRetryCommands.refuseIfPending("edit", arguments)
        let page = try await page(try await root(arguments), arguments)
        await page.refresh(policy: .fresh)
        if page.state.value == nil {
            throw CommandFailure(page.state.problem ?? "The case was not read.")
        }
        guard let editor = await page.edit() else {
            throw CommandFailure("You may not edit cases in this project: it needs the produce capability.")
        }
        return try await save(editor, "edit", arguments)
    }

    @MainActor
    static func new(_ arguments: Arguments) async throws -> Int32 {
        if let code = try await MainworthyRetryCommands.retryIfAsked("new", arguments) { return code }
        if arguments.option("title") == nil { throw UsageError("new needs --title") }
        try await MainworthyRetryCommands.refuseIfPending("new", arguments)
        let root = try await root(arguments)
        let list = await root.list(arguments.option("folder").map { .folder(id: $0) } ?? .all)
        guard let editor = await list.newCase() else {
            throw CommandFailure("You may not write cases in this project: it needs the produce capability.")
        }
        return try await save(editor, "new", arguments)
    }

    /// Types what the options give into `editor`, then saves (as the command `name`): a warning sends nothing; a
    /// lost reply is kept for `retry`.
    @MainActor
    static func save(_ editor: CaseEditorModel, _ name: String, _ arguments: Arguments) async throws -> Int32 {
        let json = arguments.flag("json")
        if let title = arguments.option("title") { editor.setTitle(title) }
        if let preconditions = arguments.option("preconditions") { editor.setPreconditions(preconditions) }
        if let given = arguments.options["step"], !given.isEmpty {
            while !editor.document.steps.isEmpty { editor.removeStep(at: 0) }
            for step in steps(given) { editor.addStep(action: step.action, expected: step.expected) }
        }
        if let reason = arguments.option("reason") { editor.setReason(reason) }
        let warnings = editor.warnings
        if !warnings.isEmpty {
            if json {
                var out = SaveOutput(state: "not_sent", sentence: "Save is disabled until the warnings are resolved.")
                out.warnings = warnings.map { SaveOutput.Warning(field: $0.field, sentence: $0.description) }
                try MainworthyCommands.emit(out)
                return 1
            }
            throw CommandFailure(
                "Save is disabled until these are resolved: " + warnings.map(\.description).joined(separator: " "))
        }
        await editor.save()
        guard let outcome = editor.outcome else { throw CommandFailure("Nothing was sent.") }
        var out = output(outcome)
        if let pending = editor.pendingSave {
            out.sentence = try MainworthyRetryCommands.keep(
                pending, as: name, arguments, server: try await MainworthyCommands.signedIn(arguments))
        }
        if json {
            try MainworthyCommands.emit(out)
        } else {
            Terminal.out(out.sentence)
        }
        switch outcome {
        case .adopted, .waiting: return 0
        default: return 1
        }
    }
}
