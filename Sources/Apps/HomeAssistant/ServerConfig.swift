import CompanionCore
import Foundation

/// The server's configuration, as `get_config` and `GET /api/config` give it (§2.5).
///
/// Only `version` and `components` are required: the version is shown and `components` decides whether the
/// device can register (H-MOB-1). Everything else is read when present and of its type, and absent otherwise.
public struct ServerConfig: Sendable, Hashable, Codable {
    /// Home Assistant's version ("2025.4.4").
    public var version: String
    /// The integrations loaded ("mobile_app", "api", …).
    public var components: [String]
    /// The home's name.
    public var locationName: String?
    /// The home's time zone ("UTC", "Europe/Amsterdam").
    public var timeZone: String?
    /// The home address the server names (`internal_url`), if set.
    public var internalURL: String?
    /// The away address the server names (`external_url`), if set.
    public var externalURL: String?
    /// The server's run state ("RUNNING", "STARTING").
    public var state: String?
    /// The unit system, as the server sends it.
    public var unitSystem: [String: JSONValue]
    /// The home's latitude.
    public var latitude: Double?
    /// The home's longitude.
    public var longitude: Double?

    /// Creates a configuration.
    public init(
        version: String, components: [String], locationName: String? = nil, timeZone: String? = nil,
        internalURL: String? = nil, externalURL: String? = nil, state: String? = nil,
        unitSystem: [String: JSONValue] = [:], latitude: Double? = nil, longitude: Double? = nil
    ) {
        self.version = version
        self.components = components
        self.locationName = locationName
        self.timeZone = timeZone
        self.internalURL = internalURL
        self.externalURL = externalURL
        self.state = state
        self.unitSystem = unitSystem
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether `mobile_app` is loaded, so the device may register (H-MOB-1).
    public var hasMobileApp: Bool { components.contains("mobile_app") }

    /// Reads `get_config`'s result. A component that is not a string is left out with its sentence; an optional
    /// field of another type is left out with its sentence; no `version` or `components` list refuses it.
    public static func read(_ json: JSONValue) throws(HomeAssistantReadError) -> WireRead<ServerConfig> {
        guard case .object(let fields) = json else {
            throw HomeAssistantReadError("configuration", "it is \(json.kindName), not an object")
        }
        guard case .string(let version)? = fields["version"] else {
            throw HomeAssistantReadError("configuration", "its version is missing or not a string")
        }
        guard case .array(let list)? = fields["components"] else {
            throw HomeAssistantReadError("configuration", "its list of components is missing")
        }
        var problems: [String] = []
        let components = list.compactMap(\.stringValue)
        if components.count != list.count {
            problems.append("\(list.count - components.count) of the configuration's components were not names.")
        }
        func optionalText(_ key: String) -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text.isEmpty ? nil : text
            case let other?:
                problems.append("The configuration's \(key) was left out: it is \(other.kindName), not a string.")
                return nil
            }
        }
        var config = ServerConfig(version: version, components: components)
        config.locationName = optionalText("location_name")
        config.timeZone = optionalText("time_zone")
        config.internalURL = optionalText("internal_url")
        config.externalURL = optionalText("external_url")
        config.state = optionalText("state")
        config.unitSystem = fields["unit_system"]?.objectValue ?? [:]
        config.latitude = fields["latitude"]?.doubleValue
        config.longitude = fields["longitude"]?.doubleValue
        return WireRead(config, problems: problems)
    }
}
