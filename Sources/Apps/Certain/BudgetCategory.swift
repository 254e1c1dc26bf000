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
