import Foundation

/// A category's line in a budget month: planned against actual, exactly as the server sent them (C-BUD-1).
public struct BudgetCategory: Sendable, Hashable, Codable {
    /// The category (its name comes from the lookups).
    public let categoryID: Int
    /// Expense, savings or income: decides whether overspending is red.
    public let kind: CategoryKind
    /// The plan, in the budget's currency.
    public let planned: Amount
    /// What happened, in the budget's currency.
    public let actual: Amount

    /// A line with the given values.
    public init(categoryID: Int, kind: CategoryKind, planned: Amount, actual: Amount) {
        (self.categoryID, self.kind, self.planned, self.actual) = (categoryID, kind, planned, actual)
    }

    /// Red only for a real overrun of spending (C-BUD-3 to C-BUD-5): an expense whose actual is above plan
    /// (a plan of 0 included). Putting aside more than planned, or earning more, overruns nothing.
    public var isRed: Bool { kind == .expense && actual > planned }

    enum CodingKeys: String, CodingKey {
        case kind, planned, actual
        case categoryID = "category_id"
    }
}

/// A group's line in a budget month, with its categories; the sums are the server's (C-BUD-10).
public struct BudgetGroup: Sendable, Hashable, Codable, Identifiable {
    /// The group's id.
    public let id: Int
    /// The group's name.
    public let name: String
    /// The server's planned sum.
    public let planned: Amount
    /// The server's actual sum.
    public let actual: Amount
    /// The categories, in the server's order.
    public let categories: [BudgetCategory]

    /// A group with the given values.
    public init(id: Int, name: String, planned: Amount, actual: Amount, categories: [BudgetCategory]) {
        (self.id, self.name, self.planned, self.actual, self.categories) = (id, name, planned, actual, categories)
    }

    /// Red when the group's expense categories together spent more than they planned (C-BUD-6): one category's
    /// overrun that another makes up for is red on the category only. Savings and income never count.
    ///
    /// This compares; it shows no sum of its own (the sums shown are the server's, C-BUD-10).
    public var isRed: Bool {
        let expenses = categories.filter { $0.kind == .expense }
        let planned = expenses.reduce(Decimal(0)) { $0 + $1.planned.value }
        let actual = expenses.reduce(Decimal(0)) { $0 + $1.actual.value }
        return actual > planned
    }
}

/// A notice under a budget month (or the contracts): something left out of the sums, named instead of hidden.
public enum BudgetNotice: Sendable, Hashable, Codable {
    /// A contract without a category: named, and in no category or group sum (C-BUD-7).
    case contractWithoutCategory(contractID: Int, name: String, amount: Money)
    /// Amounts in `currency` on `date` with no exchange rate: left out of the sums, never converted 1:1 (C-BUD-8).
    case missingExchangeRate(currency: String, date: CalendarDate, transactionIDs: [Int])
    /// A notice this version does not know, kept with its code so nothing is hidden.
    case other(code: String)

    enum CodingKeys: String, CodingKey {
        case code, name, amount, currency, date
        case contractID = "contract_id"
        case transactionIDs = "transaction_ids"
        case contractIDs = "contract_ids"
    }

    /// Decodes a server warning by its `code`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decode(String.self, forKey: .code)
        switch code {
        case "contract_without_category":
            self = .contractWithoutCategory(
                contractID: try container.decode(Int.self, forKey: .contractID),
                name: try container.decode(String.self, forKey: .name),
                amount: Money(
                    try container.decode(Amount.self, forKey: .amount),
                    try container.decode(String.self, forKey: .currency)))
        case "missing_exchange_rate":
            let ids =
                try container.decodeIfPresent([Int].self, forKey: .transactionIDs)
                ?? container.decodeIfPresent([Int].self, forKey: .contractIDs) ?? []
            self = .missingExchangeRate(
                currency: try container.decode(String.self, forKey: .currency),
                date: try container.decode(CalendarDate.self, forKey: .date), transactionIDs: ids)
        default:
            self = .other(code: code)
        }
    }

    /// Encodes the server's shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .contractWithoutCategory(let id, let name, let amount):
            try container.encode("contract_without_category", forKey: .code)
            try container.encode(id, forKey: .contractID)
            try container.encode(name, forKey: .name)
            try container.encode(amount.amount, forKey: .amount)
            try container.encode(amount.currency, forKey: .currency)
        case .missingExchangeRate(let currency, let date, let ids):
            try container.encode("missing_exchange_rate", forKey: .code)
            try container.encode(currency, forKey: .currency)
            try container.encode(date, forKey: .date)
            try container.encode(ids, forKey: .transactionIDs)
        case .other(let code):
            try container.encode(code, forKey: .code)
        }
    }

    /// The sentence a person reads.
    public func text(_ texts: Texts) -> String {
        switch self {
        case .contractWithoutCategory(_, let name, let amount):
            texts.format("notice.contract_without_category", name, amount.formatted(texts.language))
        case .missingExchangeRate(let currency, let date, _):
            texts.format("notice.missing_exchange_rate", currency, date.formatted(texts.language))
        case .other(let code): texts.format("notice.unknown", code)
        }
    }
}

/// One month of `GET /api/budget`: groups, notices, and the neighbouring months the server names.
public struct BudgetMonthReply: Sendable, Hashable, Codable {
    /// The month.
    public let month: BudgetMonth
    /// The currency of every sum.
    public let currency: String
    /// The path of the previous month with a budget, as sent (`/api/budget?month=2026-08`); `nil`: none (C-BUD-2).
    public let prev: String?
    /// The path of the next month with a budget, as sent; `nil`: none.
    public let next: String?
    /// The groups with their categories.
    public let groups: [BudgetGroup]
    /// What was left out of the sums.
    public let warnings: [BudgetNotice]
    /// The server's own flag: `false` when something was left out.
    public let complete: Bool

    /// Incomplete when there is any notice, or the server says so (C-BUD-9).
    public var isIncomplete: Bool { !warnings.isEmpty || !complete }

    /// The month the `prev` path names in its `month` query item, for a label; `nil` when there is none or the
    /// path names no month. Only read from the link: the client never computes a neighbouring month (C-BUD-2).
    public var previousMonth: BudgetMonth? { Self.month(named: prev) }

    /// The month the `next` path names, like ``previousMonth``.
    public var nextMonth: BudgetMonth? { Self.month(named: next) }

    private static func month(named link: String?) -> BudgetMonth? {
        guard let link, let items = URLComponents(string: link)?.queryItems,
            let text = items.first(where: { $0.name == "month" })?.value
        else { return nil }
        return BudgetMonth(text)
    }

    /// The month has no budget at all.
    public var isEmpty: Bool { groups.isEmpty }
}
