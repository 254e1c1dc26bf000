import CompanionApp
import CompanionCore
import CompanionStore
import Foundation

/// Where the live connection keeps Home Assistant's data in the account's store, and how it is read back: the
/// entities (one list item each, H-ENT), the three registries (their items as Home Assistant sent them, read by
/// `Registries`), `get_config`'s answer, and the sync mark (when the data was last current, and whether the
/// connection is live now: H-OFF-2, H-OFF-3). Every screen feed of this core observes `region`.
///
/// Rules: the store holds only what the server said (an optimistic value is never written, H-ACT-4); one event is
/// one transaction (its entities and the sync mark together), so a feed never shows half an event; the data is
/// the account's own (the account's store, H-OFF-1) and is kept when the sign-in ends (H-OFF-5).
public enum EntityStore {
    /// The list of entity states, by entity id.
    public static let states = "homeassistant:states"
    /// The area registry's items.
    public static let areas = "homeassistant:areas"
    /// The device registry's items.
    public static let devices = "homeassistant:devices"
    /// The entity registry's items.
    public static let entityRegistry = "homeassistant:entity-registry"
    /// `get_config`'s answer.
    public static let config = "homeassistant:config"
    /// The sync mark: its time is when the data was last current; its body says whether it is live now.
    public static let sync = "homeassistant:sync"

    /// Everything the screens of this core show.
    public static let region = StoreRegion(
        resources: [config, sync], lists: [states, areas, devices, entityRegistry])

    /// Stores what applying one event did: the whole list for the first event of a subscription (H-ENT-8), else
    /// the entities it added, changed and removed; and the sync mark at `now`, live when `live()` says so at the
    /// moment of the transaction (an event still in flight after the connection left ready is stored, not live).
    static func write(
        _ applied: EntitySet.Applied, of set: EntitySet, initial: Bool, live: @escaping @Sendable () -> Bool,
        in store: OfflineStore
    ) async throws(StoreError) {
        let rows: [(id: String, body: Data)]
        if initial {
            rows = set.sorted.map { ($0.entityID, $0.storedBody) }
        } else {
            rows = (applied.added + applied.changed).compactMap { id in set[id].map { (id, $0.storedBody) } }
        }
        let removed = applied.removed
        try await store.write { transaction throws(StoreError) in
            if initial {
                _ = try transaction.storePage(ListPage(items: rows, nextCursor: nil), list: states, replacing: true)
            } else {
                for row in rows where !(try transaction.updateItem(row.id, in: states, body: row.body)) {
                    _ = try transaction.appendItem(row.id, to: states, body: row.body)
                }
                for id in removed { _ = try transaction.removeItem(id, from: states) }
            }
            try transaction.put(mark(live: live(), at: transaction.now))
        }
    }

    /// Marks the data not live: at a drop, current until `droppedAt`; at launch (`nil`), keeping the time it was
    /// last current. With `onlyIfLive`, a mark that already says not live is left as it is (its time kept).
    static func markNotLive(droppedAt: Date?, onlyIfLive: Bool = false, in store: OfflineStore)
        async throws(StoreError)
    {
        try await store.write { transaction throws(StoreError) in
            guard let stored = try transaction.resource(sync) else { return }
            if onlyIfLive, JSONValue(data: stored.body)?["live"]?.boolValue != true { return }
            try transaction.put(mark(live: false, at: droppedAt ?? stored.fetchedAt))
        }
    }

    /// Stores one registry's items, replacing the stored ones; `idKey` names each item's id member.
    static func write(registry key: String, idKey: String, items: [JSONValue], in store: OfflineStore)
        async throws(StoreError)
    {
        let rows: [(id: String, body: Data)] = items.enumerated().map { index, item in
            (item[idKey]?.stringValue ?? "#\(index)", Data(item.jsonString().utf8))
        }
        try await store.write { transaction throws(StoreError) in
            _ = try transaction.storePage(ListPage(items: rows, nextCursor: nil), list: key, replacing: true)
        }
    }

    /// Stores `get_config`'s answer.
    static func write(config value: JSONValue, in store: OfflineStore) async throws(StoreError) {
        try await store.write { transaction throws(StoreError) in
            try transaction.put(
                CachedResource(
                    key: config, body: Data(value.jsonString().utf8), mediaType: "application/json",
                    fetchedAt: transaction.now))
        }
    }

    private static func mark(live: Bool, at date: Date) -> CachedResource {
        let body: JSONValue = ["live": .bool(live)]
        return CachedResource(
            key: sync, body: Data(body.jsonString().utf8), mediaType: "application/json", fetchedAt: date)
    }

    // MARK: Reading back

    /// What the store holds, read in one transaction: the entities, their placement, the areas, and the sync
    /// mark; `nil` when no entity was ever stored.
    public static func read(_ transaction: StoreTransaction) throws(StoreError) -> StoredHome? {
        guard let mark = try transaction.resource(sync) else { return nil }
        var entities: [EntityState] = []
        var problems = 0
        try transaction.forEachItem(states) { item throws(StoreError) in
            if let json = JSONValue(data: item.body), let state = try? EntityState(json: json) {
                entities.append(state)
            } else {
                problems += 1
            }
            return true
        }
        let areas = (try? Registries.areas(try rawItems(areas, transaction)).value) ?? []
        let devices = (try? Registries.devices(try rawItems(devices, transaction)).value) ?? []
        let entries = (try? Registries.entities(try rawItems(entityRegistry, transaction)).value) ?? []
        let live = JSONValue(data: mark.body)?["live"]?.boolValue ?? false
        return StoredHome(
            entities: entities, placement: EntityPlacement(entities: entries, devices: devices), areas: areas,
            syncedAt: mark.fetchedAt, isLive: live, unreadable: problems)
    }

    private static func rawItems(_ key: String, _ transaction: StoreTransaction) throws(StoreError) -> JSONValue {
        var items: [JSONValue] = []
        try transaction.forEachItem(key) { item throws(StoreError) in
            if let json = JSONValue(data: item.body) { items.append(json) }
            return true
        }
        return .array(items)
    }
}

/// What the store holds of one Home Assistant account, read at once.
public struct StoredHome: Sendable, Hashable {
    /// Every stored entity state.
    public var entities: [EntityState]
    /// The registries' placement of entities (H-ENT-14).
    public var placement: EntityPlacement
    /// The areas.
    public var areas: [AreaEntry]
    /// When the data was last current (H-OFF-2).
    public var syncedAt: Date
    /// Whether the connection is live now.
    public var isLive: Bool
    /// Stored entities that could not be read back (left out).
    public var unreadable: Int

    /// The read as a live feed's input.
    func live<Value>(_ value: Value) -> LiveStored<Value> {
        LiveStored(value: value, syncedAt: syncedAt, isLive: isLive)
    }
}

extension EntityState {
    /// The state in the REST shape (§2.5), times to the microsecond: what the store keeps, read back by
    /// `init(json:)`.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "entity_id": .string(entityID), "state": .string(state), "attributes": .object(attributes),
            "last_changed": .string(lastChanged.description), "last_updated": .string(lastUpdated.description),
        ]
        fields["context"] = [
            "id": .string(context.id), "parent_id": context.parentID.map { .string($0) } ?? .null,
            "user_id": context.userID.map { .string($0) } ?? .null,
        ]
        return .object(fields)
    }

    var storedBody: Data { Data(json.jsonString().utf8) }
}
