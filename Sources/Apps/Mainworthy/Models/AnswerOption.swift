import Foundation

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
