import CompanionCore
import Foundation
import Observation

/// The actions a screen offers on entities, with each call's outcome and the optimistic state (H-ACT-2..4):
/// what a view binds to beside an entity feed.
///
/// Rules: a call is sent once through the connection (never resent, never kept for later: a call while not
/// connected is `notConnected` at once, H-OFF-4); while it runs the entity shows the state the call expects,
/// held here and never written to the store; that optimistic state goes at the first server event for the entity
/// after the call was sent, at an error result or an `unknown` outcome, whichever comes first, after which the
/// server's state shows (H-ACT-4); a call that succeeded with no event for its entity within `hold` drops it too
/// (H-ACT-5). No client timeout turns a call into a failure: after `slowAfter` without its result the entity is
/// `stillRunning`, and the call keeps waiting for its result or a drop (H-ACT-6). Waits use the environment's
/// sleeper.
@Observable @MainActor
public final class EntityActions {
    /// How long an optimistic state outlives a call that succeeded without an event for its entity (H-ACT-5).
    public static let optimisticHold: Duration = .seconds(5)
    /// After how long without its result a call is "still running" (H-ACT-6).
    public static let slowCallAfter: Duration = .seconds(10)

    /// The optimistic state of each entity with a call in flight and no server event since.
    public private(set) var optimistic: [String: String] = [:]
    /// The last outcome of a call on each entity.
    public private(set) var outcomes: [String: CallOutcome] = [:]
    /// The entities whose call has gone longer than `slowAfter` without its result, still waiting for it.
    public private(set) var stillRunning: Set<String> = []

    @ObservationIgnored private let connection: HomeAssistantConnection
    @ObservationIgnored private var watcher: Task<Void, Never>?
    @ObservationIgnored private let hold: Duration
    @ObservationIgnored private let slowAfter: Duration
    /// The number of the latest call on each entity: a wait of an older call never undoes a newer one's state.
    @ObservationIgnored private var calls: [String: Int] = [:]

    private init(connection: HomeAssistantConnection, hold: Duration, slowAfter: Duration) {
        self.connection = connection
        self.hold = hold
        self.slowAfter = slowAfter
    }

    /// The actions of `connection`, watching its events from now on; `hold` and `slowAfter` are the rules' times
    /// (`optimisticHold`, `slowCallAfter`) unless a caller names others.
    public static func watching(
        _ connection: HomeAssistantConnection, hold: Duration = optimisticHold, slowAfter: Duration = slowCallAfter
    ) async -> EntityActions {
        let actions = EntityActions(connection: connection, hold: hold, slowAfter: slowAfter)
        let updates = await connection.updates()
        actions.watcher = Task { [weak actions] in
            for await update in updates {
                guard let actions else { return }
                for id in update.touched { actions.optimistic[id] = nil }
            }
        }
        return actions
    }

    /// Stops watching the connection.
    public func stop() { watcher?.cancel() }

    /// The state to show for `entity`: the optimistic one while a call is in flight, else the server's.
    public func shownState(of entity: EntityState) -> String { optimistic[entity.entityID] ?? entity.state }

    /// Runs `entity`'s main action (H-ACT-8); `nil` when it has none (H-ACT-9) and nothing is sent.
    @discardableResult
    public func performMainAction(on entity: EntityState) -> Task<CallOutcome, Never>? {
        guard let call = ServiceCall.mainAction(for: entity) else { return nil }
        return perform(call, on: entity)
    }

    /// Sends `call` about `entity`: the state it expects shows at once (before this returns) until the server's
    /// event, an error or an unknown outcome; the task ends with the call's outcome.
    @discardableResult
    public func perform(_ call: ServiceCall, on entity: EntityState) -> Task<CallOutcome, Never> {
        let id = entity.entityID
        let number = (calls[id] ?? 0) + 1
        calls[id] = number
        if let expected = call.expectedState(from: entity.state) { optimistic[id] = expected }
        let connection = self.connection
        let sleeper = connection.server.bundle.environment.sleeper
        let slowAfter = self.slowAfter
        let slow = Task { [weak self] in
            guard (try? await sleeper.sleep(for: slowAfter)) != nil, !Task.isCancelled else { return }
            if self?.calls[id] == number { self?.stillRunning.insert(id) }
        }
        return Task {
            let outcome = await connection.call(call)
            slow.cancel()
            if calls[id] == number { stillRunning.remove(id) }
            outcomes[id] = outcome
            if !outcome.isDone {
                optimistic[id] = nil
            } else if optimistic[id] != nil {
                dropOptimistic(of: id, afterHoldOfCall: number)
            }
            return outcome
        }
    }

    /// H-ACT-5: the optimistic state of call `number` still shown `hold` after its success (no event for the
    /// entity since) goes, unless a newer call on the entity set its own.
    private func dropOptimistic(of id: String, afterHoldOfCall number: Int) {
        let sleeper = connection.server.bundle.environment.sleeper
        let hold = self.hold
        Task { [weak self] in
            guard (try? await sleeper.sleep(for: hold)) != nil else { return }
            guard let self, self.calls[id] == number else { return }
            self.optimistic[id] = nil
        }
    }
}
