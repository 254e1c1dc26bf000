import CompanionHTTP
import CompanionSync
import Foundation

/// The overview: four sections in a fixed order (C-OVER-1), read together as one snapshot (C-OVER-2).
public struct Overview: Sendable, Hashable, Encodable {
    /// Section 1: the month's income and expenses.
    public let month: MonthReport
    /// Section 2: budget progress per group (red by C-BUD-6).
    public let budget: BudgetMonthReply
    /// Section 3: account balances.
    public let accounts: [Account]
    /// Section 4: the latest five transactions (the same row builder as the transactions tab, C-OVER-5).
    public let latest: [Transaction]

    /// The four sections, in their one order (C-OVER-1).
    public enum Section: String, Sendable, Hashable, CaseIterable, Codable {
        /// The month's income and expenses.
        case month
        /// Budget progress per group.
        case budget
        /// Account balances.
        case accounts
        /// The latest transactions.
        case latest

        /// The section's title key in the catalogs.
        public var textKey: String { "overview.\(rawValue)" }
    }

    /// The sections as a view lays them out: always all four, always in this order, whatever the web's grid
    /// says (the core reads no layout).
    public var sections: [Section] { Section.allCases }

    /// The latest transactions as rows: pairing applies to these five alone (C-OVER-5).
    public var latestRows: [TransactionRow] { TransactionRows.rows(latest) }

    /// Nothing in any section: no money this month, no budget, no account, no transaction (C-ERR-1).
    public var isEmpty: Bool {
        month.income.value == 0 && month.expenses.value == 0 && budget.isEmpty && accounts.isEmpty && latest.isEmpty
    }

    /// The overview's snapshot group: the month report, the current budget, the accounts and the latest five,
    /// fetched at once and stored whole with one time, or not at all (C-OVER-2, C-OVER-3).
    public static let snapshot = Snapshot<Overview>(
        "overview",
        members: [
            "month": CertainAPI.monthReport, "budget": CertainAPI.budget(), "accounts": CertainAPI.accounts,
            "latest": CertainAPI.latest,
        ]
    ) { members throws(HTTPError) in
        Overview(
            month: try members.value(CertainAPI.monthReport), budget: try members.value(CertainAPI.budget()),
            accounts: try members.value(CertainAPI.accounts), latest: try members.value(CertainAPI.latest).items)
    }
}
