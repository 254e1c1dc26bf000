import Foundation

/// `GET /api/contracts`: the contracts and the server's totals.
public struct ContractList: Sendable, Hashable, Codable {
    /// The base currency of the totals.
    public let currency: String
    /// The server's monthly total.
    public let monthlyTotal: Amount
    /// The server's yearly total.
    public let yearlyTotal: Amount
    /// Contracts left out of the totals (no exchange rate).
    public let warnings: [BudgetNotice]
    /// The contracts, next due first.
    public let items: [Contract]

    enum CodingKeys: String, CodingKey {
        case currency, warnings, items
        case monthlyTotal = "monthly_total"
        case yearlyTotal = "yearly_total"
    }
}
