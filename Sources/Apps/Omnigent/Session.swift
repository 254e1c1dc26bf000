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
    /// The last task error, when the detail route includes it.
    public var lastTaskError: String?
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
        pendingElicitationsCount: Int = 0, pendingElicitations: [Elicitation]? = nil, lastTaskError: String? = nil,
        createdAt: Date, updatedAt: Date, viewerUnread: Bool = false, viewerLastSeen: Int? = nil
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
        lastTaskError = try container.decodeIfPresent(String.self, forKey: .lastTaskError)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt) ?? createdAt
        viewerUnread = try container.decodeIfPresent(Bool.self, forKey: .viewerUnread) ?? false
        viewerLastSeen = try container.decodeIfPresent(Int.self, forKey: .viewerLastSeen)
    }

    /// Whether an approval waits (O-WATCH-11 "needs attention").
    public var needsAttention: Bool { pendingElicitationsCount > 0 || !(pendingElicitations ?? []).isEmpty }

    /// Whether it is working now (O-WATCH-11 "active": launching, running or waiting).
    public var isActive: Bool { ["launching", "running", "waiting"].contains(status) }

    /// The title to show: the session's title, or a neutral fallback.
    public var displayTitle: String {
        if let title, !title.trimmingCharacters(in: .whitespaces).isEmpty { return title }
        return "Untitled session"
    }
}
