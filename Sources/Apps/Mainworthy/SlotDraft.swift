import Foundation

/// What is typed or marked on a slot but not recorded yet.
///
/// Rules: pressing a step marks it, pressing it again clears it, pressing another moves the mark: at
/// most one step is marked (M-RUN-5, O-9). A draft stays with its slot while the run is open in the
/// app, across moving between slots and Undo (M-RUN-10); the run model keeps the drafts, in memory only.
public struct SlotDraft: Sendable, Hashable {
    /// The note typed.
    public var note: String
    /// The marked step, 1-based.
    public private(set) var markedStep: Int?

    /// Creates a draft.
    public init(note: String = "", markedStep: Int? = nil) {
        self.note = note
        self.markedStep = markedStep
    }

    /// Marks `step`, clears it when it is already marked, or moves the mark to it.
    public mutating func press(step: Int) {
        markedStep = markedStep == step ? nil : step
    }

    /// Whether nothing is typed or marked.
    public var isEmpty: Bool { note.isEmpty && markedStep == nil }
}

/// The body of a result: `POST …/runs/{id}/slots/{sid}/results`.
///
/// Rules: a failure sends the marked step, or `null`; the other outcomes send no step; an empty note is
/// `null` (M-RUN-6). Undo sends your earlier result in the slot again (outcome, note, failed step), or
/// `skip` with neither when you had none (M-RUN-8).
public struct ResultBody: Sendable, Hashable, Encodable {
    /// The outcome.
    public var outcome: Outcome
    /// The note, or `nil`.
    public var note: String?
    /// The failed step, for a failure.
    public var failedStep: Int?

    /// Creates a body as given.
    public init(outcome: Outcome, note: String?, failedStep: Int?) {
        self.outcome = outcome
        self.note = note
        self.failedStep = failedStep
    }

    /// The body for pressing `outcome` with `draft` on the slot.
    public init(outcome: Outcome, draft: SlotDraft) {
        let note = draft.note.trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(
            outcome: outcome, note: note.isEmpty ? nil : draft.note,
            failedStep: outcome == .fail ? draft.markedStep : nil)
    }

    /// The body Undo sends: `previous` again, or `skip` when there was none.
    public static func undo(to previous: PreviousResult?) -> ResultBody {
        guard let previous else { return ResultBody(outcome: .skip, note: nil, failedStep: nil) }
        return ResultBody(outcome: previous.outcome, note: previous.note, failedStep: previous.failedStep)
    }

    enum CodingKeys: String, CodingKey {
        case outcome, note
        case failedStep = "failed_step"
    }

    /// Encodes `outcome`, `note` (`null` when empty) and `failed_step` (only for a failure).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(note, forKey: .note)
        if outcome == .fail { try container.encode(failedStep, forKey: .failedStep) }
    }
}

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
