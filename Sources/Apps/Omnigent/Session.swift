import CompanionCore
import Foundation

/// A session (a conversation) as the list and detail routes return it. Unknown fields are ignored;
/// only what a screen shows is read.
public struct Session: Codable, Sendable, Hashable, Identifiable {
    /// The 32-hex id.
    public var id: String
    /// The title, if one was set.
    public var title: String?
    /// `idle`, `launching`, `running`, `waiting`, `failed`, …
    public var status: String
    /// The agent's id.
    public var agentID: String?
    /// The agent's name, such as `debby`.
    public var agentName: String?
    /// Whether it is archived.
    public var archived: Bool
    /// Labels as key-value pairs.
    public var labels: [String: String]
    /// The project it belongs to, if any.
    public var projectID: String?
    /// How many approvals wait for the person.
    public var pendingElicitationsCount: Int
    /// The approvals themselves, when the route includes them (detail).
    public var pendingElicitations: [Elicitation]?
    /// Accepted messages no turn has consumed yet, when the route includes them (detail).
    public var pendingInputs: [PendingInput]?
    /// Why the last task failed, when the session is `failed` and the route includes it (detail).
    public var lastTaskError: TaskError?
    /// When it was created.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// Whether the viewer has unread items.
    public var viewerUnread: Bool
    /// The last item time the viewer saw, in Unix seconds.
    public var viewerLastSeen: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, status, archived, labels
        case agentID = "agent_id"
        case agentName = "agent_name"
        case projectID = "project_id"
        case pendingElicitationsCount = "pending_elicitations_count"
        case pendingElicitations = "pending_elicitations"
        case pendingInputs = "pending_inputs"
        case lastTaskError = "last_task_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case viewerUnread = "viewer_unread"
        case viewerLastSeen = "viewer_last_seen"
    }

    /// Creates a session value.
    public init(
        id: String, title: String? = nil, status: String = "idle", agentID: String? = nil, agentName: String? = nil,
        archived: Bool = false, labels: [String: String] = [:], projectID: String? = nil,
        pendingElicitationsCount: Int = 0, pendingElicitations: [Elicitation]? = nil,
        pendingInputs: [PendingInput]? = nil, lastTaskError: TaskError? = nil, createdAt: Date, updatedAt: Date,
        viewerUnread: Bool = false, viewerLastSeen: Int? = nil
    ) {
        self.id = id
        self.title = title
        self.status = status
        self.agentID = agentID
        self.agentName = agentName
        self.archived = archived
        self.labels = labels
        self.projectID = projectID
        self.pendingElicitationsCount = pendingElicitationsCount
        self.pendingElicitations = pendingElicitations
        self.pendingInputs = pendingInputs
        self.lastTaskError = lastTaskError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.viewerUnread = viewerUnread
        self.viewerLastSeen = viewerLastSeen
    }

    /// Decodes leniently where the server omits fields on some routes (detail has no counts).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        status = try container.decodeIfPresent(String.self, forKey: .status) ?? "idle"
        agentID = try container.decodeIfPresent(String.self, forKey: .agentID)
        agentName = try container.decodeIfPresent(String.self, forKey: .agentName)
        archived = try container.decodeIfPresent(Bool.self, forKey: .archived) ?? false
        labels = try container.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
        projectID = try container.decodeIfPresent(String.self, forKey: .projectID)
        pendingElicitations = try container.decodeIfPresent([Elicitation].self, forKey: .pendingElicitations)
        pendingElicitationsCount =
            try container.decodeIfPresent(Int.self, forKey: .pendingElicitationsCount) ?? pendingElicitations?.count
            ?? 0
        pendingInputs = try container.decodeIfPresent([PendingInput].self, forKey: .pendingInputs)
        lastTaskError = try container.decodeIfPresent(TaskError.self, forKey: .lastTaskError)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt) ?? createdAt
        viewerUnread = try container.decodeIfPresent(Bool.self, forKey: .viewerUnread) ?? false
        viewerLastSeen = try container.decodeIfPresent(Int.self, forKey: .viewerLastSeen)
    }

    /// Whether an approval waits (O-WATCH-11 "needs attention").
    public var needsAttention: Bool { pendingElicitationsCount > 0 || !(pendingElicitations ?? []).isEmpty }

    /// Whether it is working now (O-WATCH-11 "active": launching, running or waiting).
    public var isActive: Bool { ["launching", "running", "waiting"].contains(status) }

    /// The title to show: the session's title; an untitled session shows its agent's name, as the real app's
    /// watch does; with neither, a neutral fallback.
    public var displayTitle: String {
        if let title, !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return title }
        if let agentName, !agentName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return agentName }
        return "Untitled session"
    }
}

