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

    /// An overview of the four replies (a preview's or a test's; the app reads it as one snapshot).
    public init(month: MonthReport, budget: BudgetMonthReply, accounts: [Account], latest: [Transaction]) {
        self.month = month
        self.budget = budget
        self.accounts = accounts
        self.latest = latest
    }

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

    /// What was left out of the month's sums and of its budget (a booking without an exchange rate, a contract
    /// without a category), each once, the month report's first: the overview shows them, as the budget does.
    public var notices: [BudgetNotice] {
        var seen = Set<BudgetNotice>()
        return (month.warnings + budget.warnings).filter { seen.insert($0).inserted }
    }

    /// Whether the month's figures are incomplete: a notice in the month report or the budget, or a budget the
    /// server says is not complete (C-BUD-9). Income and expenses are then shown marked, never as if complete.
    public var isIncomplete: Bool { !month.warnings.isEmpty || budget.isIncomplete }

    /// Nothing in any section: no money this month, no budget, no account, no transaction (C-ERR-1).
    public var isEmpty: Bool {
        month.income.value == 0 && month.expenses.value == 0 && budget.isEmpty && accounts.isEmpty && latest.isEmpty
    }

    /// The overview's snapshot group for `month` (the person's own, `CertainServer.thisMonth`): its month
    /// report, its budget, the accounts and the latest five, fetched at once and stored whole with one time, or
    /// not at all (C-OVER-2, C-OVER-3).
    public static func snapshot(_ month: BudgetMonth) -> Snapshot<Overview> {
        let report = CertainAPI.monthReport(month)
        let budget = CertainAPI.budget(month)
        return Snapshot<Overview>(
            "overview",
            members: ["month": report, "budget": budget, "accounts": CertainAPI.accounts, "latest": CertainAPI.latest]
        ) { members throws(HTTPError) in
            Overview(
                month: try members.value(report), budget: try members.value(budget),
                accounts: try members.value(CertainAPI.accounts), latest: try members.value(CertainAPI.latest).items)
        }
    }
}
