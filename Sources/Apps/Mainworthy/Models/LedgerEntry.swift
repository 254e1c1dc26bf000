import Foundation

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
