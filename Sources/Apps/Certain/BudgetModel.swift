import CompanionApp
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The budget tab's model: one month, paged through the `prev`/`next` paths of the last reply.
///
/// Rules: the month first shown is the person's own current month (`CertainServer.thisMonth`, their time
/// zone), asked for by name. Back and forward request exactly the reply's `prev` and `next` (C-BUD-2); `nil`
/// disables that direction, and a `prev` that skips a month is followed as it is; the client never computes a
/// neighbouring month. A month with no budget is `empty` with its reply (C-ERR-1), and its links still page.
/// Each month viewed is a kit feed of its reply, so it stays readable offline with its time (C-OFF-2); another
/// month starts from nothing shown (its own stored copy, then the server's).
@Observable @MainActor
public final class BudgetModel {
    /// The feed of the month shown; `nil` before the first load.
    public private(set) var feed: ScreenFeed<BudgetMonthReply>?
    /// The lookups category names come from.
    public private(set) var lookups = Lookups()
    @ObservationIgnored private let server: CertainServer
    @ObservationIgnored private var key: String?

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// The budget of `server`.
    public init(server: CertainServer) {
        self.server = server
    }

    /// What the screen shows.
    public var state: ScreenState<BudgetMonthReply> { feed?.state ?? .loading }

    /// The reply of the month shown, an empty month's included: its links (`nil` while another month loads).
    public var reply: BudgetMonthReply? { feed?.value }

    /// Whether there is an earlier month to go to.
    public var canGoBack: Bool { reply?.prev != nil }
    /// Whether there is a later month to go to.
    public var canGoForward: Bool { reply?.next != nil }

    /// Loads `month`, or the person's current month when `nil`.
    public func load(_ month: BudgetMonth? = nil) async {
        await load(CertainAPI.budget(month ?? server.thisMonth))
    }

    /// Goes to the reply's `prev` month, if there is one.
    public func previous() async {
        guard let link = reply?.prev, let request = CertainAPI.budget(following: link) else { return }
        await load(request)
    }

    /// Goes to the reply's `next` month, if there is one.
    public func next() async {
        guard let link = reply?.next, let request = CertainAPI.budget(following: link) else { return }
        await load(request)
    }

    private func load(_ request: Request<BudgetMonthReply>) async {
        let requested = CachedFetcher.key(for: request)
        if requested != key || feed == nil {
            key = requested
            feed = server.bundle.feed(request, isEmpty: { $0.isEmpty })
        }
        guard let feed else { return }
        await feed.refresh()
        if feed.endsSignIn { await server.lookups.forget() }
        lookups = await server.lookups.resolving(
            categories: reply?.groups.flatMap { $0.categories.map(\.categoryID) } ?? [], readAt: feed.state.fetchedAt)
    }
}
