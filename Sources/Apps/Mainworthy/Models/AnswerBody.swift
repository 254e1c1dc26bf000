import Foundation

/// The body of an answer: `POST …/questions/{id}/decisions`.
///
/// Rule: `expected_decision_id` is the decision the page showed (`null` for an open question), so an
/// answer to a question decided meanwhile is refused with 409 `decision_changed` (M-QUEUE-12). `reason`
/// and `tracker` are sent as `null` when empty (M-QUEUE-10).
public struct AnswerBody: Sendable, Hashable, Encodable {
    /// The answer's key.
    public var answer: String
    /// The reason, or `nil`.
    public var reason: String?
    /// Where the defect is tracked, or `nil`.
    public var tracker: String?
    /// The decision the page showed.
    public var expectedDecisionID: String?

    /// Creates a body.
    public init(answer: String, reason: String?, tracker: String?, expectedDecisionID: String?) {
        self.answer = answer
        self.reason = reason
        self.tracker = tracker
        self.expectedDecisionID = expectedDecisionID
    }

    enum CodingKeys: String, CodingKey {
        case answer, reason, tracker
        case expectedDecisionID = "expected_decision_id"
    }

    /// Encodes every member, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(answer, forKey: .answer)
        try container.encode(reason, forKey: .reason)
        try container.encode(tracker, forKey: .tracker)
        try container.encode(expectedDecisionID, forKey: .expectedDecisionID)
    }

    /// The body for `option` with what was typed, or why nothing may be sent.
    ///
    /// A required reason that is empty or only whitespace sends nothing (M-QUEUE-9). A tracker is sent
    /// only for an answer that asks for one, and an empty one is `null` (M-QUEUE-10).
    public static func make(
        _ option: AnswerOption, reason: String, tracker: String, expectedDecisionID: String?
    ) -> Result<AnswerBody, InputProblem> {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if option.reasonRequired, reason.isEmpty { return .failure(.reasonRequired(answer: option.label)) }
        let tracker = tracker.trimmingCharacters(in: .whitespacesAndNewlines)
        return .success(
            AnswerBody(
                answer: option.key, reason: reason.isEmpty ? nil : reason,
                tracker: option.asksTracker && !tracker.isEmpty ? tracker : nil, expectedDecisionID: expectedDecisionID)
        )
    }
}
