import CompanionCore
import Foundation

/// One page of an Omnigent list: `{object: "list", data, first_id, last_id, has_more}` (O-ERR-3).
public struct ListPage<Item: Decodable & Sendable & Hashable>: Decodable, Sendable, Hashable {
    /// The items of this page.
    public var data: [Item]
    /// The id of the first item, the cursor for `before`.
    public var firstID: String?
    /// The id of the last item, the cursor for `after`.
    public var lastID: String?
    /// Whether another page follows.
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case data
        case firstID = "first_id"
        case lastID = "last_id"
        case hasMore = "has_more"
    }

    /// Creates a page.
    public init(data: [Item], firstID: String? = nil, lastID: String? = nil, hasMore: Bool = false) {
        self.data = data
        self.firstID = firstID
        self.lastID = lastID
        self.hasMore = hasMore
    }
}

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

/// A pending approval request (an elicitation) on a session.
public struct Elicitation: Codable, Sendable, Hashable, Identifiable {
    /// Its id.
    public var id: String
    /// Its kind; only `form` ones with an empty schema resolve with a plain accept/decline (O-WATCH-5).
    public var kind: String?
    /// The question shown to the person.
    public var message: String?
    /// The requested form schema, if any.
    public var schema: JSONValue?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, message, schema
        case kind = "type"
    }

    /// Creates an elicitation.
    public init(id: String, kind: String? = nil, message: String? = nil, schema: JSONValue? = nil) {
        self.id = id
        self.kind = kind
        self.message = message
        self.schema = schema
    }

    /// Whether a plain accept or decline resolves it (a `form` with an empty schema).
    public var isSimpleApproval: Bool {
        guard kind == nil || kind == "form" else { return false }
        switch schema {
        case nil, .null: return true
        case .object(let members): return members.isEmpty || (members["properties"]?.objectValue?.isEmpty ?? true)
        default: return false
        }
    }
}

/// One item of a session: a message, a tool call or another kind (flat form of `/items`).
public struct SessionItem: Codable, Sendable, Hashable, Identifiable {
    /// One part of a message's content.
    public struct Content: Codable, Sendable, Hashable {
        /// `input_text`, `output_text`, …
        public var type: String
        /// The text, for text parts.
        public var text: String?

        /// Creates a content part.
        public init(type: String, text: String?) {
            self.type = type
            self.text = text
        }
    }

    /// Its id.
    public var id: String
    /// `message`, `function_call`, …
    public var type: String
    /// `completed`, `in_progress`, …
    public var status: String?
    /// `user` or `assistant` for messages.
    public var role: String?
    /// The content parts.
    public var content: [Content]
    /// The model or agent that wrote it.
    public var model: String?
    /// When it was created.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, type, status, role, content, model, data
        case createdAt = "created_at"
    }

    /// Creates an item.
    public init(
        id: String, type: String = "message", status: String? = "completed", role: String?, content: [Content],
        model: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.type = type
        self.status = status
        self.role = role
        self.content = content
        self.model = model
        self.createdAt = createdAt
    }

    /// Reads both the flat form (`/items`) and the nested form (`detail.items[].data`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "message"
        status = try container.decodeIfPresent(String.self, forKey: .status)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        if container.contains(.data),
            let nested = try? container.nestedContainer(keyedBy: CodingKeys.self, forKey: .data)
        {
            role = try nested.decodeIfPresent(String.self, forKey: .role)
            content = try nested.decodeIfPresent([Content].self, forKey: .content) ?? []
            model = try nested.decodeIfPresent(String.self, forKey: .model)
        } else {
            role = try container.decodeIfPresent(String.self, forKey: .role)
            content = try container.decodeIfPresent([Content].self, forKey: .content) ?? []
            model = try container.decodeIfPresent(String.self, forKey: .model)
        }
    }

    /// Encodes the flat form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encode(content, forKey: .content)
        try container.encodeIfPresent(model, forKey: .model)
        try container.encode(createdAt.timeIntervalSince1970, forKey: .createdAt)
    }

    /// The text parts joined, for a message.
    public var text: String { content.compactMap(\.text).joined() }

    /// Whether this is a user or assistant text message (what the watch shows, O-WATCH-3).
    public var isChatMessage: Bool {
        type == "message" && (role == "user" || role == "assistant") && !text.isEmpty
    }
}

/// An agent a session can run.
public struct Agent: Codable, Sendable, Hashable, Identifiable {
    /// Its installation-specific id.
    public var id: String
    /// Its name, such as `debby`.
    public var name: String
}

/// The server's manifest at `/.well-known/omnigent.json` (O-AUTH-1).
public struct Manifest: Codable, Sendable, Hashable {
    /// How the server authenticates.
    public struct Auth: Codable, Sendable, Hashable {
        /// `oidc`, `accounts`, `header`, `custom` or `none`.
        public var mode: String
        /// The session cookie's name, if any.
        public var sessionCookie: String?
        /// Redirect URIs for native OIDC, non-null only for `oidc`.
        public var nativeRedirectURIs: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case mode
            case sessionCookie = "session_cookie"
            case nativeRedirectURIs = "native_redirect_uris"
        }
    }

    /// The manifest's version.
    public var manifestVersion: Int
    /// The server's version.
    public var serverVersion: String?
    /// The server's display name.
    public var serverName: String?
    /// The authentication description.
    public var auth: Auth

    enum CodingKeys: String, CodingKey, CaseIterable {
        case auth
        case manifestVersion = "manifest_version"
        case serverVersion = "server_version"
        case serverName = "server_name"
    }

    /// The auth mode as a value; unknown modes count as `custom` (O-OPEN-16).
    public var authMode: AuthMode { AuthMode(rawValue: auth.mode) ?? .custom }
}

/// How an Omnigent server signs people in.
public enum AuthMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// An external identity provider.
    case oidc
    /// Username and password on the server.
    case accounts
    /// A trusted proxy header; on loopback, single-user with no sign-in.
    case header
    /// Anything else: sign in inside the web view.
    case custom
    /// No authentication.
    case none
}

/// The acknowledgement of a posted event.
public struct EventAck: Codable, Sendable, Hashable {
    /// Whether the event was queued behind a running turn.
    public var queued: Bool?
    /// The id of the item it created, if any.
    public var itemID: String?
    /// The pending id, when queued.
    public var pendingID: String?
    /// Whether it was denied.
    public var denied: Bool?
    /// Why it was denied.
    public var reason: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case queued, denied, reason
        case itemID = "item_id"
        case pendingID = "pending_id"
    }
}

/// The signed-in identity, `/v1/me`.
public struct Identity: Codable, Sendable, Hashable {
    /// The user id (`local` in single-user header mode).
    public var userID: String?
    /// Whether the user is an admin.
    public var isAdmin: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id"
        case isAdmin = "is_admin"
    }
}
