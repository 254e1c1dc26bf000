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
                ],
                details: """
                    Prints the events of the previous companion run, oldest first: requests, responses,
                    errors, retries, vault and key events. Secrets were masked before they were recorded.
                    """,
                exitCodes: "Exit codes: 0 printed, 1 no journal yet, 2 usage error.",
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
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            for event in events {
                if let line = try? encoder.encode(event) { Terminal.out(String(decoding: line, as: UTF8.self)) }
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
}
