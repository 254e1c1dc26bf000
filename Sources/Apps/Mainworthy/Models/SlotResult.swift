import Foundation

/// A recorded result of a slot.
public struct SlotResult: Sendable, Hashable, Codable, Identifiable {
    /// The result's id.
    public var id: String
    /// The outcome.
    public var outcome: Outcome
    /// The note.
    public var note: String?
    /// The failed step, 1-based, for a failure.
    public var failedStep: Int?
    /// Who recorded it.
    public var by: Person?
    /// When.
    public var at: Date?

    /// Creates a result.
    public init(
        id: String, outcome: Outcome, note: String? = nil, failedStep: Int? = nil, by: Person? = nil, at: Date? = nil
    ) {
        self.id = id
        self.outcome = outcome
        self.note = note
        self.failedStep = failedStep
        self.by = by
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, outcome, note, by, at
        case failedStep = "failed_step"
    }
}
