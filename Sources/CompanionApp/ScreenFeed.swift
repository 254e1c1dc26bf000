import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import Foundation
import Observation

/// One screen's data, kept current: the state a view shows, read through the account's store and observing it.
///
/// A feed is made by the server bundle from a request, a snapshot or a paged list (`ServerBundle.feed`), or is a
/// constant (`ScreenFeed.constant`) for tests and previews. A screen model holds its feeds and asks them to
/// `refresh()` or `loadMore()`; a view reads `state`.
///
/// Rules:
/// - A refresh reads under its fetch policy (the stored copy at once with its age, then the server's answer, by
///   default); every value published becomes a state by the kit's one rule (`ServerBundle.failing` for
///   failures, the app's wording and revocation rule included).
/// - The feed observes the store from the moment it is made: any committed write of its data (another screen's
///   save, a pushed event, a next page read elsewhere) is re-published at once, with no request. A stale or
///   offline state keeps its kind and its sentence with the new value; any other becomes content (or empty).
///   An invalidation of its data reads it from the server again.
/// - A refresh that a later one replaced publishes nothing more; a failure keeps what is shown.
/// - A paged feed reads the next page into the store's list (`loadMore()`), after which the whole stored list is
///   shown; `hasMore` says whether the list has a next page.
/// - What a screen model derives from the value beyond the feed (names resolved from the ids it shows) is
///   registered once with `afterEachRead(_:)`: it runs after every read ends (a refresh, a next page, a stored copy
///   shown after a write) and is awaited before that call returns, so a view that pages with the feed's own
///   `loadMore()` gets the derived values too.
@Observable @MainActor
public final class ScreenFeed<Value: Sendable & Equatable> {
    /// What the screen shows.
    public private(set) var state: ScreenState<Value>
    /// The network failure behind the state (a stored copy shown instead of a fresh one, or the read's own
    /// failure); `nil` after a good answer.
    public private(set) var failure: HTTPError?
    /// Whether the failure is a refusal that the app's revocation rule says ends the sign-in.
    public private(set) var endsSignIn = false
    /// The last read's failure as the store and network layer reported it, if it failed.
    public private(set) var cause: SyncError?
    /// Whether a refresh is under way.
    public private(set) var isRefreshing = false
    /// Whether a next page is being read.
    public private(set) var isLoadingMore = false
    /// Whether a paged list has a next page to read.
    public private(set) var hasMore = false

    @ObservationIgnored private let source: FeedSource<Value>?
    @ObservationIgnored private let watcher = FeedWatcher()
    @ObservationIgnored private var generation = 0
    @ObservationIgnored private var failureHandlers: [@MainActor (HTTPError) -> Void] = []
    @ObservationIgnored private var readHandlers: [@MainActor (ScreenFeed<Value>) async -> Void] = []

