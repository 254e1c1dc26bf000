import CompanionCore
import Foundation

/// An area of `config/area_registry/list`.
public struct AreaEntry: Sendable, Hashable, Codable, Identifiable {
    /// The area's id (`area_id`).
    public var id: String
    /// Its name.
    public var name: String
    /// The floor it is on, if any.
    public var floorID: String?
    /// Its icon, if any.
    public var icon: String?

    /// Creates an area.
    public init(id: String, name: String, floorID: String? = nil, icon: String? = nil) {
        self.id = id
        self.name = name
        self.floorID = floorID
        self.icon = icon
    }
}

/// A device of `config/device_registry/list`.
public struct DeviceEntry: Sendable, Hashable, Codable, Identifiable {
    /// The device's id.
    public var id: String
    /// The area it is placed in, if any.
    public var areaID: String?
    /// The integration's name for it.
    public var name: String?
    /// The name the user gave it, which wins when set.
    public var nameByUser: String?
    /// Its maker.
    public var manufacturer: String?
    /// Its model.
    public var model: String?
    /// Why it is disabled, if it is.
    public var disabledBy: String?

    /// Creates a device.
    public init(
        id: String, areaID: String? = nil, name: String? = nil, nameByUser: String? = nil,
        manufacturer: String? = nil, model: String? = nil, disabledBy: String? = nil
    ) {
        self.id = id
        self.areaID = areaID
        self.name = name
        self.nameByUser = nameByUser
        self.manufacturer = manufacturer
        self.model = model
        self.disabledBy = disabledBy
    }

    /// The name to show: the user's, else the integration's.
    public var displayName: String? { nameByUser ?? name }
}

/// An entity of `config/entity_registry/list`.
public struct EntityEntry: Sendable, Hashable, Codable, Identifiable {
    /// The entity id.
    public var entityID: String
    /// The area set on the entity itself, if any.
    public var areaID: String?
    /// The device it belongs to, if any.
    public var deviceID: String?
    /// Why it is hidden, if it is (`user`, `integration`).
    public var hiddenBy: String?
    /// `config` or `diagnostic`, if it is one.
    public var entityCategory: String?
    /// Why it is disabled, if it is.
    public var disabledBy: String?
    /// The name the user gave it.
    public var name: String?
    /// The integration's name for it.
    public var originalName: String?
    /// The integration that made it.
    public var platform: String?
    /// Its unique id within the platform.
    public var uniqueID: String?

    /// Creates an entry.
    public init(
        entityID: String, areaID: String? = nil, deviceID: String? = nil, hiddenBy: String? = nil,
        entityCategory: String? = nil, disabledBy: String? = nil, name: String? = nil, originalName: String? = nil,
        platform: String? = nil, uniqueID: String? = nil
    ) {
        self.entityID = entityID
        self.areaID = areaID
        self.deviceID = deviceID
        self.hiddenBy = hiddenBy
        self.entityCategory = entityCategory
        self.disabledBy = disabledBy
        self.name = name
        self.originalName = originalName
        self.platform = platform
        self.uniqueID = uniqueID
    }

    /// The entity id, for `Identifiable`.
    public var id: String { entityID }
}

/// Reading the three registry lists (§2.6), each item on its own.
///
/// Rule: a list is JSON decoded as a value, never compared as bytes (HA 2025.4.4 writes `"type": "result"` with a
/// space in the device and entity lists, H-ENT-13); an item without its id (and for an area, its name) is left
/// out with its sentence; an optional field of another type reads as absent.
public enum Registries {
    /// Reads `config/area_registry/list`.
    public static func areas(_ json: JSONValue) throws(HomeAssistantReadError) -> WireRead<[AreaEntry]> {
        try items(json, "area registry") { fields in
            guard let id = fields.text("area_id"), let name = fields["name"]?.stringValue else {
                return .failure("an area without its area_id or name was left out")
            }
            return .success(AreaEntry(id: id, name: name, floorID: fields.text("floor_id"), icon: fields.text("icon")))
        }
    }

    /// Reads `config/device_registry/list`.
    public static func devices(_ json: JSONValue) throws(HomeAssistantReadError) -> WireRead<[DeviceEntry]> {
        try items(json, "device registry") { fields in
            guard let id = fields.text("id") else { return .failure("a device without its id was left out") }
            return .success(
                DeviceEntry(
                    id: id, areaID: fields.text("area_id"), name: fields.text("name"),
                    nameByUser: fields.text("name_by_user"), manufacturer: fields.text("manufacturer"),
                    model: fields.text("model"), disabledBy: fields.text("disabled_by")))
        }
    }

    /// Reads `config/entity_registry/list`.
    public static func entities(_ json: JSONValue) throws(HomeAssistantReadError) -> WireRead<[EntityEntry]> {
        try items(json, "entity registry") { fields in
            guard let id = fields.text("entity_id"), EntityID.isValid(id) else {
                return .failure("an entity without a valid entity_id was left out")
            }
            return .success(
                EntityEntry(
                    entityID: id, areaID: fields.text("area_id"), deviceID: fields.text("device_id"),
                    hiddenBy: fields.text("hidden_by"), entityCategory: fields.text("entity_category"),
                    disabledBy: fields.text("disabled_by"), name: fields.text("name"),
                    originalName: fields.text("original_name"), platform: fields.text("platform"),
                    uniqueID: fields.text("unique_id")))
        }
    }

    private enum Item<Value> {
        case success(Value)
        case failure(String)
    }

    private static func items<Value>(
        _ json: JSONValue, _ what: String, _ read: (JSONValue) -> Item<Value>
    ) throws(HomeAssistantReadError) -> WireRead<[Value]> {
        guard case .array(let list) = json else {
            throw HomeAssistantReadError(what, "it is \(json.kindName), not a list")
        }
        var values: [Value] = []
        var problems: [String] = []
        for (index, item) in list.enumerated() {
            guard case .object = item else {
                problems.append("Item \(index + 1) of the \(what) was left out: it is \(item.kindName).")
                continue
            }
            switch read(item) {
            case .success(let value): values.append(value)
            case .failure(let reason): problems.append("Item \(index + 1) of the \(what): \(reason).")
            }
        }
        return WireRead(values, problems: problems)
    }
}

/// Where an entity shows: its area and whether it belongs in area groups (H-ENT-14).
public struct EntityPlacement: Sendable, Hashable {
    /// The registries' entries by entity id.
    public var entries: [String: EntityEntry]
    /// The devices by id.
    public var devices: [String: DeviceEntry]

    /// Creates the placement from the three registry lists.
    public init(entities: [EntityEntry] = [], devices: [DeviceEntry] = []) {
        self.entries = Dictionary(entities.map { ($0.entityID, $0) }, uniquingKeysWith: { _, last in last })
        self.devices = Dictionary(devices.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The area of `entityID`: its entry's `area_id`, else its device's, else none ("Unassigned").
    public func areaID(of entityID: String) -> String? {
        guard let entry = entries[entityID] else { return nil }
        if let area = entry.areaID { return area }
        return entry.deviceID.flatMap { devices[$0]?.areaID }
    }

    /// Whether `entityID` is listed in area groups: not when hidden, nor when a `config` or `diagnostic` entity
    /// (it stays in domain lists and search).
    public func showsInAreas(_ entityID: String) -> Bool {
        guard let entry = entries[entityID] else { return true }
        if entry.hiddenBy != nil { return false }
        return entry.entityCategory != "config" && entry.entityCategory != "diagnostic"
    }
}
