import CompanionCore
import Foundation

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