    /// A feed reading through `source`, observing its region of the store from now on.
    init(source: FeedSource<Value>) {
        self.source = source
        self.state = .loading
        let events = source.bundle.store.observe(source.region)
        watcher.watch(
            Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    switch event {
                    case .written: await self.showStored()
                    case .invalidated: await self.refresh(.fresh)
                    }
                }
            })
    }

    private init(constant: ScreenState<Value>) {
        self.source = nil
        self.state = constant
    }

    /// A feed that always shows `state` and never reads (for tests and previews): `refresh()` and `loadMore()`
    /// do nothing.
    public static func constant(_ state: ScreenState<Value>) -> ScreenFeed<Value> {
        ScreenFeed(constant: state)
    }

    /// The value on screen, if any.
    public var value: Value? { state.value }

    /// Hands every network failure a read of this feed ends with (a refresh, a next page, a read after an
    /// invalidation) to `handler` too, after the state shows it: where an app reacts to a failure beyond the
    /// screen (a refusal naming a missing permission). Returns the feed.
    @discardableResult
    public func reportingFailures(to handler: @escaping @MainActor (HTTPError) -> Void) -> ScreenFeed<Value> {
        failureHandlers.append(handler)
        return self
    }

    /// Runs `handler` with the feed after every read of it ends — a refresh (also one that failed), a next page, or
    /// the stored copy shown after a write of its data — and awaits it before that call returns: where a screen
    /// model derives more from what is shown (names resolved from ids). Handlers run in the order they were added.
    /// A constant feed never reads, so never runs them. Returns the feed.
    @discardableResult
    public func afterEachRead(_ handler: @escaping @MainActor (ScreenFeed<Value>) async -> Void) -> ScreenFeed<Value> {
        readHandlers.append(handler)
        return self
    }

    /// The state with the failure behind it, as one value.
    public var update: ScreenUpdate<Value> {
        ScreenUpdate(state: state, failure: failure, endsSignIn: endsSignIn, cause: cause)
    }

    /// Reads the data under `policy` (the feed's own, stale-while-revalidate by default), publishing every state
    /// until the read ends.
    public func refresh(_ policy: FetchPolicy? = nil) async {
        guard let source else { return }
        generation += 1
        let run = generation
        isRefreshing = true
        defer { if run == generation { isRefreshing = false } }
        let policy = policy ?? source.policy
        do {
            for try await loaded in source.load(policy) {
                guard run == generation else { continue }
                let update = source.bundle.update(for: loaded, isEmpty: source.isEmpty, key: source.key)
                apply(policy.network == .never ? source.bundle.readOffline(update, key: source.key) : update)
            }
        } catch {
            guard run == generation, !Task.isCancelled else { return }
            apply(source.bundle.failing(state, with: error, reading: source.key))
        }
        await readEnded()
    }

    /// Reads the next page of a paged list into the store and shows the whole stored list; does nothing when
    /// there is no next page or one is being read. A failure keeps what is shown and says why.
    public func loadMore() async {
        guard let source, let more = source.more, hasMore, !isLoadingMore else { return }
        isLoadingMore = true
        defer { isLoadingMore = false }
        do {
            try await more()
            await showStored()
        } catch {
            apply(source.bundle.failing(state, with: error, reading: source.key))
            await readEnded()
        }
    }

    /// Reads every page left (`loadMore()` until the list ends or a page fails).
    public func loadAll() async {
        while hasMore {
            let before = state
            await loadMore()
            if failure != nil || cause != nil || state == before { return }
        }
    }

    /// Shows what the store holds now, with no request: as the current value unless what is shown is stale or
    /// offline (for a stored copy the app knows is current, such as a list whose revision did not change); nothing
    /// changes when nothing is stored. The feed does this by itself after every write of its data.
    public func showStored() async {
        guard let source, let stored = try? await source.stored() else { return }
        if source.storedIsCurrent {
            apply(source.bundle.update(for: stored, isEmpty: source.isEmpty, key: source.key))
            await readEnded()
            return
        }
        let value = stored.value
        let next: ScreenState<Value>
        switch state {
        case .stale(_, _, let problem?):
            next = .stale(value, age: stored.age, problem: problem)
        case .offline(_, _, let reason):
            next = .offline(value, age: stored.age, reason: reason)
        default:
            next =
                source.isEmpty(value)
                ? .empty(value, fetchedAt: stored.fetchedAt) : .content(value, fetchedAt: stored.fetchedAt)
            failure = nil
            endsSignIn = false
            cause = nil
        }
        if next != state { state = next }
        await readEnded()
    }

    private func apply(_ update: ScreenUpdate<Value>) {
        if update.state != state { state = update.state }
        failure = update.failure
        endsSignIn = update.endsSignIn
        cause = update.cause
        if let failure = update.failure {
            for handler in failureHandlers { handler(failure) }
        }
    }

    /// Notes whether a next page exists, then runs the handlers registered with `afterEachRead(_:)`.
    private func readEnded() async {
        await noteMore()
        for handler in readHandlers { await handler(self) }
    }

    private func noteMore() async {
        guard let probe = source?.hasMore else { return }
        let more = await probe()
        if more != hasMore { hasMore = more }
    }
}

/// Holds the task that observes the store for a feed, and cancels it when the feed goes.
private final class FeedWatcher: Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)

    func watch(_ running: Task<Void, Never>) { task.withLock { $0 = running } }

    deinit { task.withLock { $0?.cancel() } }
}

/// What a feed reads through: the parts `ServerBundle.feed` joins for one request, snapshot or list.
struct FeedSource<Value: Sendable & Equatable>: Sendable {
    /// The bundle whose store, client and rules the feed uses.
    let bundle: ServerBundle
    /// The fetch policy of a refresh that names none.
    let policy: FetchPolicy
    /// The key of the read in the store (for the wording hook).
    let key: String
    /// The store data the feed shows.
    let region: StoreRegion
    /// Whether a fresh answer has nothing in it.
    let isEmpty: @Sendable (Value) -> Bool
    /// The values a read publishes under a policy.
    let load: @Sendable (FetchPolicy) -> AsyncThrowingStream<Published<Value>, any Error>
    /// The value the store holds now, if any (never the network).
    let stored: @Sendable () async throws -> Published<Value>?
    /// Reads the next page into the store (paged lists only).
    var more: (@Sendable () async throws -> Void)? = nil
    /// Whether the stored list has a next page (paged lists only).
    var hasMore: (@Sendable () async -> Bool)? = nil
    /// Whether what the store holds says by itself whether it is current (a live feed): a store write then shows
    /// it by the same rule as a read, live as content, not live as stale with its age.
    var storedIsCurrent = false
}
