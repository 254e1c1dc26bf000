import CompanionCore
import Foundation

/// One event of `subscribe_entities` in Home Assistant's compressed format (§2.7): entities added (`a`), removed
/// (`r`) and changed (`c`, with `+` and `-`).
public struct EntitiesEvent: Sendable, Hashable {
    /// Entities added, or sent whole (the first event of a subscription holds every entity).
    public var added: [String: EntityState]
    /// Entity ids removed.
    public var removed: [String]
    /// Entity ids changed, with their change.
    public var changed: [String: EntityChange]

    /// Creates an event.
    public init(
        added: [String: EntityState] = [:], removed: [String] = [], changed: [String: EntityChange] = [:]
    ) {
        self.added = added
        self.removed = removed
        self.changed = changed
    }

    /// Reads an event. An entity of `a`, an id of `r` or a change of `c` that cannot be read is left out with its
    /// sentence; an event that is not an object, or whose `a`, `r` or `c` has another type, is refused.
    public static func read(_ json: JSONValue) throws(HomeAssistantReadError) -> WireRead<EntitiesEvent> {
        guard case .object(let fields) = json else {
            throw HomeAssistantReadError("entities event", "it is \(json.kindName), not an object")
        }
        var event = EntitiesEvent()
        var problems: [String] = []
        if let added = fields["a"] {
            guard case .object(let entities) = added else {
                throw HomeAssistantReadError("entities event", "its \"a\" is \(added.kindName), not an object")
            }
            for (id, value) in entities.sorted(by: { $0.key < $1.key }) {
                do {
                    event.added[id] = try compressedState(id, value)
                } catch {
                    problems.append(error.description)
                }
            }
        }
        if let removed = fields["r"] {
            guard case .array(let ids) = removed else {
                throw HomeAssistantReadError("entities event", "its \"r\" is \(removed.kindName), not a list")
            }
            for id in ids {
                if case .string(let text) = id {
                    event.removed.append(text)
                } else {
                    problems.append("A removed entity was left out: its id is \(id.kindName), not a string.")
                }
            }
        }
        if let changed = fields["c"] {
            guard case .object(let entities) = changed else {
                throw HomeAssistantReadError("entities event", "its \"c\" is \(changed.kindName), not an object")
            }
            for (id, value) in entities.sorted(by: { $0.key < $1.key }) {
                do {
                    event.changed[id] = try EntityChange(id, value)
                } catch {
                    problems.append(error.description)
                }
            }
        }
        return WireRead(event, problems: problems)
    }

    /// An added entity (H-ENT-1, H-ENT-2): `s` a string, `a` an object (absent is none), `c` a string or an
    /// object, `lc` Unix seconds, `lu` Unix seconds or absent when equal to `lc`.
    static func compressedState(_ id: String, _ json: JSONValue) throws(HomeAssistantReadError) -> EntityState {
        let what = "added entity \(id)"
        guard EntityID.isValid(id) else {
            throw HomeAssistantReadError(what, "its id is not of the form domain.object_id")
        }
        guard case .object(let fields) = json else { throw HomeAssistantReadError(what, "it is \(json.kindName)") }
        guard case .string(let state)? = fields["s"] else {
            throw HomeAssistantReadError(what, "its \"s\" is missing or not a string")
        }
        var attributes: [String: JSONValue] = [:]
        if let value = fields["a"] {
            guard case .object(let object) = value else {
                throw HomeAssistantReadError(what, "its \"a\" is \(value.kindName), not an object")
            }
            attributes = object
        }
        guard let context = EntityContext(json: fields["c"]) else {
            throw HomeAssistantReadError(what, "its \"c\" is missing or neither a string nor a context")
        }
        guard let changed = EntityTime(json: fields["lc"]) else {
            throw HomeAssistantReadError(what, "its \"lc\" is missing or not Unix seconds")
        }
        var updated = changed
        if let value = fields["lu"] {
            guard let time = EntityTime(json: value) else {
                throw HomeAssistantReadError(what, "its \"lu\" is not Unix seconds")
            }
            updated = time
        }
        return EntityState(
            entityID: id, state: state, attributes: attributes, lastChanged: changed, lastUpdated: updated,
            context: context)
    }
}

