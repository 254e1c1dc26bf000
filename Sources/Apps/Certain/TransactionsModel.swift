import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// The transactions tab's model.
///
/// Rules: the server searches and filters (C-TXN-1). Typing sends nothing; submitting sends one request with
/// `q`, every time (C-TXN-2); clearing sends one without `q`; choosing a filter value sends one at once
/// (C-TXN-3, O-10). The end of the list asks for `next_cursor` and appends (C-TXN-4). A newer search always
/// wins: the reply (a first page or a later one) of a search that was replaced meanwhile is dropped, however
/// late it arrives. A search submitted offline fails with "needs a connection": pages are read with the kit's
/// `.fresh` policy, never from the store, so there is no local search (C-OFF-3). No hit at all is `empty`.
@Observable @MainActor
public final class TransactionsModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<TransactionList> = .loading
    /// The search field's text, as typed; sent only on `submit()`.
    public var searchText = ""
    /// The query of the last request.
    public private(set) var query = TransactionQuery()
    /// The lookups names come from.
    public private(set) var lookups = Lookups()
    /// Whether a page is being loaded.
    public private(set) var isLoadingPage = false
    /// The page size.
    public let pageSize: Int
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }
    /// Counts the searches started: a reply of an older one is dropped.
    @ObservationIgnored private var generation = 0

    /// The transactions of `server`, `pageSize` per page (the server allows up to 200).
    public init(server: CertainServer, pageSize: Int = 50) {
        self.server = server
        self.pageSize = min(200, max(1, pageSize))
    }

    /// The rows as lines with their names (category, tags, accounts).
    public var lines: [TransactionLine] {
        TransactionLine.lines(state.value?.rows ?? [], lookups: lookups, texts: texts)
    }

    /// Loads the first page of the current query.
    public func load() async { await run(query) }

    /// Sends the typed search text (one request, even when it did not change).
    public func submit() async {
        var next = query
        next.search = searchText.trimmingCharacters(in: .whitespacesAndNewlines)
        await run(next)
    }

    /// Clears the search and loads without `q`.
    public func clearSearch() async {
        searchText = ""
        var next = query
        next.search = ""
        await run(next)
    }

    /// Filters by account (`nil`: all), at once.
    public func filter(account: Int?) async {
        var next = query
        next.accountID = account
        await run(next)
    }

    /// Filters by category (`nil`: all), at once.
    public func filter(category: Int?) async {
        var next = query
        next.categoryID = category
        await run(next)
    }

    /// Filters by tag (`nil`: all), at once.
    public func filter(tag: Int?) async {
        var next = query
        next.tagID = tag
        await run(next)
    }

    /// Filters by a date range (either end may be open), at once.
    public func filter(from: CalendarDate?, to: CalendarDate?) async {
        var next = query
        next.from = from
        next.to = to
        await run(next)
    }

    /// Sends `query` (search and filters together) as one request; the search field shows its text.
    public func apply(_ query: TransactionQuery) async {
        searchText = query.search
        await run(query)
    }

    /// Loads the next page and appends it; nothing when the list is complete. A search started meanwhile wins:
    /// this page is then dropped.
    public func loadMore() async {
        guard let list = state.value, let cursor = list.nextCursor, !isLoadingPage else { return }
        let mine = generation
        isLoadingPage = true
        defer { isLoadingPage = false }
        let request = CertainAPI.transactions(list.query, limit: pageSize, cursor: cursor)
        for await update in server.bundle.read(request, policy: .fresh, showing: state, { list.appending($0) }) {
            if update.endsSignIn { await server.lookups.forget() }
            guard mine == generation else { return }
            state = update.state
        }
        await resolveNames(mine)
    }

    /// Loads every remaining page (the CLI's `--all`).
    public func loadAll() async {
        while let list = state.value, list.nextCursor != nil {
            let before = list.items.count
            await loadMore()
            if (state.value?.items.count ?? before) == before { break }
        }
    }

    private func run(_ next: TransactionQuery) async {
        generation += 1
        let mine = generation
        query = next
        let request = CertainAPI.transactions(next, limit: pageSize)
        let reads = server.bundle.read(
            request, policy: .fresh, showing: state, isEmpty: { $0.items.isEmpty },
            { TransactionList(query: next, page: $0) })
        for await update in reads {
            if update.endsSignIn { await server.lookups.forget() }
            guard mine == generation else { return }
            state = noLocalSearch(update)
        }
        await resolveNames(mine)
    }

    /// A search that could not reach the server says it needs one: there is no local search (C-OFF-3).
    private func noLocalSearch(_ update: ScreenUpdate<TransactionList>) -> ScreenState<TransactionList> {
        guard update.failure?.isConnectivity == true else { return update.state }
        let reason = texts["error.needs_connection"]
        if case .offline(let value, let age, _) = update.state { return .offline(value, age: age, reason: reason) }
        return .failed(reason: reason, signInRequired: false)
    }

    private func resolveNames(_ mine: Int) async {
        let items = state.value?.items ?? []
        let resolved = await server.lookups.resolving(
            accounts: items.flatMap { [$0.accountID] + ($0.toAccountID.map { [$0] } ?? []) },
            categories: items.compactMap(\.categoryID), tags: items.flatMap(\.tagIDs))
        if mine == generation { lookups = resolved }
    }
}
