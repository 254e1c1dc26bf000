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
/// server's state shows (H-ACT-4).
@Observable @MainActor
public final class EntityActions {
    /// The optimistic state of each entity with a call in flight and no server event since.
    public private(set) var optimistic: [String: String] = [:]
    /// The last outcome of a call on each entity.
    public private(set) var outcomes: [String: CallOutcome] = [:]

    @ObservationIgnored private let connection: HomeAssistantConnection
    @ObservationIgnored private var watcher: Task<Void, Never>?

    private init(connection: HomeAssistantConnection) {
        self.connection = connection
    }

    /// The actions of `connection`, watching its events from now on.
    public static func watching(_ connection: HomeAssistantConnection) async -> EntityActions {
        let actions = EntityActions(connection: connection)
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
        if let expected = call.expectedState(from: entity.state) { optimistic[id] = expected }
        let connection = self.connection
        return Task {
            let outcome = await connection.call(call)
            outcomes[id] = outcome
            if !outcome.isDone { optimistic[id] = nil }
            return outcome
        }
    }
}
