import CompanionCore
import Foundation

/// The kind of a question in the queue. Open-ended: a kind this app does not know yet still decodes,
/// and is treated like one the app sends to the web (its answers are not offered).
public struct QuestionKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The server's name for the kind.
    public var rawValue: String

    /// Creates a kind from the server's name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A failing test to explain.
    public static let failure = QuestionKind(rawValue: "failure")
    /// A proposal of case edits.
    public static let proposal = QuestionKind(rawValue: "proposal")
    /// A review's finding.
    public static let review = QuestionKind(rawValue: "review")
    /// A run's sign-off (M-UNDO-8).
    public static let signOff = QuestionKind(rawValue: "sign_off")
    /// Link a test to a case: answered in the web app (M-WEB-1).
    public static let link = QuestionKind(rawValue: "link")
    /// Resolve an overlapping edit: answered in the web app (M-WEB-1).
    public static let overlap = QuestionKind(rawValue: "overlap")

    /// Every kind the queue's chips offer, in the order they are shown.
    public static let chips: [QuestionKind] = [.failure, .proposal, .review, .signOff, .link, .overlap]

    /// The wire name.
    public var description: String { rawValue }

    /// Decodes the wire name.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// One row of the queue. A row has no answer action: answers live on the question's page, next to its
/// evidence (M-QUEUE-6).
public struct QueueItem: Sendable, Hashable, Codable, Identifiable {
    /// The question's id.
    public var id: String
    /// Its kind.
    public var kind: QuestionKind
    /// Its title.
    public var title: String
    /// Since when it waits.
    public var waitingSince: Date?

    /// Creates a row.
    public init(id: String, kind: QuestionKind, title: String, waitingSince: Date? = nil) {
        self.id = id
        self.kind = kind
        self.title = title
        self.waitingSince = waitingSince
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, title
        case waitingSince = "waiting_since"
    }
}

/// One answer a question offers, with the server's sentence for what it does (M-QUEUE-8).
public struct AnswerOption: Sendable, Hashable, Codable, Identifiable {
    /// The key sent with the answer.
    public var key: String
    /// The button's label.
    public var label: String
    /// What the answer does, in the server's words.
    public var sentence: String
    /// Whether the policy asks for a reason (M-QUEUE-9).
    public var reasonRequired: Bool
    /// Whether the answer asks where a defect is tracked (M-QUEUE-10).
    public var asksTracker: Bool

    /// The key.
    public var id: String { key }

    /// Creates an answer option.
    public init(key: String, label: String, sentence: String, reasonRequired: Bool = false, asksTracker: Bool = false) {
        self.key = key
        self.label = label
        self.sentence = sentence
        self.reasonRequired = reasonRequired
        self.asksTracker = asksTracker
    }

    enum CodingKeys: String, CodingKey {
        case key, label, sentence
        case reasonRequired = "reason_required"
        case asksTracker = "asks_tracker"
    }
}

/// A decision standing on a question: the answer, who gave it, and when.
public struct Decision: Sendable, Hashable, Codable, Identifiable {
    /// The decision's id; Undo and Withdraw name it (M-UNDO-1, M-UNDO-5).
    public var id: String
    /// The question decided.
    public var questionID: String?
    /// The answer's key.
    public var answer: String?
    /// The answer's label, when the reply carries it.
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

    /// "Flaky test by bo": what was decided and by whom, for "changed meanwhile" and the Decided list.
    public var summary: String {
        let what = answerLabel ?? answer ?? "A decision"
        return by.map { "\(what) by \($0.name)" } ?? what
    }
}

/// One entry of a question's ledger: a decision, or a withdrawal naming the decision it withdrew. Both
/// stay (M-UNDO-2).
public struct LedgerEntry: Sendable, Hashable, Codable, Identifiable {
    /// The entry's id.
    public var id: String
    /// `decision` or `withdrawal`.
    public var type: String
    /// The answer's key, for a decision.
    public var answer: String?
    /// The decision withdrawn, for a withdrawal.
    public var withdraws: String?
    /// Who.
    public var by: Person?
    /// When.
    public var at: Date?
    /// The reason given.
    public var reason: String?

    /// Creates an entry.
    public init(
        id: String, type: String, answer: String? = nil, withdraws: String? = nil, by: Person? = nil, at: Date? = nil,
        reason: String? = nil
    ) {
        self.id = id
        self.type = type
        self.answer = answer
        self.withdraws = withdraws
        self.by = by
        self.at = at
        self.reason = reason
    }
}

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
