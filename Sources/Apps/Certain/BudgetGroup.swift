import Foundation

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
