import CompanionHTTP
import CompanionStore
import Foundation

/// Reads a cursor (or page-numbered) list into the store page by page.
///
/// Rule: the first page replaces what is stored, each next page asks for the stored cursor and
/// appends in order, skipping ids already stored; a list whose last page said "no more" is not
/// read further (M-CASE-3, C-TXN-4).
public struct PagedList: Sendable {
    /// Reads one page: given the cursor (`nil` for the first page), returns it.
    public typealias Fetch = @Sendable (_ cursor: String?) async throws -> ListPage

    /// The store.
    public let store: OfflineStore
    /// The list's key.
    public let key: String
    /// How a page is read.
    public let fetch: Fetch

    /// Creates a paged list.
    public init(store: OfflineStore, key: String, fetch: @escaping Fetch) {
        self.store = store
        self.key = key
        self.fetch = fetch
    }

    /// Reads the first page again, replacing the stored list.
    @discardableResult
    public func refresh() async throws(SyncError) -> ListState {
        let page: ListPage
        do { page = try await fetch(nil) } catch { throw SyncError.wrap(error) }
        return try await store(page, replacing: true)
    }

    /// Reads the next page and appends it; returns the state (unchanged when the list is complete).
    @discardableResult
    public func loadNextPage() async throws(SyncError) -> ListState {
        let key = key
        let state: ListState?
        do { state = try await store.read { transaction throws(StoreError) in try transaction.listState(key) } } catch {
            throw .store(error)
        }
        guard let state else { return try await refresh() }
        guard !state.isComplete, let cursor = state.nextCursor else { return state }
        let page: ListPage
        do { page = try await fetch(cursor) } catch { throw SyncError.wrap(error) }
        return try await store(page, replacing: false)
    }

    /// Reads pages until the list is complete or `maxPages` were read.
    @discardableResult
    public func loadAll(maxPages: Int = 1_000) async throws(SyncError) -> ListState {
        var state = try await refresh()
        var pages = 1
        while !state.isComplete, pages < maxPages {
            state = try await loadNextPage()
            pages += 1
        }
        return state
    }

    private func store(_ page: ListPage, replacing: Bool) async throws(SyncError) -> ListState {
        let key = key
        do {
            return try await store.write { transaction throws(StoreError) in
                try transaction.storePage(page, list: key, replacing: replacing)
                guard let state = try transaction.listState(key) else { throw .notFound("list \(key)") }
                return state
            }
        } catch {
            throw .store(error)
        }
    }
}
