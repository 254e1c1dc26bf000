import Foundation

/// `POST …/decisions` → 201: the decision and the sentence of what was recorded.
public struct AnswerReply: Sendable, Hashable, Codable {
    /// The decision made; Undo names its id (M-UNDO-1).
    public var decision: Decision
    /// "Flaky test recorded for checkout › pays with card." (M-QUEUE-11).
    public var recorded: String
}
