import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The loaded transactions: the submitted query, every page loaded so far, and their rows.
public struct TransactionList: Sendable, Hashable, Encodable {
    /// The query these pages answer.
    public let query: TransactionQuery
    /// Every transaction loaded, in the server's order, each id once (C-TXN-4).
    public let items: [Transaction]
    /// The cursor of the next page; `nil`: the end (C-TXN-4).
    public let nextCursor: String?

    /// The rows, paired over the whole loaded list (C-XFER-7).
    public var rows: [TransactionRow] { TransactionRows.rows(items) }

    enum CodingKeys: String, CodingKey {
        case query, items, rows
        case nextCursor = "next_cursor"
    }

    /// Encodes the query, the transactions, the rows built from them and the next cursor.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encode(items, forKey: .items)
        try container.encode(rows, forKey: .rows)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    /// The list with `page` appended, dropping ids already loaded.
    func appending(_ page: TransactionPage) -> TransactionList {
        let known = Set(items.map(\.id))
        return TransactionList(
            query: query, items: items + page.items.filter { !known.contains($0.id) }, nextCursor: page.nextCursor)
    }
}

/// The transactions tab's model.
///
/// Rules: the server searches and filters (C-TXN-1). Typing sends nothing; submitting sends one request with
/// `q`, every time (C-TXN-2); clearing sends one without `q`; choosing a filter value sends one at once
/// (C-TXN-3, O-10). The end of the list asks for `next_cursor` and appends (C-TXN-4). A search submitted
/// offline fails with "needs a connection": there is no local search (C-OFF-3).
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
    /// The texts.
    public let texts: Texts
    @ObservationIgnored private let connection: CertainConnection

    /// The transactions of `connection`, `pageSize` per page (the server allows up to 200).
    public init(connection: CertainConnection, pageSize: Int = 50) {
        self.connection = connection
        self.texts = connection.texts
        self.pageSize = min(200, max(1, pageSize))
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

    /// Loads the next page and appends it; nothing when the list is complete.
    public func loadMore() async {
        guard let list = state.value, let cursor = list.nextCursor, !isLoadingPage else { return }
        isLoadingPage = true
        defer { isLoadingPage = false }
        do {
            let page = try await connection.fetch(CertainAPI.transactions(list.query, limit: pageSize, cursor: cursor))
            let longer = list.appending(page)
            lookups = await resolve(longer.items)
            state = .content(longer, fetchedAt: connection.clock.now())
        } catch {
            state = ScreenFailure.state(
                after: error, showing: state, stored: nil, now: connection.clock.now(), texts: texts)
        }
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
        query = next
        do {
            let page = try await connection.fetch(CertainAPI.transactions(next, limit: pageSize))
            let list = TransactionList(query: next, items: [], nextCursor: nil).appending(page)
            lookups = await resolve(list.items)
            state = .content(list, fetchedAt: connection.clock.now())
        } catch {
            var failed = ScreenFailure.state(
                after: error, showing: state, stored: nil, now: connection.clock.now(), texts: texts)
            if error.isConnectivity {
                // No local fallback search: say that this needs the server (C-OFF-3).
                let reason = texts["error.needs_connection"]
                if let value = failed.value, case .offline(_, let age, _) = failed {
                    failed = .offline(value, age: age, reason: reason)
                } else {
                    failed = .failed(reason: reason, signInRequired: false)
                }
            }
            state = failed
        }
    }

    private func resolve(_ items: [Transaction]) async -> Lookups {
        await connection.resolving(
            accounts: items.flatMap { [$0.accountID] + ($0.toAccountID.map { [$0] } ?? []) },
            categories: items.compactMap(\.categoryID), tags: items.flatMap(\.tagIDs))
    }
}
