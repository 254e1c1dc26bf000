import CompanionApp
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The transactions tab's model.
///
/// Rules: the server searches and filters (C-TXN-1). Typing sends nothing; submitting sends one request with
/// `q`, every time (C-TXN-2); clearing sends one without `q`; choosing a filter value sends one at once
/// (C-TXN-3, O-10). Each query is one of the kit's paged lists (`list(_:pageSize:)`) shown by a kit feed: the
/// end of the list reads the `next_cursor` page into it with the feed's own `loadMore()` (`feed?.loadMore()`, or
/// `loadAll()` for every page), each id once (C-TXN-4); the names of every page read are resolved after each read
/// (the feed's `afterEachRead`), however the page was asked for. A newer search always wins: the
/// screen shows the newest query's feed, so a reply (a first page or a later one) of a search that was replaced
/// meanwhile never reaches it, however late it arrives. A search submitted offline fails with "needs a
/// connection": the first page is read with the kit's `.fresh` policy, never from the store, so there is no
/// local search (C-OFF-3, worded by the profile). No hit at all is `empty`.
@Observable @MainActor
public final class TransactionsModel {
    /// The key every transactions list is stored under starts with this.
    public nonisolated static let listKey = "list:certain.transactions:"

    /// The kit's paged list of `query`, `pageSize` per page.
    public nonisolated static func list(_ query: TransactionQuery, pageSize: Int) -> PagedList<
        TransactionPage, Transaction
    > {
        PagedList(
            key: listKey + CachedFetcher.key(for: CertainAPI.transactions(query, limit: pageSize)),
            page: { CertainAPI.transactions(query, limit: pageSize, cursor: $0) }, items: { $0.items },
            id: { String($0.id) }, nextCursor: { $0.nextCursor })
    }

    /// The feed of the query shown; `nil` before the first load.
    public private(set) var feed: ScreenFeed<TransactionList>?
    /// The search field's text, as typed; sent only on `submit()`.
    public var searchText = ""
    /// The query of the last request.
    public private(set) var query = TransactionQuery()
    /// The lookups names are resolved from.
    public private(set) var lookups = Lookups()
    /// The page size.
    public let pageSize: Int
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// The transactions of `server`, `pageSize` per page (the server allows up to 200).
    public init(server: CertainServer, pageSize: Int = 50) {
        self.server = server
        self.pageSize = min(200, max(1, pageSize))
    }

    /// What the screen shows.
    public var state: ScreenState<TransactionList> { feed?.state ?? .loading }

    /// Whether a next page is being loaded.
    public var isLoadingPage: Bool { feed?.isLoadingMore ?? false }

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

    private func run(_ next: TransactionQuery) async {
        let shown: ScreenFeed<TransactionList>
        if let feed, next == query {
            shown = feed  // the same query again: one more request, what is shown stays meanwhile
        } else {
            shown = server.bundle.feed(
                Self.list(next, pageSize: pageSize), policy: .fresh, isEmpty: { $0.items.isEmpty },
                { TransactionList(query: next, paged: $0) }
            )
            .afterEachRead { [weak self] in await self?.readEnded($0) }
            feed = shown
        }
        query = next
        await shown.refresh()
    }

    /// After every read of a feed (its first page, a next page, a stored copy shown): a refusal that ends the
    /// sign-in forgets the lookups; then the names of the rows shown are resolved. A page of a search that was
    /// replaced meanwhile goes to the replaced query's list, which the screen no longer shows.
    private func readEnded(_ shown: ScreenFeed<TransactionList>) async {
        if shown.endsSignIn { await server.lookups.forget() }
        let items = shown.value?.items ?? []
        let resolved = await server.lookups.resolving(
            accounts: items.flatMap { [$0.accountID] + ($0.toAccountID.map { [$0] } ?? []) },
            categories: items.compactMap(\.categoryID), tags: items.flatMap(\.tagIDs), readAt: shown.state.fetchedAt)
        if shown === feed { lookups = resolved }
    }
}