extension Session {
    /// Reads one session object straight from the body's bytes, to the same value `init(from:)` decodes; `nil`
    /// when anything is not in a form the reader takes (the caller then decodes the body with `JSONDecoder`).
    ///
    /// Stamps follow `Timestamp`'s rules (Omnigent writes Unix seconds), as the kit's default date decoding does.
    /// `pending_elicitations`, `pending_inputs` and `last_task_error`, present only on some routes and objects
    /// inside, are handed to `decoder`.
    init?(reading reader: inout JSONPullReader, decoder: JSONDecoder) {
        var id: String?
        var title: String?
        var status: String?
        var agentID: String?
        var agentName: String?
        var archived: Bool?
        var labels: [String: String]?
        var projectID: String?
        var count: Int?
        var elicitations: [Elicitation]?
        var inputs: [PendingInput]?
        var lastTaskError: TaskError?
        var createdAt: Date?
        var updatedAt: Date?
        var viewerUnread: Bool?
        var viewerLastSeen: Int?
        // A key met twice is left to `JSONDecoder`, so which one counts is its decision.
        var seen = KeysSeen<UInt32>()
        let complete = reader.readObject { reader, key in
            func string(_ target: inout String?, _ bit: UInt32) -> Bool {
                guard seen.first(bit) else { return false }
                if reader.readNull() { return true }
                target = reader.readString()
                return target != nil
            }
            func bool(_ target: inout Bool?, _ bit: UInt32) -> Bool {
                guard seen.first(bit) else { return false }
                if reader.readNull() { return true }
                target = reader.readBool()
                return target != nil
            }
            func int(_ target: inout Int?, _ bit: UInt32) -> Bool {
                guard seen.first(bit) else { return false }
                if reader.readNull() { return true }
                target = reader.readInt()
                return target != nil
            }
            func decoded<Value: Decodable>(_ target: inout Value?, _ bit: UInt32) -> Bool {
                guard seen.first(bit) else { return false }
                if reader.readNull() { return true }
                guard let range = reader.skipValue(),
                    let value = try? decoder.decode(Value.self, from: Data(reader.slice(range)))
                else { return false }
                target = value
                return true
            }
            func date(_ target: inout Date?, _ bit: UInt32) -> Bool {
                guard seen.first(bit) else { return false }
                if reader.readNull() { return true }
                target = Self.readDate(&reader)
                return target != nil
            }
            switch () {
            case _ where key.isKey("id"):
                guard seen.first(1 << 0), let value = reader.readString() else { return false }
                id = value
                return true
            case _ where key.isKey("title"): return string(&title, 1 << 1)
            case _ where key.isKey("status"): return string(&status, 1 << 2)
            case _ where key.isKey("agent_id"): return string(&agentID, 1 << 3)
            case _ where key.isKey("agent_name"): return string(&agentName, 1 << 4)
            case _ where key.isKey("archived"): return bool(&archived, 1 << 5)
            case _ where key.isKey("labels"):
                guard seen.first(1 << 6) else { return false }
                if reader.readNull() { return true }
                labels = Self.readLabels(&reader)
                return labels != nil
            case _ where key.isKey("project_id"): return string(&projectID, 1 << 7)
            case _ where key.isKey("pending_elicitations_count"): return int(&count, 1 << 8)
            case _ where key.isKey("pending_elicitations"): return decoded(&elicitations, 1 << 9)
            case _ where key.isKey("pending_inputs"): return decoded(&inputs, 1 << 15)
            case _ where key.isKey("last_task_error"): return decoded(&lastTaskError, 1 << 10)
            case _ where key.isKey("created_at"): return date(&createdAt, 1 << 11)
            case _ where key.isKey("updated_at"): return date(&updatedAt, 1 << 12)
            case _ where key.isKey("viewer_unread"): return bool(&viewerUnread, 1 << 13)
            case _ where key.isKey("viewer_last_seen"): return int(&viewerLastSeen, 1 << 14)
            default: return reader.skipValue() != nil
            }
        }
        guard complete, let id, let createdAt else { return nil }
        self.init(
            id: id, title: title, status: status ?? "idle", agentID: agentID, agentName: agentName,
            archived: archived ?? false, labels: labels ?? [:], projectID: projectID,
            pendingElicitationsCount: count ?? elicitations?.count ?? 0, pendingElicitations: elicitations,
            pendingInputs: inputs, lastTaskError: lastTaskError, createdAt: createdAt,
            updatedAt: updatedAt ?? createdAt,
            viewerUnread: viewerUnread ?? false, viewerLastSeen: viewerLastSeen)
    }

    /// A stamp: a number (Unix seconds or milliseconds) or a string, by `Timestamp`'s rules.
    private static func readDate(_ reader: inout JSONPullReader) -> Date? {
        if reader.peek() == UInt8(ascii: "\"") {
            guard let text = reader.readString() else { return nil }
            return try? Timestamp.parse(text)
        }
        guard let number = reader.readDouble() else { return nil }
        return try? Timestamp.date(unixTime: number)
    }

    /// Labels: an object of strings, each key once.
    private static func readLabels(_ reader: inout JSONPullReader) -> [String: String]? {
        var labels: [String: String] = [:]
        let complete = reader.readObject { reader, key in
            let name = String(decoding: key, as: UTF8.self)
            guard labels[name] == nil, let value = reader.readString() else { return false }
            labels[name] = value
            return true
        }
        return complete ? labels : nil
    }
}
