import CompanionCore
import Foundation

/// Every entity the user may read, as `subscribe_entities` keeps it: a plain value with a pure reducer.
///
/// Rules (H-ENT-1..8): the first event of a subscription (after every connect) replaces the whole set with its
/// `a`, so an entity deleted while the app was away disappears; within an event `a` is applied first, then `r`,
/// then `c`; a change for an entity the set does not hold is ignored and reported, never made into an entity.
public struct EntitySet: Sendable, Hashable {
    /// The entities by id.
    public private(set) var entities: [String: EntityState]

    /// Creates a set holding `entities`.
    public init(_ entities: [EntityState] = []) {
        self.entities = Dictionary(entities.map { ($0.entityID, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The entity `id`, if held.
    public subscript(id: String) -> EntityState? { entities[id] }

    /// The entities sorted by id.
    public var sorted: [EntityState] { entities.values.sorted { $0.entityID < $1.entityID } }

    /// What applying one event did.
    public struct Applied: Sendable, Hashable {
        /// Ids added or replaced by `a`.
        public var added: [String] = []
        /// Ids removed by `r` (only those that were held).
        public var removed: [String] = []
        /// Ids changed by `c`.
        public var changed: [String] = []
        /// A sentence per change ignored because its entity is not held (H-ENT-7), for the journal.
        public var ignored: [String] = []
    }

    /// Applies `event`; `initial` says it is the first event of a new subscription, whose `a` replaces the set.
    @discardableResult
    public mutating func apply(_ event: EntitiesEvent, initial: Bool = false) -> Applied {
        var applied = Applied()
        if initial { entities = [:] }
        for (id, entity) in event.added.sorted(by: { $0.key < $1.key }) {
            entities[id] = entity
            applied.added.append(id)
        }
        for id in event.removed where entities.removeValue(forKey: id) != nil {
            applied.removed.append(id)
        }
        for (id, change) in event.changed.sorted(by: { $0.key < $1.key }) {
            guard let entity = entities[id] else {
                applied.ignored.append("A change for \(id) was ignored: no such entity is known.")
                continue
            }
            entities[id] = change.applied(to: entity)
            applied.changed.append(id)
        }
        return applied
    }
}
