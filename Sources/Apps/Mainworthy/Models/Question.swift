import Foundation

/// A question's page as the server sends it: its evidence, its answers, the decision standing and the
/// ledger.
public struct Question: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public var id: String
    /// The kind.
    public var kind: QuestionKind
    /// `open` or `decided`.
    public var state: String
    /// The title.
    public var title: String
    /// The question in the web app, for what the app does not do (M-WEB-1, M-WEB-2, M-WEB-3).
    public var webURL: URL?
    /// What the page shows for its kind (M-QUEUE-7).
    public var evidence: Evidence
    /// The answers, each with its sentence.
    public var answers: [AnswerOption]
    /// Whether a withdrawal needs a reason.
    public var withdrawReasonRequired: Bool
    /// The decision standing, if any; Withdraw names it (M-UNDO-5).
    public var decision: Decision?
    /// Every decision and withdrawal, oldest first.
    public var ledger: [LedgerEntry]

    /// Creates a question.
    public init(
        id: String, kind: QuestionKind, state: String = "open", title: String, webURL: URL? = nil,
        evidence: Evidence = Evidence(), answers: [AnswerOption] = [], withdrawReasonRequired: Bool = false,
        decision: Decision? = nil, ledger: [LedgerEntry] = []
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.title = title
        self.webURL = webURL
        self.evidence = evidence
        self.answers = answers
        self.withdrawReasonRequired = withdrawReasonRequired
        self.decision = decision
        self.ledger = ledger
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, state, title, evidence, answers, decision, ledger
        case webURL = "web_url"
        case withdrawReasonRequired = "withdraw_reason_required"
    }

    /// Whether the question waits for an answer.
    public var isOpen: Bool { state == "open" }
}