/// A change of one entity: what `+` sets and what `-` removes (H-ENT-4, H-ENT-5, H-ENT-6).
public struct EntityChange: Sendable, Hashable {
    /// The new state (`+.s`).
    public var state: String?
    /// Attributes set, merged key by key (`+.a`); a null value is stored as null.
    public var attributes: [String: JSONValue]
    /// The context change (`+.c`): a string replaces the id, an object the keys it names.
    public var context: JSONValue?
    /// `+.lc`: sets both `last_changed` and `last_updated`.
    public var lastChanged: EntityTime?
    /// `+.lu`: sets `last_updated` (read only when `lc` is absent).
    public var lastUpdated: EntityTime?
    /// Attribute keys removed (`-.a`).
    public var removedAttributes: [String]

    /// Creates a change.
    public init(
        state: String? = nil, attributes: [String: JSONValue] = [:], context: JSONValue? = nil,
        lastChanged: EntityTime? = nil, lastUpdated: EntityTime? = nil, removedAttributes: [String] = []
    ) {
        self.state = state
        self.attributes = attributes
        self.context = context
        self.lastChanged = lastChanged
        self.lastUpdated = lastUpdated
        self.removedAttributes = removedAttributes
    }

    init(_ id: String, _ json: JSONValue) throws(HomeAssistantReadError) {
        let what = "change of \(id)"
        guard case .object(let fields) = json else { throw HomeAssistantReadError(what, "it is \(json.kindName)") }
        self.init()
        if let plus = fields["+"] {
            guard case .object(let set) = plus else {
                throw HomeAssistantReadError(what, "its \"+\" is \(plus.kindName), not an object")
            }
            if let value = set["s"] {
                guard case .string(let text) = value else {
                    throw HomeAssistantReadError(what, "its state is \(value.kindName), not a string")
                }
                state = text
            }
            if let value = set["a"] {
                guard case .object(let object) = value else {
                    throw HomeAssistantReadError(what, "its attributes are \(value.kindName), not an object")
                }
                attributes = object
            }
            if let value = set["c"] {
                switch value {
                case .string: context = value
                case .object(let object) where object["id"].map({ $0.stringValue != nil }) ?? true: context = value
                default: throw HomeAssistantReadError(what, "its context is neither an id nor a context's fields")
                }
            }
            if let value = set["lc"] {
                guard let time = EntityTime(json: value) else {
                    throw HomeAssistantReadError(what, "its \"lc\" is not Unix seconds")
                }
                lastChanged = time
            }
            if let value = set["lu"] {
                guard let time = EntityTime(json: value) else {
                    throw HomeAssistantReadError(what, "its \"lu\" is not Unix seconds")
                }
                lastUpdated = time
            }
        }
        if let minus = fields["-"] {
            guard case .object(let removal) = minus else {
                throw HomeAssistantReadError(what, "its \"-\" is \(minus.kindName), not an object")
            }
            if let value = removal["a"] {
                guard case .array(let keys) = value, keys.allSatisfy({ $0.stringValue != nil }) else {
                    throw HomeAssistantReadError(what, "its removed attributes are not a list of names")
                }
                removedAttributes = keys.compactMap(\.stringValue)
            }
        }
    }

    /// `entity` with this change applied (H-ENT-4..6).
    public func applied(to entity: EntityState) -> EntityState {
        var result = entity
        if let state { result.state = state }
        for (key, value) in attributes { result.attributes[key] = value }
        if let context { result.context.apply(context) }
        if let lastChanged {
            result.lastChanged = lastChanged
            result.lastUpdated = lastChanged
        } else if let lastUpdated {
            result.lastUpdated = lastUpdated
        }
        for key in removedAttributes { result.attributes[key] = nil }
        return result
    }
}
