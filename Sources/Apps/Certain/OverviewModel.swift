import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The overview tab's model.
///
/// Rules: a refresh reads the overview's snapshot through the kit: the stored one at once with its age, then
/// the four requests together, kept as one snapshot with one fetch time (C-OVER-2). If any one fails, nothing
/// from the attempt is shown or stored; the previous complete snapshot stays with its old time, and the error
/// is shown (C-OVER-3). Offline, the last snapshot is shown with its time (C-OFF-1). The accounts reply
/// refreshes the accounts lookup (C-OVER-6); pull-to-refresh reloads the lookups too (O-8). An overview with
/// nothing in any section is `empty` (C-ERR-1).
@Observable @MainActor
public final class OverviewModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<Overview> = .loading
    /// The lookups names are resolved from.
    public private(set) var lookups = Lookups()
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// The overview of `server`.
    public init(server: CertainServer) {
        self.server = server
    }

    /// The latest five as lines with their names (C-OVER-5).
    public var latestLines: [TransactionLine] {
        TransactionLine.lines(state.value?.latestRows ?? [], lookups: lookups, texts: texts)
    }

    /// Shows the stored snapshot (if any) at once with its age, then reads the four parts together;
    /// `pull: true` (pull-to-refresh) reloads the lookups too.
    public func refresh(pull: Bool = false) async {
        if pull { _ = try? await server.lookups.reload() }
        for await update in server.bundle.read(Overview.snapshot, showing: state, isEmpty: { $0.isEmpty }, { $0 }) {
            state = update.state
            if update.endsSignIn { await server.lookups.forget() }
        }
        guard let overview = state.value else {
            lookups = await server.lookups.current
            return
        }
        if state.kind == .content { await server.lookups.updateAccounts(overview.accounts) }
        lookups = await server.lookups.resolving(
            accounts: overview.latest.flatMap { [$0.accountID] + ($0.toAccountID.map { [$0] } ?? []) },
            categories: overview.latest.compactMap(\.categoryID)
                + overview.budget.groups.flatMap { $0.categories.map(\.categoryID) },
            tags: overview.latest.flatMap(\.tagIDs))
    }
}
