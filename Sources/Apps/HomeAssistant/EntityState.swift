import CompanionCore
import Foundation

/// Whether an entity reports a state of its own (H-ENT-11).
public enum Availability: String, Sendable, Hashable, Codable {
    /// The entity reports a state.
    case available
    /// Home Assistant cannot reach the entity (`unavailable`): shown as such, never as off.
    case unavailable
    /// The entity has no state yet (`unknown`): shown as such, never as off.
    case unknown
}

/// One entity's state, as Home Assistant's states and `subscribe_entities` give it.
///
/// Rules: `state` is the server's string, never parsed (H-ENT-11); `lastChanged` moves only when the state
/// changed, `lastUpdated` also when only the attributes did (H-ENT-10); times are kept to the microsecond
/// (H-ENT-9).
public struct EntityState: Sendable, Hashable, Codable, Identifiable {
    /// The entity id, `domain.object_id`.
    public var entityID: String
    /// The state, as the server's string ("20.0", "on", "unavailable").
    public var state: String
    /// The attributes, any JSON per key; a key Home Assistant set to null is kept as `.null`.
    public var attributes: [String: JSONValue]
    /// When the state last changed ("since").
    public var lastChanged: EntityTime
    /// When the state or an attribute last changed.
    public var lastUpdated: EntityTime
    /// What caused the last update.
    public var context: EntityContext

    /// Creates a state.
    public init(
        entityID: String, state: String, attributes: [String: JSONValue] = [:], lastChanged: EntityTime,
        lastUpdated: EntityTime? = nil, context: EntityContext
    ) {
        self.entityID = entityID
        self.state = state
        self.attributes = attributes
        self.lastChanged = lastChanged
        self.lastUpdated = lastUpdated ?? lastChanged
        self.context = context
    }

    /// The entity id, for `Identifiable`.
    public var id: String { entityID }

    /// The domain: the text before the first "." (H-ENT-14).
    public var domain: String { EntityID.domain(of: entityID) }

    /// The name to show: the `friendly_name` attribute, else the entity id.
    public var name: String { attributes["friendly_name"]?.stringValue ?? entityID }

    /// Whether the entity reports a state of its own (H-ENT-11).
    public var availability: Availability {
        switch state {
        case "unavailable": return .unavailable
        case "unknown": return .unknown
        default: return .available
        }
    }

    /// Reads one state of `get_states` or `GET /api/states` (§2.5): `entity_id`, `state` (a string), the ISO
    /// times and `context`. `attributes` and `context` missing are read as empty, and `last_updated` missing
    /// as `last_changed`; anything else missing or of another type is the sentence thrown.
    public init(json: JSONValue) throws(HomeAssistantReadError) {
        guard case .object(let fields) = json else {
            throw HomeAssistantReadError("state", "it is \(json.kindName), not an object")
        }
        guard case .string(let entityID)? = fields["entity_id"], EntityID.isValid(entityID) else {
            throw HomeAssistantReadError("state", "its entity_id is missing or not of the form domain.object_id")
        }
        guard case .string(let state)? = fields["state"] else {
            throw HomeAssistantReadError("state of \(entityID)", "its state is missing or not a string")
        }
        guard let changed = EntityTime(json: fields["last_changed"]) else {
            throw HomeAssistantReadError("state of \(entityID)", "its last_changed is missing or not a time")
        }
        let updated = EntityTime(json: fields["last_updated"]) ?? changed
        let attributes = fields["attributes"]?.objectValue ?? [:]
        let context = EntityContext(json: fields["context"]) ?? EntityContext(id: "")
        self.init(
            entityID: entityID, state: state, attributes: attributes, lastChanged: changed, lastUpdated: updated,
            context: context)
    }

    /// Reads the list of `get_states` or `GET /api/states`, leaving out each state that cannot be read with its
    /// sentence; a reply that is not a list is refused.
    public static func list(_ json: JSONValue) throws(HomeAssistantReadError) -> WireRead<[EntityState]> {
        guard case .array(let items) = json else {
            throw HomeAssistantReadError("list of states", "it is \(json.kindName), not a list")
        }
        var states: [EntityState] = []
        var problems: [String] = []
        for item in items {
            do {
                states.append(try EntityState(json: item))
            } catch {
                problems.append(error.description)
            }
        }
        return WireRead(states, problems: problems)
    }
}

/// Entity ids: `domain.object_id`.
public enum EntityID {
    /// Whether `text` is an entity id as Home Assistant makes them: a domain and an object id of lowercase letters,
    /// digits and underscores, joined by one ".".
    public static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty
                && part.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        }
    }

    /// The text before the first "."; the whole text when there is none.
    public static func domain(of entityID: String) -> String {
        String(entityID.prefix { $0 != "." })
    }
}
