import CompanionApp
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The overview tab's model.
///
/// Rules: the overview is one kit feed of the overview's snapshot for the person's own month
/// (`CertainServer.thisMonth`): the stored one at once with its age, then the four requests together, kept as
/// one snapshot with one fetch time (C-OVER-2). If any one fails, nothing from the attempt is shown or stored;
/// the previous complete snapshot stays with its old time, and the error is shown (C-OVER-3). Offline, the last
/// snapshot is shown with its time (C-OFF-1). The accounts reply refreshes the accounts lookup (C-OVER-6);
/// pull-to-refresh reloads the lookups too (O-8). An overview with nothing in any section is `empty` (C-ERR-1).
/// The month report's and the budget's notices are shown, and the month's figures marked incomplete when there
/// is any (`Overview.notices`, `Overview.isIncomplete`).
@Observable @MainActor
public final class OverviewModel {
    /// The overview's feed (of the month it was last refreshed in).
    public private(set) var feed: ScreenFeed<Overview>
    /// The lookups names are resolved from.
    public private(set) var lookups = Lookups()
    /// The month the feed shows.
    public private(set) var month: BudgetMonth
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// What the screen shows.
    public var state: ScreenState<Overview> { feed.state }

    /// The overview of `server`.
    public init(server: CertainServer) {
        let month = server.thisMonth
        self.server = server
        self.month = month
        feed = Self.feed(server, month)
    }

    private static func feed(_ server: CertainServer, _ month: BudgetMonth) -> ScreenFeed<Overview> {
        server.bundle.feed(Overview.snapshot(month), isEmpty: { $0.isEmpty }, { $0 })
    }

    /// The latest five as lines with their names (C-OVER-5).
    public var latestLines: [TransactionLine] {
        TransactionLine.lines(state.value?.latestRows ?? [], lookups: lookups, texts: texts)
    }

    /// The notices of the month and its budget as sentences.
    public var notices: [String] { (state.value?.notices ?? []).map { $0.text(texts) } }

    /// Shows the stored snapshot (if any) at once with its age, then reads the four parts together;
    /// `pull: true` (pull-to-refresh) reloads the lookups too. A new month (the person's clock moved on)
    /// starts the new month's overview.
    public func refresh(pull: Bool = false) async {
        if pull { _ = try? await server.lookups.reload() }
        let now = server.thisMonth
        if now != month {
            month = now
            feed = Self.feed(server, now)
        }
        await feed.refresh()
        if feed.endsSignIn { await server.lookups.forget() }
        guard let overview = state.value else {
            lookups = await server.lookups.current
            return
        }
        if state.kind == .content { await server.lookups.updateAccounts(overview.accounts) }
        lookups = await server.lookups.resolving(
            accounts: overview.latest.flatMap { [$0.accountID] + ($0.toAccountID.map { [$0] } ?? []) },
            categories: overview.latest.compactMap(\.categoryID)
                + overview.budget.groups.flatMap { $0.categories.map(\.categoryID) },
            tags: overview.latest.flatMap(\.tagIDs), readAt: state.fetchedAt)
    }
}
