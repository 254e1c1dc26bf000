import Foundation

/// `POST …/withdrawal` → 201.
public struct WithdrawalReply: Sendable, Hashable, Codable {
    /// The withdrawal entry.
    public struct Withdrawal: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// The decision withdrawn.
        public var withdraws: String
    }

    /// The question's state after it.
    public struct QuestionState: Sendable, Hashable, Codable {
        /// The question's id.
        public var id: String
        /// `open` again.
        public var state: String
    }

    /// The withdrawal.
    public var withdrawal: Withdrawal
    /// The question, open again.
    public var question: QuestionState
}
