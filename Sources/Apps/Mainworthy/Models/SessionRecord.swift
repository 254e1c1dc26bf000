import CompanionAuth
import Foundation

/// One session of the account as `GET /api/sessions` lists it: the kit's `SessionInfo`, read from (and written
/// as) the server's members.
public struct SessionRecord: Sendable, Hashable, Codable, Identifiable {
    /// The session, as the kit's sessions screen and `SessionEnding` take it.
    public var info: SessionInfo

    /// The session's id.
    public var id: String { info.id }
    /// Whether it is this device's own (M-SESS-2).
    public var current: Bool { info.isCurrent }

    /// Wraps a session.
    public init(_ info: SessionInfo) { self.info = info }

    enum CodingKeys: String, CodingKey {
        case id, client, current
        case openedBy = "opened_by"
        case openedAt = "opened_at"
        case openedFrom = "opened_from"
        case lastUsedAt = "last_used_at"
        case lastUsedFrom = "last_used_from"
    }

    /// Reads `{"id", "client", "opened_by", "opened_at", "opened_from", "last_used_at", "last_used_from",
    /// "current"}`; only the id and `current` are required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        info = SessionInfo(
            id: try container.decode(String.self, forKey: .id),
            client: try container.decodeIfPresent(String.self, forKey: .client),
            openedBy: try container.decodeIfPresent(String.self, forKey: .openedBy),
            openedAt: try container.decodeIfPresent(Date.self, forKey: .openedAt),
            openedFrom: try container.decodeIfPresent(String.self, forKey: .openedFrom),
            lastUsedAt: try container.decodeIfPresent(Date.self, forKey: .lastUsedAt),
            lastUsedFrom: try container.decodeIfPresent(String.self, forKey: .lastUsedFrom),
            isCurrent: try container.decode(Bool.self, forKey: .current))
    }

    /// Writes the same members (`null` for what is not known).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(info.id, forKey: .id)
        try container.encode(info.client, forKey: .client)
        try container.encode(info.openedBy, forKey: .openedBy)
        try container.encode(info.openedAt, forKey: .openedAt)
        try container.encode(info.openedFrom, forKey: .openedFrom)
        try container.encode(info.lastUsedAt, forKey: .lastUsedAt)
        try container.encode(info.lastUsedFrom, forKey: .lastUsedFrom)
        try container.encode(info.isCurrent, forKey: .current)
    }
}
