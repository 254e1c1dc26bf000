import Foundation

/// One row of the queue. A row has no answer action: answers live on the question's page, next to its
/// evidence (M-QUEUE-6).
public struct QueueItem: Sendable, Hashable, Codable, Identifiable {
    /// The question's id.
    public var id: String
    /// Its kind.
    public var kind: QuestionKind
    /// Its title.
    public var title: String
    /// Since when it waits.
    public var waitingSince: Date?

    /// Creates a row.
    public init(id: String, kind: QuestionKind, title: String, waitingSince: Date? = nil) {
        self.id = id
        self.kind = kind
        self.title = title
        self.waitingSince = waitingSince
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, title
        case waitingSince = "waiting_since"
    }
}
