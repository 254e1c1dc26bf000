import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Observation
import Testing

/// The kit's screen feed: a screen reads through the store and observes it, so a write from anywhere (another
/// screen's save, a pushed event, a next page) reaches every screen that shows the data. Every case runs
/// against the fault server's cursor-paged `/items` (25 items, 10 a page: three pages).
@Suite("Screen feeds: screens that observe the store", .timeLimit(.minutes(1)))
@MainActor
struct ScreenFeedTests {
    static let profile = AppProfile(userAgent: "FeedTests/1.0", retryPolicy: .never)
    static let ada = AccountKey(serverKey: "feed-tests", userID: "ada")
    static var dead: URL { URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/") }

    /// The fault server's items, 10 a page, as a paged list kept in the store.
    static let items = PagedList<ToyPage, ToyItem>(
        key: "items", page: { cursor in ToyAPI.items(limit: 10, after: cursor) }, items: \.data,
        nextCursor: { $0.hasMore ? $0.data.last?.id : nil })

    static func bundle(_ url: URL, profile: AppProfile = profile, _ environment: AppEnvironment) async throws
        -> ServerBundle
    {
        try await ServerBundle.open(url, account: ada, profile: profile, environment: environment)
    }

    @Test("a paged feed reads its list through the store's paged lists to the end: three pages, no id twice")
    func pagesToTheEnd() async throws {
        let environment = TestEnvironments.loopback()
        let bundle = try await Self.bundle(try TestServers.fault(), environment)
        let feed = bundle.feed(Self.items)
        await feed.refresh()
        #expect(feed.state.kind == .content)
        #expect(feed.value?.items.count == 10)
        #expect(feed.hasMore)
        await feed.loadMore()
        #expect(feed.value?.items.count == 20)
        await feed.loadMore()
        let ids = try #require(feed.value?.items.map(\.id))
        #expect(ids == (1...25).map { String(format: "item-%04d", $0) })
        #expect(!feed.hasMore)
        // The pages are the store's: a feed made later shows the whole list from the store, offline.
        let stored = try #require(try await bundle.store.list("items"))
        #expect(stored.0.pageCount == 3 && stored.0.isComplete)
        let offline = try await Self.bundle(Self.dead, environment).feed(Self.items)
        await offline.refresh(.offline)
        #expect(offline.value?.items.count == 25)
        #expect(offline.state.kind == .stale)
    }

    @Test("a write of the list (another screen's save, a pushed event) shows on every feed of it with no request")
    func aWriteReachesEveryObservingFeed() async throws {
        let environment = TestEnvironments.loopback()
        let online = try await Self.bundle(try TestServers.fault(), environment)
        let list = online.feed(Self.items)
        await list.refresh()
        // A second screen of the same list, on an address where nothing listens: it never reads the network.
        let elsewhere = try await Self.bundle(Self.dead, environment)
        let other = elsewhere.feed(Self.items)
        var edited = try #require(list.value?.items[3])
        edited.n = 4_000
        #expect(try await elsewhere.store(edited, in: Self.items))
        #expect(await waitUntilObserved(upTo: .seconds(10)) { list.value?.items[3].n == 4_000 })
        #expect(await waitUntilObserved(upTo: .seconds(10)) { other.value?.items[3].n == 4_000 })
        #expect(other.state.kind == .content)
        #expect(other.failure == nil)
        // An item that left the list leaves every screen of it.
        #expect(try await elsewhere.remove(edited.id, from: Self.items))
        #expect(await waitUntilObserved(upTo: .seconds(10)) { list.value?.items.count == 9 })
        #expect(list.value?.items.contains { $0.id == edited.id } == false)
    }

    @Test("a feed of one reply re-publishes a stored write, and an invalidation reads it from the server again")
    func requestFeedObservesWritesAndInvalidations() async throws {
        let clock = ManualWallClock()
        let environment = TestEnvironments.loopback(clock: clock)
        let bundle = try await Self.bundle(try TestServers.fault(), environment)
        let request = ToyAPI.items(limit: 2)
        let feed = bundle.feed(request) { $0.data.map(\.n) }
        await feed.refresh()
        #expect(feed.value == [1, 2])
        let readAt = try #require(feed.state.fetchedAt)
        // A write of the stored reply (what a pushed event does) shows at once.
        let key = CachedFetcher.key(for: request)
        let body = Data(#"{"data":[{"id":"x","n":7,"created_at":1764400000}],"has_more":false}"#.utf8)
        try await bundle.store.put(CachedResource(key: key, body: body, fetchedAt: clock.now()))
        #expect(await waitUntilObserved(upTo: .seconds(10)) { feed.value == [7] })
        // An invalidation (an event that carries no data) reads the server again: its answer, stamped now.
        clock.advance(by: 60)
        try await bundle.invalidate(request)
        #expect(await waitUntilObserved(upTo: .seconds(10)) { feed.value == [1, 2] })
        #expect(feed.state.fetchedAt == readAt.addingTimeInterval(60))
    }

    @Test("an answer with nothing in it is `empty` and keeps its value")
    func emptyCarriesItsValue() async throws {
        let environment = TestEnvironments.loopback()
        let bundle = try await Self.bundle(try TestServers.fault(), environment)
        let none = PagedList<ToyPage, ToyItem>(
            key: "none", page: { _ in .get("/items", query: ["total": "0"]) }, items: \.data,
            nextCursor: { _ in nil })
        let feed = bundle.feed(none)
        await feed.refresh()
        guard case .empty(let value, _) = feed.state else {
            Issue.record("expected empty, got \(feed.state.kind)")
            return
        }
        #expect(value == Paged(items: [], nextCursor: nil))
        #expect(!feed.hasMore)
    }

    @Test("a failed refresh keeps what is shown (offline, aged by the clock), in the app's words with the read's key")
    func failureKeepsWhatIsShownInTheAppsWords() async throws {
        let clock = ManualWallClock()
        let environment = TestEnvironments.loopback(clock: clock)
        var profile = Self.profile
        profile.sentence = { "[\($0.key ?? "?")] kept: \($0.keepsValue)" }
        let online = try await Self.bundle(try TestServers.fault(), profile: profile, environment)
        await online.feed(Self.items).refresh()
        clock.advance(by: 42)
        let offline = try await Self.bundle(Self.dead, profile: profile, environment)
        let feed = offline.feed(Self.items)
        await feed.refresh()
        #expect(feed.state == .offline(try #require(feed.value), age: 42, reason: "[items] kept: true"))
        #expect(feed.failure?.isConnectivity == true)
        #expect(!feed.endsSignIn)
        // Nothing stored and nothing shown: failed, in the same words.
        let other = PagedList<ToyPage, ToyItem>(
            key: "never-read", page: { _ in ToyAPI.items(limit: 1) }, items: \.data, nextCursor: { _ in nil })
        let nothing = offline.feed(other)
        await nothing.refresh()
        #expect(nothing.state == .failed(reason: "[never-read] kept: false", signInRequired: false))
    }

    @Test(
        "issue 34: what a model derives runs after every read (refresh, next page, a stored write), before it returns")
    func afterEachReadRunsAfterEveryRead() async throws {
        let environment = TestEnvironments.loopback()
        let bundle = try await Self.bundle(try TestServers.fault(), environment)
        let seen = SeenReads()
        let feed = bundle.feed(Self.items).afterEachRead { shown in
            seen.reads.append((shown.value?.items.count ?? 0, shown.value?.items.first?.n ?? 0))
        }
        await feed.refresh()
        #expect(seen.reads.last?.count == 10)  // awaited before refresh() returned
        await feed.loadMore()
        #expect(seen.reads.last?.count == 20)  // the next page read with the feed's own loadMore()
        var edited = try #require(feed.value?.items.first)
        edited.n = 4_000
        #expect(try await bundle.store(edited, in: Self.items))
        #expect(await waitUntilObserved(upTo: .seconds(10)) { seen.reads.last?.first == 4_000 })
        #expect(seen.reads.last?.count == 20)
        // A constant feed never reads, so never runs what is derived.
        let constant = ScreenFeed.constant(ScreenState<[Int]>.loading).afterEachRead { _ in seen.reads.append((-1, -1))
        }
        await constant.refresh()
        await constant.loadMore()
        #expect(!seen.reads.contains { $0.count == -1 })
    }

    @Test("a constant feed shows its state and never reads")
    func constantFeed() async throws {
        let shown = ScreenState<[Int]>.content([1, 2], fetchedAt: Date(timeIntervalSince1970: 0))
        let feed = ScreenFeed.constant(shown)
        await feed.refresh()
        await feed.loadMore()
        #expect(feed.state == shown)
        #expect(!feed.hasMore)
    }
}

/// What `afterEachRead` saw: per read, the number of items shown and the first item's `n` (observable, so a bounded
/// wait wakes on each read).
@Observable @MainActor
private final class SeenReads {
    var reads: [(count: Int, first: Int)] = []
}
