import CompanionApp
import Foundation

/// One entry of the queue as the account's store keeps it: the summary of the whole open queue (first, once), or
/// a question. Keeping the summary with the rows means what is shown offline, and after an answer, comes from one
/// stored list.
public enum QueueEntry: Sendable, Hashable, Codable, Identifiable {
    /// The server's counts for the whole open queue (M-QUEUE-4).
    case summary(QueueSummary)
    /// An open question.
    case question(QueueItem)

    /// The id of the summary entry (a question's id always starts with its own prefix, never `#`).
    public static let summaryID = "#summary"

    /// The entry's id in the stored list.
    public var id: String {
        switch self {
        case .summary: return Self.summaryID
        case .question(let item): return item.id
        }
    }

    /// The entries of one page: its summary, then its questions in the server's order.
    static func entries(of reply: QueueReply) -> [QueueEntry] {
        [.summary(reply.summary)] + reply.items.map(QueueEntry.question)
    }

    /// The queue as the screen shows it, from the stored entries: failures first (M-QUEUE-1), the summary as the
    /// server gave it.
    static func page(_ list: Paged<QueueEntry>) -> QueuePage {
        var summary = QueueSummary(failures: 0, canWait: 0)
        var items: [QueueItem] = []
        for entry in list.items {
            switch entry {
            case .summary(let counts): summary = counts
            case .question(let item): items.append(item)
            }
        }
        return QueuePage(
            summary: summary, items: QueueOrder.failuresFirst(items), nextCursor: list.nextCursor,
            revision: list.revision.flatMap { Int($0) })
    }
}
