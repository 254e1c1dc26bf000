import CompanionAuth
import Foundation

/// One session of the account, as `GET /api/sessions` lists it.
public struct SessionRecord: Sendable, Hashable, Codable, Identifiable {
    /// The session's id.
    public var id: String
    /// What the client called itself.
    public var client: String?
    /// `password` or `passkey`.
    public var openedBy: String?
    /// When it opened.
    public var openedAt: Date?
    /// Where it opened.
    public var openedFrom: String?
    /// When it was last used.
    public var lastUsedAt: Date?
    /// Where it was last used.
    public var lastUsedFrom: String?
    /// Whether it is this device's own (M-SESS-2).
    public var current: Bool

    /// Creates a record.
    public init(
        id: String, client: String? = nil, openedBy: String? = nil, openedAt: Date? = nil, openedFrom: String? = nil,
        lastUsedAt: Date? = nil, lastUsedFrom: String? = nil, current: Bool
    ) {
        self.id = id
        self.client = client
        self.openedBy = openedBy
        self.openedAt = openedAt
        self.openedFrom = openedFrom
        self.lastUsedAt = lastUsedAt
        self.lastUsedFrom = lastUsedFrom
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case id, client, current
        case openedBy = "opened_by"
        case openedAt = "opened_at"
        case openedFrom = "opened_from"
        case lastUsedAt = "last_used_at"
        case lastUsedFrom = "last_used_from"
    }

    /// The kit's session entry.
    public var info: SessionInfo {
        SessionInfo(
            id: id, client: client, openedBy: openedBy, openedAt: openedAt, openedFrom: openedFrom,
            lastUsedAt: lastUsedAt, lastUsedFrom: lastUsedFrom, isCurrent: current)
    }
}
