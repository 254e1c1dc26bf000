import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import Foundation

extension ServerBundle {
    // MARK: Feeds

    /// A feed of `request` through the store: what a screen showing its reply holds.
    ///
    /// - Parameters:
    ///   - request: The read.
    ///   - policy: The fetch policy of a refresh that names none.
    ///   - isEmpty: Whether a fresh answer has nothing to show (`empty`, with its value).
    ///   - transform: What the screen shows of the reply.
    @MainActor
    public func feed<Response: Sendable, Value: Sendable & Equatable>(
        _ request: Request<Response>, policy: FetchPolicy = .staleWhileRevalidate,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> ScreenFeed<Value> {
        let fetcher = self.fetcher
        let key = CachedFetcher.key(for: request)
        return ScreenFeed(
            source: FeedSource(
                bundle: self, policy: policy, key: key, region: .resource(key), isEmpty: isEmpty,
                load: { policy in Self.mapped(fetcher.load(request, policy: policy)) { Published($0).map(transform) } },
                stored: {
                    guard let stored = try? await fetcher.loadLatest(request, policy: .offline) else { return nil }
                    return Published(stored).map(transform)
                }))
    }

    /// A feed of `request` whose screen shows the reply itself.
    @MainActor
    public func feed<Value: Sendable & Equatable>(
        _ request: Request<Value>, policy: FetchPolicy = .staleWhileRevalidate,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false }
    ) -> ScreenFeed<Value> {
        feed(request, policy: policy, isEmpty: isEmpty) { $0 }
    }

