import Foundation

/// Your earlier result in a slot, as the server returns it with a new one.
public struct PreviousResult: Sendable, Hashable, Codable {
    /// The outcome.
    public var outcome: Outcome
    /// The note.
    public var note: String?
    /// The failed step.
    public var failedStep: Int?

    /// Creates an earlier result.
    public init(outcome: Outcome, note: String?, failedStep: Int?) {
        self.outcome = outcome
        self.note = note
        self.failedStep = failedStep
    }

    enum CodingKeys: String, CodingKey {
        case outcome, note
        case failedStep = "failed_step"
    }
}
