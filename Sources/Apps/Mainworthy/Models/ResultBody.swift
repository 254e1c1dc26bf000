import Foundation

/// The body of a result: `POST …/runs/{id}/slots/{sid}/results`.
///
/// Rules: a failure sends the marked step, or `null`; the other outcomes send no step; an empty note is
/// `null` (M-RUN-6). Undo sends your earlier result in the slot again (outcome, note, failed step), or
/// `skip` with neither when you had none (M-RUN-8).
public struct ResultBody: Sendable, Hashable, Codable {
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

    /// The body Undo sends: `previous` (your earlier result, as the server returned it with a new one) again, or
    /// `skip` when there was none.
    public static func undo(to previous: ResultBody?) -> ResultBody {
        previous ?? ResultBody(outcome: .skip, note: nil, failedStep: nil)
    }

    /// The body Undo sends for `person`'s latest result in a slot whose history (newest first) is `results`: the
    /// result `person` recorded there before it, again, or `skip` when there was none; `nil` when `person` has
    /// no result in the slot (nothing to undo).
    public static func undo(latestOf person: Person, in results: [SlotResult]) -> ResultBody? {
        let own = results.filter { result in
            guard let by = result.by else { return false }
            if let id = by.id, let mine = person.id { return id == mine }
            return by.name == person.name
        }
        guard !own.isEmpty else { return nil }
        guard own.count > 1 else { return undo(to: nil) }
        let earlier = own[1]
        return ResultBody(outcome: earlier.outcome, note: earlier.note, failedStep: earlier.failedStep)
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
