import Foundation

/// A decision standing on a question: the answer, who gave it, and when.
public struct Decision: Sendable, Hashable, Codable, Identifiable {
    /// The decision's id; Undo and Withdraw name it (M-UNDO-1, M-UNDO-5).
    public var id: String
    /// The question decided.
    public var questionID: String?
    /// The answer's key.
    public var answer: String?
    /// The answer's label, when the reply carries it (§2 does not show one: `labelled(from:)` fills it from the
    /// question's answers).
    public var answerLabel: String?
    /// Who decided.
    public var by: Person?
    /// When.
    public var at: Date?
    /// The reason given.
    public var reason: String?
    /// Where the defect is tracked.
    public var tracker: String?

    /// Creates a decision.
    public init(
        id: String, questionID: String? = nil, answer: String? = nil, answerLabel: String? = nil, by: Person? = nil,
        at: Date? = nil, reason: String? = nil, tracker: String? = nil
    ) {
        self.id = id
        self.questionID = questionID
        self.answer = answer
        self.answerLabel = answerLabel
        self.by = by
        self.at = at
        self.reason = reason
        self.tracker = tracker
    }

    enum CodingKeys: String, CodingKey {
        case id, answer, by, at, reason, tracker
        case questionID = "question_id"
        case answerLabel = "answer_label"
    }

    /// This decision with its answer's label taken from `answers` (the question's), when the reply named none.
    public func labelled(from answers: [AnswerOption]) -> Decision {
        guard answerLabel == nil, let label = answers.first(where: { $0.key == answer })?.label else { return self }
        var copy = self
        copy.answerLabel = label
        return copy
    }

    /// "Flaky test by bo": what was decided and by whom, for "changed meanwhile" and the Decided list.
    public var summary: String {
        let what = answerLabel ?? answer ?? "A decision"
        return by.map { "\(what) by \($0.name)" } ?? what
    }
}
