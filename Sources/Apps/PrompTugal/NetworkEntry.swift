import CompanionCore
import Foundation

/// One line of the Network panel: one request the app made.
public struct NetworkEntry: Sendable, Hashable {
    /// `GET`, `POST`…
    public let method: String
    /// The URL, credentials in the query masked.
    public let url: String
    /// The status, `nil` when the request failed before a response.
    public let status: Int?
    /// Bytes received.
    public let bytes: Int
    /// Milliseconds from sending to the end of the body.
    public let durationMs: Int?
    /// The failure, when it failed.
    public let failure: String?
    /// When it was sent.
    public let date: Date

    /// One line: `GET http://… 200 9934 B 12 ms`.
    public var line: String {
        let outcome = status.map(String.init) ?? "failed"
        return "\(method) \(url) \(outcome) \(bytes) B \(durationMs.map { "\($0) ms" } ?? "")"
            .trimmingCharacters(in: .whitespaces)
    }

    /// The entries of `journal`, oldest first: one per request event, joined with the response or error event
    /// of the same exchange (P-DEBUG-4, P-NET-1).
    public static func entries(in journal: Journal) -> [NetworkEntry] { entries(in: journal.events) }

    /// The entries of journal events (oldest first), as `entries(in:)` joins them.
    public static func entries(in events: [JournalEvent]) -> [NetworkEntry] {
        var open: [String: [Int]] = [:]
        var rows: [(event: JournalEvent, outcome: JournalEvent?)] = []
        for event in events {
            switch event.kind {
            case .request:
                open[event.message, default: []].append(rows.count)
                rows.append((event, nil))
            case .response, .error:
                guard var waiting = open[event.message], !waiting.isEmpty else { continue }
                let index = waiting.removeFirst()
                open[event.message] = waiting
                rows[index].outcome = event
            default:
                continue
            }
        }
        return rows.map { row in
            let parts = row.event.message.split(separator: " ", maxSplits: 1)
            let fields = row.outcome?.fields ?? [:]
            return NetworkEntry(
                method: parts.first.map(String.init) ?? "",
                url: parts.count > 1 ? String(parts[1]) : "",
                status: fields["status"].flatMap { Int($0) },
                bytes: fields["bytesIn"].flatMap { Int($0) } ?? 0,
                durationMs: fields["totalMs"].flatMap { Int($0) },
                failure: row.outcome?.kind == .error ? (fields["error"] ?? "failed") : nil,
                date: row.event.date)
        }
    }
}
