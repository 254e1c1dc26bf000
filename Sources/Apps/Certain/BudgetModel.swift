import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The budget tab's model: one month, paged through the `prev`/`next` paths of the last reply.
///
/// Rules: back and forward request exactly the reply's `prev` and `next` (C-BUD-2); `nil` disables that
/// direction, and a `prev` that skips a month is followed as it is; the client never computes a month.
/// Each month viewed is kept offline with its time (C-OFF-2).
@Observable @MainActor
public final class BudgetModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<BudgetMonthReply> = .loading
    /// The lookups category names come from.
    public private(set) var lookups = Lookups()
    /// The texts.
    public let texts: Texts
    @ObservationIgnored private let connection: CertainConnection

    /// The budget of `connection`.
    public init(connection: CertainConnection) {
        self.connection = connection
        self.texts = connection.texts
    }

    /// Whether there is an earlier month to go to.
    public var canGoBack: Bool { state.value?.prev != nil }
    /// Whether there is a later month to go to.
    public var canGoForward: Bool { state.value?.next != nil }

    /// Loads `month`, or the current month when `nil`.
    public func load(_ month: BudgetMonth? = nil) async {
        await load(CertainAPI.budget(month), key: month.map { "budget:\($0)" } ?? "budget:current")
    }

    /// Goes to the reply's `prev` month, if there is one.
    public func previous() async {
        guard let link = state.value?.prev, let request = CertainAPI.budget(following: link) else { return }
        await load(request, key: "budget:" + (request.query.first { $0.name == "month" }?.value ?? link))
    }

    /// Goes to the reply's `next` month, if there is one.
    public func next() async {
        guard let link = state.value?.next, let request = CertainAPI.budget(following: link) else { return }
        await load(request, key: "budget:" + (request.query.first { $0.name == "month" }?.value ?? link))
    }

    private func load(_ request: Request<BudgetMonthReply>, key: String) async {
        do {
            let reply = try await connection.fetch(request)
            let fetchedAt = connection.clock.now()
            try? await connection.save(key, reply, fetchedAt: fetchedAt)
            if key != "budget:\(reply.month)" { try? await connection.save("budget:\(reply.month)", reply) }
            lookups = await connection.resolving(categories: reply.groups.flatMap { $0.categories.map(\.categoryID) })
            state = .content(reply, fetchedAt: fetchedAt)
        } catch {
            let stored: Stored<BudgetMonthReply>? = await connection.stored(key)
            lookups = await connection.resolving()
            // Another month than the one shown: fall back to that month's copy, not the shown one.
            let showing: ScreenState<BudgetMonthReply> = stored == nil ? state : .loading
            state = ScreenFailure.state(
                after: error, showing: showing, stored: stored, now: connection.clock.now(), texts: texts)
        }
    }
}
