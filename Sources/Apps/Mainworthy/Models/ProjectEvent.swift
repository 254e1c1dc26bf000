import CompanionCore
import CompanionHTTP
import Foundation

/// One event of a project's live stream.
public struct ProjectEvent: Sendable, Hashable {
    /// The stream's event name: `change`, `question`, `decision`, `run`, `case`, or `reset`.
    public var kind: String
    /// The event's id (the project's revision after it), as `Last-Event-ID` would resend it.
    public var id: String?
    /// The project's revision the event carries.
    public var revision: Int?
    /// The event's data as sent.
    public var data: JSONValue

    /// Creates an event.
    public init(kind: String, id: String? = nil, revision: Int? = nil, data: JSONValue = .object([:])) {
        self.kind = kind
        self.id = id
        self.revision = revision
        self.data = data
    }

    /// Reads a Server-Sent Event; data that is not JSON is kept as a string.
    public init(_ event: ServerSentEvent) {
        let value = JSONValue(data: Data(event.data.utf8)) ?? .string(event.data)
        self.init(
            kind: event.event, id: event.id,
            revision: value["revision"]?.intValue.map(Int.init) ?? event.id.flatMap { Int($0) }, data: value)
    }

    /// Whether the server said the client fell too far behind: every list is read again (M-CHG-11).
    public var isReset: Bool { kind == "reset" }

    /// The id of what the event is about (a change's, a question's, a case's …).
    public var subject: String? { data["id"]?.stringValue }

    /// The change's row as the event names it, for a `change` event, decoded as `client` decodes replies: §2's data is `{"id", "state", "head",
    /// "gate"}`, so the row may lack its ref, title and report time (`ChangeSummary.lacksListFields`).
    public func change(decodedBy client: Client) -> ChangeSummary? {
        guard kind == "change" else { return nil }
        return try? client.decode(ChangeSummary.self, from: Data(data.jsonString().utf8))
    }
}
