import Foundation

/// What the bar over the queue says after an answer, with Undo (M-QUEUE-11).
public struct RecordedBar: Sendable, Hashable {
    /// The reply's `recorded` sentence.
    public var sentence: String
    /// The decision the answer made: Undo withdraws exactly this one (M-UNDO-1).
    public var decisionID: String
    /// The question answered.
    public var questionID: String
    /// Whether Undo needs a reason.
    public var reasonRequired: Bool
    /// The question's answers, to name a decision someone else made meanwhile (M-UNDO-3).
    public var answers: [AnswerOption] = []
}
