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

/// The body of a withdrawal: `POST …/decisions/{id}/withdrawal`.
public struct WithdrawalBody: Sendable, Hashable, Encodable {
    /// The reason, or `nil`.
    public var reason: String?

    /// Creates a body.
    public init(reason: String?) { self.reason = reason }

    /// Encodes `reason`, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
    }

    enum CodingKeys: String, CodingKey { case reason }

    /// The body with what was typed, or why nothing may be sent (a required reason left blank).
    public static func make(reason: String, required: Bool) -> Result<WithdrawalBody, InputProblem> {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if required, reason.isEmpty { return .failure(.withdrawalReasonRequired) }
        return .success(WithdrawalBody(reason: reason.isEmpty ? nil : reason))
    }
}

/// Input the app refuses before sending anything.
public enum InputProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The answer needs a reason.
    case reasonRequired(answer: String)
    /// The withdrawal needs a reason.
    case withdrawalReasonRequired
    /// The run needs a name.
    case nameRequired
    /// The search selection needs text.
    case searchTextRequired

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .reasonRequired(let answer): return "“\(answer)” needs a reason. Type one, then answer again."
        case .withdrawalReasonRequired: return "Withdrawing this decision needs a reason. Type one, then undo again."
        case .nameRequired: return "Give the run a name."
        case .searchTextRequired: return "Type the text to search for."
        }
    }
}
