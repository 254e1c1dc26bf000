import Foundation

/// `GET P/queue` → one page of the open queue and the summary of all of it.
public struct QueueReply: Sendable, Hashable, Codable {
    /// The counts of the whole open queue (M-QUEUE-4).
    public var summary: QueueSummary
    /// The project's revision.
    public var revision: Int?
    /// The next page's cursor.
    public var nextCursor: String?
    /// This page's rows, in the server's order.
    public var items: [QueueItem]

    enum CodingKeys: String, CodingKey {
        case summary, revision, items
        case nextCursor = "next_cursor"
    }
}
