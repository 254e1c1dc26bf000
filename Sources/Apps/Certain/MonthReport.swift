import Foundation

/// `GET /api/reports/month`: the month's income and expenses in the base currency; transfers count as neither.
public struct MonthReport: Sendable, Hashable, Codable {
    /// The month.
    public let month: BudgetMonth
    /// The base currency.
    public let currency: String
    /// Money in.
    public let income: Amount
    /// Money out, as a positive amount.
    public let expenses: Amount
    /// What was left out (missing exchange rates).
    public let warnings: [BudgetNotice]
}
