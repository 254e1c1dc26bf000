import Foundation

/// An account from `GET /api/accounts`, with its balance in its own currency (C-ACC-1).
public struct Account: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The name ("Girokonto").
    public let name: String
    /// The kind (`checking`, `savings`, `brokerage`, …), as sent.
    public let kind: String
    /// The account's own currency.
    public let currency: String
    /// The balance, in `currency`.
    public let balance: Amount
    /// Whether the account is archived.
    public let archived: Bool
    /// When the account was created.
    public let createdAt: Date

    /// The balance with its currency.
    public var money: Money { Money(balance, currency) }

    enum CodingKeys: String, CodingKey {
        case id, name, kind, currency, balance, archived
        case createdAt = "created_at"
    }
}
