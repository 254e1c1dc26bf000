import Foundation

/// How often a contract is due; the periods per year the server's sums use (O-11).
public enum Rhythm: String, Sendable, Hashable, Codable, CaseIterable {
    /// 52 times a year.
    case weekly
    /// 12 times a year.
    case monthly
    /// 4 times a year.
    case quarterly
    /// Twice a year.
    case halfYearly = "half_yearly"
    /// Once a year.
    case yearly

    /// How many times a year it is due.
    public var periodsPerYear: Int {
        switch self {
        case .weekly: 52
        case .monthly: 12
        case .quarterly: 4
        case .halfYearly: 2
        case .yearly: 1
        }
    }

    /// The catalog key of its name.
    public var textKey: String { "rhythm.\(rawValue)" }
}

/// A contract from `GET /api/contracts`: its own amount and rhythm, and the server's monthly and yearly values
/// in the base currency (C-CON-1, C-CON-2).
public struct Contract: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The name ("Fitnessstudio").
    public let name: String
    /// The amount per period, in `currency`.
    public let amount: Amount
    /// The contract's own currency.
    public let currency: String
    /// How often it is due.
    public let rhythm: Rhythm
    /// The next due day (C-TIME-3).
    public let nextDue: CalendarDate
    /// The category; `nil` is listed like any other here, only the budget names it (C-CON-3).
    public let categoryID: Int?
    /// The account it is paid from.
    public let accountID: Int
    /// The server's monthly value in the base currency; `nil` when there is no exchange rate.
    public let monthly: Amount?
    /// The server's yearly value in the base currency; `nil` when there is no exchange rate.
    public let yearly: Amount?

    /// The amount with its own currency.
    public var money: Money { Money(amount, currency) }

    enum CodingKeys: String, CodingKey {
        case id, name, amount, currency, rhythm, monthly, yearly
        case nextDue = "next_due"
        case categoryID = "category_id"
        case accountID = "account_id"
    }
}
