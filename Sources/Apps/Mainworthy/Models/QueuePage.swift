import Foundation

/// The queue as the screen shows it.
public struct QueuePage: Sendable, Hashable {
    /// The server's counts for the whole open queue (M-QUEUE-4).
    public var summary: QueueSummary
    /// The rows, failures first (M-QUEUE-1), de-duplicated by id across pages.
    public var items: [QueueItem]
    /// The next page's cursor.
    public var nextCursor: String?
    /// The project's revision when read.
    public var revision: Int?

    /// The line under the list (M-QUEUE-2, M-QUEUE-3).
    public var summaryLine: String { summary.line }
}
