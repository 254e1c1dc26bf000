import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The overview: four sections in a fixed order (C-OVER-1), fetched together as one snapshot (C-OVER-2).
public struct Overview: Sendable, Hashable, Codable {
    /// Section 1: the month's income and expenses.
    public let month: MonthReport
    /// Section 2: budget progress per group (red by C-BUD-6).
    public let budget: BudgetMonthReply
    /// Section 3: account balances.
    public let accounts: [Account]
    /// Section 4: the latest five transactions, as rows (the same builder as the transactions tab, C-OVER-5).
    public let latest: [Transaction]

    /// The latest transactions as rows: pairing applies to these five alone (C-OVER-5).
    public var latestRows: [TransactionRow] { TransactionRows.rows(latest) }

    /// The section names, in their one order (C-OVER-1).
    public static let sections = ["overview.month", "overview.budget", "overview.accounts", "overview.latest"]
}

/// The overview tab's model.
///
/// Rules: a refresh sends its four requests at once and keeps them as one snapshot with one fetch time
/// (C-OVER-2); if any one fails, nothing from the attempt is shown or stored, the previous complete snapshot
/// stays with its old time, and the error is shown (C-OVER-3). Offline, the last snapshot is shown with its
/// time (C-OFF-1). Pull-to-refresh also reloads the lookups (O-8).
@Observable @MainActor
public final class OverviewModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<Overview> = .loading
    /// The lookups names are resolved from.
    public private(set) var lookups = Lookups()
    /// The texts.
    public let texts: Texts
    @ObservationIgnored private let connection: CertainConnection

    /// The overview of `connection`.
    public init(connection: CertainConnection) {
        self.connection = connection
        self.texts = connection.texts
    }

    /// Shows the stored snapshot (if any) at once, as stale, then refreshes.
    public func appear() async {
        if case .loading = state, let stored: Stored<Overview> = await connection.stored("overview") {
            state = .stale(stored.value, age: age(of: stored.fetchedAt), problem: nil)
        }
        await refresh()
    }

    /// Fetches the four parts together; `pull: true` (pull-to-refresh) reloads the lookups too.
    public func refresh(pull: Bool = false) async {
        let connection = self.connection
        if pull { _ = try? await connection.reloadLookups() }
        do {
            async let month = connection.fetch(CertainAPI.monthReport)
            async let budget = connection.fetch(CertainAPI.budget())
            async let accounts = connection.fetch(CertainAPI.accounts)
            async let latest = connection.fetch(CertainAPI.transactions(TransactionQuery(), limit: 5))
            let overview = Overview(
                month: try await month, budget: try await budget, accounts: try await accounts,
                latest: try await latest.items)
            let fetchedAt = connection.clock.now()
            try? await connection.save("overview", overview, fetchedAt: fetchedAt)
            await connection.updateAccounts(overview.accounts)
            lookups = await connection.resolving(
                accounts: overview.latest.flatMap { [$0.accountID] + ($0.toAccountID.map { [$0] } ?? []) },
                categories: overview.latest.compactMap(\.categoryID)
                    + overview.budget.groups.flatMap { $0.categories.map(\.categoryID) })
            state = .content(overview, fetchedAt: fetchedAt)
        } catch {
            let stored: Stored<Overview>? = await connection.stored("overview")
            lookups = await connection.resolving()
            state = ScreenFailure.state(
                after: error, showing: state, stored: stored, now: connection.clock.now(), texts: texts)
        }
    }

    private func age(of date: Date) -> TimeInterval { max(0, connection.clock.now().timeIntervalSince(date)) }
}