    /// A feed of `snapshot`, all or nothing: the stored group with its one time, then a fresh one stored whole.
    @MainActor
    public func feed<Response: Sendable, Value: Sendable & Equatable>(
        _ snapshot: Snapshot<Response>, policy: FetchPolicy = .staleWhileRevalidate,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> ScreenFeed<Value> {
        let snapshots = self.snapshots
        return ScreenFeed(
            source: FeedSource(
                bundle: self, policy: policy, key: snapshot.name, region: .group(snapshot.name), isEmpty: isEmpty,
                load: { policy in Self.mapped(snapshots.load(snapshot, policy: policy)) { Published($0).map(transform) }
                },
                stored: { try await snapshots.stored(snapshot).map { Published($0).map(transform) } }))
    }

    /// A feed of a paged list kept in the store: a refresh reads the first page (replacing the stored list),
    /// `loadMore()` the next one; the screen shows every stored item (`empty` when there is none).
    @MainActor
    public func feed<Page: Sendable, Item>(
        _ list: PagedList<Page, Item>, policy: FetchPolicy = .staleWhileRevalidate
    ) -> ScreenFeed<Paged<Item>> {
        feed(list, policy: policy, isEmpty: { $0.items.isEmpty }, { $0 })
    }

    /// A feed of a paged list kept in the store, whose screen shows `transform` of the stored list.
    @MainActor
    public func feed<Page: Sendable, Item, Value: Sendable & Equatable>(
        _ list: PagedList<Page, Item>, policy: FetchPolicy = .staleWhileRevalidate,
        isEmpty: @escaping @Sendable (Value) -> Bool, _ transform: @escaping @Sendable (Paged<Item>) -> Value
    ) -> ScreenFeed<Value> {
        let pages = PagedStore(list: list, client: client, store: store)
        let load: @Sendable (FetchPolicy) -> AsyncThrowingStream<Published<Value>, any Error> = { policy in
            Self.mapped(pages.load(policy: policy)) { (paged: Published<Paged<Item>>) in paged.map(transform) }
        }
        let stored: @Sendable () async throws -> Published<Value>? = {
            let paged: Published<Paged<Item>>? = try await pages.stored()
            return paged?.map(transform)
        }
        let more: @Sendable () async -> Bool = {
            let paged: Published<Paged<Item>>? = try? await pages.stored()
            return paged?.value.hasMore ?? false
        }
        var source = FeedSource<Value>(
            bundle: self, policy: policy, key: list.key, region: .list(list.key), isEmpty: isEmpty, load: load,
            stored: stored)
        source.more = { try await pages.readNext() }
        source.hasMore = more
        return ScreenFeed(source: source)
    }

    /// A feed of data a live channel keeps in the store: it makes no request of its own (the channel's events
    /// are store writes), and `read` says, from the store alone, what the screen shows and since when it is
    /// current.
    ///
    /// Rules: a refresh and every committed write of `region` show what `read` returns: `content` (or `empty`)
    /// while it is live, `stale` with its age (now − `syncedAt`) when not, so at launch, before any network, and
    /// after the connection drops, the last values show with their age and never a blank screen; nothing stored
    /// yet keeps the feed `loading`.
    @MainActor
    public func feed<Value: Sendable & Equatable>(
        live region: StoreRegion, key: String, isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        read: @escaping @Sendable (StoreTransaction) throws(StoreError) -> LiveStored<Value>?
    ) -> ScreenFeed<Value> {
        let store = self.store
        let stored: @Sendable () async throws -> Published<Value>? = {
            guard let live = try await store.read(read) else { return nil }
            let age = max(0, store.clock.now().timeIntervalSince(live.syncedAt))
            return Published(
                value: live.value, isFresh: live.isLive, fetchedAt: live.syncedAt, age: live.isLive ? 0 : age,
                failure: nil)
        }
        var source = FeedSource<Value>(
            bundle: self, policy: .offline, key: key, region: region, isEmpty: isEmpty,
            load: { _ in
                let (stream, continuation) = AsyncThrowingStream<Published<Value>, any Error>.makeStream()
                let task = Task {
                    do {
                        if let value = try await stored() { continuation.yield(value) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
                return stream
            }, stored: stored)
        source.storedIsCurrent = true
        return ScreenFeed(source: source)
    }

    // MARK: Writes that screens observe

    /// Stores `item` in place of the stored item with the same id in `list` (a saved edit, a pushed event):
    /// every feed of the list shows it at once. Returns whether the item was stored (`false`: not in the list).
    @discardableResult
    public func store<Page, Item>(_ item: Item, in list: PagedList<Page, Item>) async throws(SyncError) -> Bool {
        let body = try PagedStore<Page, Item>.encode(item)
        let id = list.id(item)
        do {
            return try await store.write { transaction throws(StoreError) in
                try transaction.updateItem(id, in: list.key, body: body)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Changes the stored reply of `request` (an event that says what changed in it): it is decoded as the
    /// request decodes it, changed by `change` and stored again, stamped now, in one transaction; every feed of it
    /// shows the change. Returns whether a reply was stored.
    @discardableResult
    public func update<Response: Codable & Sendable>(
        _ request: Request<Response>, _ change: @escaping @Sendable (inout Response) -> Void
    ) async throws(SyncError) -> Bool {
        let client = self.client
        let key = CachedFetcher.key(for: request)
        do throws(StoreError) {
            return try await store.write { transaction throws(StoreError) -> Bool in
                guard var resource = try transaction.resource(key) else { return false }
                var headers = HTTPHeaders()
                if let mediaType = resource.mediaType { headers["Content-Type"] = mediaType }
                var value: Response
                do throws(HTTPError) {
                    value = try client.decode(
                        request, body: resource.body, response: HTTPResponse(status: 200, headers: headers))
                    change(&value)
                    resource.body = try Client.encodeJSON(value)
                } catch {
                    throw .encoding("the stored reply \(key) could not be changed: \(error.description)")
                }
                resource.mediaType = "application/json"
                resource.etag = nil
                resource.lastModified = nil
                resource.fetchedAt = transaction.now
                try transaction.put(resource)
                return true
            }
        } catch {
            throw .store(error)
        }
    }

    /// Changes the stored item `id` in every stored list whose key starts with `prefix` (a record saved on one
    /// screen, listed on several): each is decoded as `Item`, changed by `change` and stored in place, in one
    /// transaction; every feed of those lists shows it. Returns how many lists held it.
    @discardableResult
    public func update<Item: Codable & Sendable>(
        _ type: Item.Type, id: String, inListsUnder prefix: String,
        _ change: @escaping @Sendable (inout Item) -> Void
    ) async throws(SyncError) -> Int {
        let client = self.client
        do throws(StoreError) {
            return try await store.write { transaction throws(StoreError) -> Int in
                var changed = 0
                for key in try transaction.listKeys(prefix: prefix) {
                    for item in try transaction.items(key) where item.id == id {
                        var value: Item
                        do throws(HTTPError) { value = try client.decode(Item.self, from: item.body) } catch {
                            throw .encoding("the stored item \(id) of list \(key) could not be read: \(error)")
                        }
                        change(&value)
                        let body: Data
                        do throws(HTTPError) { body = try Client.encodeJSON(value) } catch {
                            throw .encoding("the item \(id) could not be stored: \(error.description)")
                        }
                        if try transaction.updateItem(id, in: key, body: body) { changed += 1 }
                    }
                }
                return changed
            }
        } catch {
            throw .store(error)
        }
    }

    /// Removes the item `id` from the stored `list` (it left the list on the server): every feed of the list
    /// shows the list without it. Returns whether it was stored.
    @discardableResult
    public func remove<Page, Item>(_ id: String, from list: PagedList<Page, Item>) async throws(SyncError) -> Bool {
        do {
            return try await store.write { transaction throws(StoreError) in
                try transaction.removeItem(id, from: list.key)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Says that the stored reply of `request` is out of date (an event said so without the new data): every
    /// feed of it reads it from the server again.
    public func invalidate(_ request: any AnyRequest) async throws(SyncError) {
        try await invalidate(key: CachedFetcher.key(for: request))
    }

    /// Says that the stored `list` is out of date: every feed of it reads its first page again.
    public func invalidate<Page, Item>(_ list: PagedList<Page, Item>) async throws(SyncError) {
        try await invalidate(key: list.key)
    }

    private func invalidate(key: String) async throws(SyncError) {
        do {
            try await store.write { transaction throws(StoreError) in transaction.invalidate(key) }
        } catch {
            throw .store(error)
        }
    }

    /// `loads` with each element turned into what a feed publishes.
    static func mapped<Element: Sendable, Value: Sendable>(
        _ loads: AsyncThrowingStream<Element, any Error>, _ transform: @escaping @Sendable (Element) -> Published<Value>
    ) -> AsyncThrowingStream<Published<Value>, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Published<Value>, any Error>.makeStream()
        let task = Task {
            do {
                for try await loaded in loads { continuation.yield(transform(loaded)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// A value a read published, whatever it read (a reply, a group, a stored list): the feed's one input.
struct Published<Value: Sendable>: Sendable {
    /// The value.
    var value: Value
    /// Whether the server gave it in this read (not a stored copy).
    var isFresh: Bool
    /// When it was fetched.
    var fetchedAt: Date
    /// Its age when published, in seconds.
    var age: TimeInterval
    /// For a stored copy shown because the network failed: that failure.
    var failure: HTTPError?

    init(value: Value, isFresh: Bool, fetchedAt: Date, age: TimeInterval, failure: HTTPError?) {
        self.value = value
        self.isFresh = isFresh
        self.fetchedAt = fetchedAt
        self.age = age
        self.failure = failure
    }

    init(_ loaded: Loaded<Value>) {
        self.init(
            value: loaded.value, isFresh: loaded.origin != .cache, fetchedAt: loaded.fetchedAt, age: loaded.age,
            failure: loaded.failure)
    }

    func map<Other: Sendable>(_ transform: (Value) -> Other) -> Published<Other> {
        Published<Other>(value: transform(value), isFresh: isFresh, fetchedAt: fetchedAt, age: age, failure: failure)
    }
}

/// A paged list's pages in the store: read, stored and read back.
struct PagedStore<Page: Sendable, Item: Codable & Sendable & Equatable>: Sendable {
    let list: PagedList<Page, Item>
    let client: Client
    let store: OfflineStore

    /// The stored list, decoded, with its fetch time and age; `nil` when none is stored.
    func stored() async throws(SyncError) -> Published<Paged<Item>>? {
        let key = list.key
        let read: (ListState, [ListItem])?
        do { read = try await store.list(key) } catch { throw .store(error) }
        guard let (state, rows) = read else { return nil }
        var items: [Item] = []
        items.reserveCapacity(rows.count)
        for row in rows {
            do {
                items.append(try client.decode(Item.self, from: row.body))
            } catch {
                throw .undecodable(key: key, detail: "item \(row.id): \(error.description)")
            }
        }
        return Published(
            value: Paged(items: items, nextCursor: state.nextCursor, revision: state.revision), isFresh: false,
            fetchedAt: state.fetchedAt, age: max(0, store.clock.now().timeIntervalSince(state.fetchedAt)),
            failure: nil)
    }

    /// Publishes what `policy` allows, as `CachedFetcher.load` does for one reply: the stored list with its age,
    /// then the first page read and stored (the list is then that page).
    func load(policy: FetchPolicy) -> AsyncThrowingStream<Published<Paged<Item>>, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Published<Paged<Item>>, any Error>.makeStream()
        let task = Task {
            do {
                try await run(policy) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Reads the page after the stored list's cursor and appends it; nothing when the list is complete.
    func readNext() async throws(SyncError) {
        let state: ListState?
        do {
            state = try await store.read { transaction throws(StoreError) in try transaction.listState(list.key) }
        } catch {
            throw .store(error)
        }
        guard let cursor = state?.nextCursor else { return }
        let page: Page
        do { page = try await client.send(list.page(cursor)) } catch { throw .http(error) }
        try await write(page, replacing: false)
    }

    private func run(_ policy: FetchPolicy, publish: (Published<Paged<Item>>) -> Void) async throws(SyncError) {
        let cached = policy.cacheRead == .never && policy.network != .never ? nil : try await stored()
        var published = false
        if policy.cacheRead == .beforeNetwork, let cached {
            publish(cached)
            published = true
        }
        let useNetwork: Bool
        switch policy.network {
        case .never: useNetwork = false
        case .always: useNetwork = true
        case .onCacheMiss: useNetwork = !published
        }
        guard useNetwork else {
            if !published { throw .notCached(key: list.key) }
            return
        }
        let page: Page
        do {
            page = try await client.send(list.page(nil))
        } catch {
            if policy.cacheRead == .onNetworkFailure, var cached {
                cached.failure = error
                publish(cached)
                return
            }
            if cached == nil || policy.cacheRead == .never { throw .offlineWithoutCache(key: list.key, cause: error) }
            throw .http(error)
        }
        try await write(page, replacing: true)
        guard var fresh = try await stored() else { throw .notCached(key: list.key) }
        fresh.isFresh = true
        fresh.age = 0
        publish(fresh)
    }

    private func write(_ page: Page, replacing: Bool) async throws(SyncError) {
        var rows: [(id: String, body: Data)] = []
        for item in list.items(page) { rows.append((list.id(item), try Self.encode(item))) }
        let stored = ListPage(items: rows, nextCursor: list.nextCursor(page), revision: list.revision(page))
        let key = list.key
        do {
            _ = try await store.write { transaction throws(StoreError) in
                try transaction.storePage(stored, list: key, replacing: replacing)
            }
        } catch {
            throw .store(error)
        }
    }

    /// An item as the store keeps it: the kit's JSON.
    static func encode(_ item: Item) throws(SyncError) -> Data {
        do { return try Client.encodeJSON(item) } catch {
            throw .store(.encoding("an item of the list could not be stored: \(error.description)"))
        }
    }
}

/// What a live feed reads from the store: the value, when it was last current, and whether it is current now.
public struct LiveStored<Value: Sendable>: Sendable {
    /// The value to show.
    public var value: Value
    /// When the channel last delivered it (the last frame of a live subscription).
    public var syncedAt: Date
    /// Whether the channel that keeps it is live now.
    public var isLive: Bool

    /// Creates a read.
    public init(value: Value, syncedAt: Date, isLive: Bool) {
        self.value = value
        self.syncedAt = syncedAt
        self.isLive = isLive
    }
}
