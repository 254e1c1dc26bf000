import CompanionCore
import Foundation

/// One service call (`call_service`, H-ACT-1): the entities under `target`, the other fields under
/// `service_data` (left out when empty).
public struct ServiceCall: Sendable, Hashable {
    /// The domain (`input_boolean`).
    public var domain: String
    /// The service (`toggle`).
    public var service: String
    /// The entities it acts on (`target.entity_id`).
    public var entityIDs: [String]
    /// The service's other fields.
    public var data: [String: JSONValue]
    /// Whether the result should carry the service's response (H-ACT-7).
    public var returnResponse: Bool

    /// Creates a call.
    public init(
        domain: String, service: String, entityIDs: [String] = [], data: [String: JSONValue] = [:],
        returnResponse: Bool = false
    ) {
        self.domain = domain
        self.service = service
        self.entityIDs = entityIDs
        self.data = data
        self.returnResponse = returnResponse
    }

    /// `domain.service` read from text; `nil` unless it is two non-empty parts.
    public init?(_ text: String, entityIDs: [String] = [], data: [String: JSONValue] = [:]) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(domain: String(parts[0]), service: String(parts[1]), entityIDs: entityIDs, data: data)
    }

    /// `domain.service`.
    public var name: String { "\(domain).\(service)" }

    /// The command (H-ACT-1), without its id.
    public var body: JSONValue {
        var fields: [String: JSONValue] = [
            "type": "call_service", "domain": .string(domain), "service": .string(service),
        ]
        if !entityIDs.isEmpty {
            fields["target"] = [
                "entity_id": entityIDs.count == 1 ? .string(entityIDs[0]) : .array(entityIDs.map { .string($0) })
            ]
        }
        if !data.isEmpty { fields["service_data"] = .object(data) }
        if returnResponse { fields["return_response"] = true }
        return .object(fields)
    }

    /// The entity's main action by its domain (H-ACT-8), none for an entity that is `unavailable` (H-ACT-9).
    public static func mainAction(for entity: EntityState) -> ServiceCall? {
        guard entity.state != "unavailable" else { return nil }
        let domain = entity.domain
        let service: String
        switch domain {
        case "cover", "fan", "humidifier", "input_boolean", "light", "switch", "valve": service = "toggle"
        case "button", "input_button": service = "press"
        case "scene", "script": service = "turn_on"
        case "automation": service = "trigger"
        case "lock":
            switch entity.state {
            case "unlocked", "unlocking", "opening", "open": service = "lock"
            case "locked", "locking": service = "unlock"
            default: return nil
            }
        default: return nil
        }
        return ServiceCall(domain: domain, service: service, entityIDs: [entity.entityID])
    }

    /// The state the call is expected to bring, shown only until the server's next event for the entity
    /// (H-ACT-4): a toggle flips "on" and "off"; `nil` when the call names no expected state.
    public func expectedState(from current: String) -> String? {
        switch service {
        case "toggle": return current == "on" ? "off" : current == "off" ? "on" : nil
        case "turn_on": return "on"
        case "turn_off": return "off"
        case "set_value": return data["value"].flatMap { $0.stringValue ?? ($0.doubleValue.map { "\($0)" }) }
        default: return nil
        }
    }

    /// Whether to ask for the response (H-ACT-7) given the service's description in `get_services`: always when
    /// its `response` is `{"optional": false}`, when the view wants it for `{"optional": true}`, never without
    /// a `response` key.
    public static func asksForResponse(description: JSONValue?, viewWantsIt: Bool) -> Bool {
        guard let response = description?["response"], case .object = response else { return false }
        return response["optional"]?.boolValue == true ? viewWantsIt : true
    }

    /// A service's name to show (H-ACT-10): its `name`, else its `description`, else `domain.service`, empty
    /// strings counted as absent.
    public static func title(domain: String, service: String, description: JSONValue?) -> String {
        if let name = description?.text("name") { return name }
        if let text = description?.text("description") { return text }
        return "\(domain).\(service)"
    }
}

/// How a service call ended (H-ACT-2): exactly one of these.
public enum CallOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Done: the server's context id, and the response when one was asked for.
    case done(contextID: String, response: JSONValue?)
    /// The server refused or failed it: its code and its message, word for word.
    case failed(code: String, message: String)
    /// The connection dropped after the call left: it may or may not have happened (never resent, H-ACT-3).
    case unknown(String)
    /// Not sent: the connection is not ready, and a call is never kept for later (H-CONN-13, H-OFF-4).
    case notConnected(String)

    /// The outcome in words.
    public var description: String {
        switch self {
        case .done(let context, _): return "done (context \(context))"
        case .failed(_, let message): return message
        case .unknown: return "The server may or may not have done it."
        case .notConnected(let why): return "Not sent: not connected to Home Assistant (\(why))."
        }
    }

    /// Whether the call is known to have been done.
    public var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}

/// One value of a `render_template` subscription (H-ACT-11): the result (any JSON) and what it listens to.
public struct TemplateRender: Sendable, Hashable {
    /// The rendered result, as Home Assistant typed it (45.0 is a number, not a string).
    public var result: JSONValue
    /// The entities it listens to.
    public var entities: [String]
    /// Whether it listens to every state change.
    public var all: Bool

    /// Reads one event; `nil` when it has no `result`.
    init?(json: JSONValue) {
        guard let result = json["result"] else { return nil }
        self.result = result
        entities = json["listeners"]?["entities"]?.arrayValue?.compactMap(\.stringValue) ?? []
        all = json["listeners"]?["all"]?.boolValue ?? false
    }
}
