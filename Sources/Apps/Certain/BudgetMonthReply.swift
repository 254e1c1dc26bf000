import Foundation

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

    /// The groups shown red (C-BUD-6), by id, in the server's order.
    public var redGroupIDs: [Int] { groups.filter(\.isRed).map(\.id) }

    /// The categories shown red (C-BUD-3 to C-BUD-5), by id, in the server's order.
    public var redCategoryIDs: [Int] { groups.flatMap(\.categories).filter(\.isRed).map(\.categoryID) }

    /// The month has no budget at all: the screen is `empty` (C-ERR-1), its links still page (C-BUD-2).
    public var isEmpty: Bool { groups.isEmpty }
}
