import CompanionCore
import Foundation

/// `companion journal`: the last run's events, already redacted when they were recorded.
enum JournalCommands {
    /// `journal`.
    static let family = CommandFamily(
        title: "Diagnostics",
        commands: [
            Command(
                name: "journal", summary: "the previous run's events, redacted",
                options: [
                    .option("limit", "N", "only the newest N events"),
                    .option("kind", "KIND", "only one kind (request, response, error, vault, keys, auth, sync, ...)"),
                    .flag("json", "the events as JSON Lines (docs/cli-json.md)"),
                    .option("html", "FILE", "write the events as one self-contained page instead of printing them"),
                ],
                details: """
                    Prints the events of the previous companion run, oldest first: requests, responses,
                    errors, retries, vault and key events. Secrets were masked before they were recorded.
                    With --html FILE it writes them as one page that needs no network: a list filterable
                    by kind, status and text, a timing bar per response, each event's redacted headers and
                    body on demand. Open it in any browser.
                    """,
                exitCodes: "Exit codes: 0 printed or written, 1 no journal yet or FILE not writable, 2 usage error.",
                run: { try run($0) })
        ])

    static func run(_ arguments: Arguments) throws -> Int32 {
        try arguments.expectAtMost(0)
        let file = try Terminal.journalFile()
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw CommandFailure(
                "No journal yet: run another companion command first (it is kept in \(file.path)).")
        }
        var (events, skipped) = Journal.importJSONLines(data)
        if let kind = arguments.option("kind") {
            guard let wanted = JournalEvent.Kind(rawValue: kind) else {
                throw UsageError(
                    "unknown kind \(kind); one of \(JournalEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            events = events.filter { $0.kind == wanted }
        }
        if let text = arguments.option("limit") {
            guard let limit = Int(text), limit >= 0 else { throw UsageError("--limit takes a whole number") }
            events = Array(events.suffix(limit))
        }
        if let path = arguments.option("html") {
            guard !arguments.flag("json") else { throw UsageError("--html and --json cannot be combined") }
            try writePage(events, to: URL(fileURLWithPath: path))
            Terminal.out("Wrote \(events.count) events to \(path).")
        } else if arguments.flag("json") {
            for event in events {
                if let line = try? JSONOutput.line(event) { Terminal.out(line) }
            }
        } else {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            for event in events {
                let fields = event.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                    separator: " ")
                Terminal.out(
                    "\(formatter.string(from: event.date)) \(event.kind.rawValue) \(event.message)"
                        + (fields.isEmpty ? "" : "  \(fields)"))
            }
        }
        if skipped > 0 { Terminal.err("companion: \(skipped) journal lines could not be read and were skipped") }
        return 0
    }

    /// Writes the page readable by its owner only (0600), like every file companion keeps.
    static func writePage(_ events: [JournalEvent], to file: URL) throws {
        let page = Data(JournalPage.html(events, title: "companion journal").utf8)
        let created = FileManager.default.createFile(
            atPath: file.path, contents: page, attributes: [.posixPermissions: 0o600])
        guard created,
            (try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)) != nil
        else {
            throw CommandFailure("Could not write \(file.path): check that its folder exists and is writable.")
        }
    }
}
