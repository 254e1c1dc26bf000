import Foundation

/// One row of the Decided list: what was decided and by whom (M-UNDO-4).
public struct DecidedItem: Sendable, Hashable, Codable, Identifiable {
    /// The question decided.
    public struct QuestionRef: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// Its kind.
        public var kind: QuestionKind
        /// Its title.
        public var title: String
    }

    /// The answer given.
    public struct AnswerRef: Sendable, Hashable, Codable {
        /// Its key.
        public var key: String
        /// Its label.
        public var label: String
    }

    /// The decision's id.
    public var id: String
    /// The question.
    public var question: QuestionRef
    /// The answer.
    public var answer: AnswerRef
    /// Who decided.
    public var by: Person
    /// When.
    public var at: Date?
}
