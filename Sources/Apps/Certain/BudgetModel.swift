import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The budget tab's model: one month, paged through the `prev`/`next` paths of the last reply.
///
/// Rules: back and forward request exactly the reply's `prev` and `next` (C-BUD-2); `nil` disables that
/// direction, and a `prev` that skips a month is followed as it is; the client never computes a month. A month
/// with no budget is `empty` (C-ERR-1), and its links still page. Each month viewed is read through the kit's
/// store, so it stays readable offline with its time (C-OFF-2).
@Observable @MainActor
public final class BudgetModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<BudgetMonthReply> = .loading
    /// The reply of the month shown, an empty month's included: its links (`nil` while another month loads).
    public private(set) var reply: BudgetMonthReply?
    /// The lookups category names come from.
    public private(set) var lookups = Lookups()
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// The budget of `server`.
    public init(server: CertainServer) {
        self.server = server
    }

    /// Whether there is an earlier month to go to.
    public var canGoBack: Bool { reply?.prev != nil }
    /// Whether there is a later month to go to.
    public var canGoForward: Bool { reply?.next != nil }

    /// Loads `month`, or the current month when `nil`.
    public func load(_ month: BudgetMonth? = nil) async {
        await load(CertainAPI.budget(month), sameMonth: month != nil && month == reply?.month)
    }

    /// Goes to the reply's `prev` month, if there is one.
    public func previous() async {
        guard let link = reply?.prev, let request = CertainAPI.budget(following: link) else { return }
        await load(request, sameMonth: false)
    }

    /// Goes to the reply's `next` month, if there is one.
    public func next() async {
        guard let link = reply?.next, let request = CertainAPI.budget(following: link) else { return }
        await load(request, sameMonth: false)
    }

    private func load(_ request: Request<BudgetMonthReply>, sameMonth: Bool) async {
        // Another month than the one shown starts from nothing: that month's stored copy is the fallback.
        let shown: ScreenState<BudgetMonthReply> = sameMonth ? state : .loading
        if !sameMonth { reply = nil }
        for await update in server.bundle.read(request, showing: shown) {
            if let value = update.state.value { reply = value }
            if update.state.kind == .content, let value = update.state.value, value.isEmpty {
                state = .empty(value, fetchedAt: update.state.fetchedAt ?? server.bundle.clock.now())
            } else {
                state = update.state
            }
            if update.endsSignIn {
                reply = nil
                await server.lookups.forget()
            }
        }
        lookups = await server.lookups.resolving(
            categories: reply?.groups.flatMap { $0.categories.map(\.categoryID) } ?? [])
    }
}
