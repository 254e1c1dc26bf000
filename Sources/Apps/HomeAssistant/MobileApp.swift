import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionCrypto
import CompanionHTTP
import Foundation

/// What the device tells Home Assistant about itself when it registers (H-MOB-2).
public struct DeviceInfo: Sendable, Hashable {
    /// A random id made once per install and server.
    public var deviceID: String
    /// The app's bundle id.
    public var appID: String
    /// The app's name.
    public var appName: String
    /// The app's version.
    public var appVersion: String
    /// The device's name, which Home Assistant puts before each sensor's name.
    public var deviceName: String
    /// The maker.
    public var manufacturer: String
    /// The model.
    public var model: String
    /// The operating system's name.
    public var osName: String
    /// The operating system's version.
    public var osVersion: String
    /// The push token and the relay's URL, only as a pair (Home Assistant refuses one without the other).
    public var push: (token: String, url: String)?

    /// Creates the device's description.
    public init(
        deviceID: String, appID: String, appName: String, appVersion: String, deviceName: String,
        manufacturer: String, model: String, osName: String, osVersion: String,
        push: (token: String, url: String)? = nil
    ) {
        self.deviceID = deviceID
        self.appID = appID
        self.appName = appName
        self.appVersion = appVersion
        self.deviceName = deviceName
        self.manufacturer = manufacturer
        self.model = model
        self.osName = osName
        self.osVersion = osVersion
        self.push = push
    }

    /// Equal when every field and the push pair are.
    public static func == (lhs: DeviceInfo, rhs: DeviceInfo) -> Bool {
        lhs.body(encrypted: false) == rhs.body(encrypted: false)
    }

    /// Hashes the fields.
    public func hash(into hasher: inout Hasher) { hasher.combine(body(encrypted: false)) }

    /// The registration body (§2.8): the fields, `supports_encryption`, and `app_data` with
    /// `push_websocket_channel: true` plus the push pair when there is one.
    func body(encrypted: Bool) -> JSONValue {
        var appData: [String: JSONValue] = ["push_websocket_channel": true]
        if let push {
            appData["push_token"] = .string(push.token)
            appData["push_url"] = .string(push.url)
        }
        return .object([
            "device_id": .string(deviceID), "app_id": .string(appID), "app_name": .string(appName),
            "app_version": .string(appVersion), "device_name": .string(deviceName),
            "manufacturer": .string(manufacturer), "model": .string(model), "os_name": .string(osName),
            "os_version": .string(osVersion), "supports_encryption": .bool(encrypted), "app_data": .object(appData),
        ])
    }
}

/// This device's registration with Home Assistant's `mobile_app`: secrets all (H-MOB-4), kept only in the
/// secret store, replaced together (H-MOB-3), and never printed (`description` names none of them).
public struct MobileAppRegistration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The webhook id (64 hex characters): whoever knows it can send as this device.
    public var webhookID: String
    /// The encryption key (64 hex characters), when the registration is encrypted.
    public var secret: String?
    /// Home Assistant Cloud's webhook URL, when there is one.
    public var cloudhookURL: String?
    /// Home Assistant Cloud's remote address, when there is one.
    public var remoteUIURL: String?

    /// Creates a registration.
    public init(webhookID: String, secret: String? = nil, cloudhookURL: String? = nil, remoteUIURL: String? = nil) {
        self.webhookID = webhookID
        self.secret = secret
        self.cloudhookURL = cloudhookURL
        self.remoteUIURL = remoteUIURL
    }

    /// Whether webhooks are encrypted; never a secret's value.
    public var description: String { secret == nil ? "mobile_app registration" : "encrypted mobile_app registration" }

    /// The secret values inside, to register with the journal.
    var secretValues: [String] { [webhookID] + [secret, cloudhookURL].compactMap { $0 } }
}

/// Why a `mobile_app` step failed, in a sentence a person can act on; never a secret.
public enum MobileAppError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The server does not load `mobile_app` (H-MOB-1): nothing was sent.
    case mobileAppMissing
    /// The device is not registered on this server yet.
    case notRegistered
    /// Home Assistant answered a status this step does not expect.
    case refused(status: Int, what: String)
    /// The reply could not be read (or, encrypted, not opened).
    case unreadable(String)
    /// The network or server failed.
    case http(HTTPError)
    /// The secret store failed.
    case store(SecretStoreError)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .mobileAppMissing:
            return "This Home Assistant does not load mobile_app, so the device cannot register. "
                + "Add mobile_app (or default_config) to its configuration."
        case .notRegistered: return "This device is not registered with this Home Assistant yet."
        case .refused(let status, let what): return "Home Assistant answered \(what) with status \(status)."
        case .unreadable(let reason): return "Home Assistant's mobile_app reply could not be read: \(reason)."
        case .http(let error): return error.description
        case .store(let error): return error.description
        }
    }

    /// The same sentence, for `LocalizedError` users.
    public var errorDescription: String? { description }
}

/// A sensor the device reports (H-MOB-11): registered once per registration under a `unique_id` that never
/// changes for the install.
public struct MobileSensor: Sendable, Hashable {
    /// `sensor` or `binary_sensor`.
    public var type: String
    /// The id, fixed for the install.
    public var uniqueID: String
    /// The name Home Assistant puts after the device's name.
    public var name: String
    /// The state.
    public var state: JSONValue
    /// Other fields of `register_sensor` (`unit_of_measurement`, `device_class`, `state_class`, `icon`,
    /// `entity_category`, `attributes`).
    public var fields: [String: JSONValue]

    /// Creates a sensor.
    public init(
        type: String = "sensor", uniqueID: String, name: String, state: JSONValue, fields: [String: JSONValue] = [:]
    ) {
        self.type = type
        self.uniqueID = uniqueID
        self.name = name
        self.state = state
        self.fields = fields
    }

    /// The battery level sensor, in percent.
    public static func battery(level: Int) -> MobileSensor {
        MobileSensor(
            uniqueID: "battery_level", name: "Battery Level", state: .integer(Int64(level)),
            fields: [
                "unit_of_measurement": "%", "device_class": "battery", "state_class": "measurement",
                "icon": "mdi:battery", "entity_category": "diagnostic",
            ])
    }
}

/// A location fix for `update_location` (H-MOB-14): `gps` is sent only with its accuracy, and the integers are
/// whole numbers of at least 0.
public struct LocationFix: Sendable, Hashable {
    /// Latitude and longitude.
    public var latitude: Double
    /// Longitude.
    public var longitude: Double
    /// The accuracy in metres.
    public var accuracy: Int
    /// The battery level, if known.
    public var battery: Int?
    /// The altitude in metres, if known.
    public var altitude: Double?

    /// Creates a fix.
    public init(latitude: Double, longitude: Double, accuracy: Int, battery: Int? = nil, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.battery = battery
        self.altitude = altitude
    }

    var data: JSONValue {
        var fields: [String: JSONValue] = [
            "gps": .array([.number(latitude), .number(longitude)]), "gps_accuracy": .integer(Int64(max(0, accuracy))),
        ]
        if let battery { fields["battery"] = .integer(Int64(max(0, battery))) }
        if let altitude { fields["altitude"] = .number(altitude) }
        return .object(fields)
    }
}

/// The device's `mobile_app` on one signed-in account: registration over REST with the Bearer token, then
/// webhooks without it (H-MOB-1..14, H-NET-7).
///
/// Rules:
/// - Registration is tried only when `get_config` lists `mobile_app` (H-MOB-1); each POST makes a new
///   webhook id, so the one registration is replaced whole, in one secret-store write (H-MOB-3).
/// - The registration's values are secrets: in the secret store only, registered with the journal so a logged
///   webhook path reads `/api/webhook/•••` (H-MOB-4).
/// - Webhooks carry no `Authorization` header (H-NET-7). With a secret, the body is `{"type", "encrypted": true,
///   "encrypted_data"}` with the 24-byte nonce and the NaCl secretbox of the data (`{}` when none) in padded
///   standard base64 (H-MOB-5, H-MOB-6); an encrypted reply is opened with the same key, and one that cannot be
///   opened is an error (H-MOB-7).
/// - A webhook is a write: sent once, never resent by the transport.
public struct MobileApp: Sendable {
    /// The account's server.
    public let server: HomeAssistantServer

    /// The device of `server`'s account.
    public init(server: HomeAssistantServer) { self.server = server }

    private var bundle: ServerBundle { server.bundle }

    /// Where the registration is kept in the secret store: one per account.
    var recordKey: SecretRecordKey { SecretRecordKey(.device, bundle.account.rawValue) }

    /// The stored registration, if the device is registered.
    public func registration() throws(MobileAppError) -> MobileAppRegistration? {
        let data: Data?
        do {
            data = try bundle.secrets.loadRecord(recordKey)
        } catch {
            throw .store(error)
        }
        guard let data, let json = JSONValue(data: data), let id = json.text("webhook_id") else { return nil }
        let registration = MobileAppRegistration(
            webhookID: id, secret: json.text("secret"), cloudhookURL: json.text("cloudhook_url"),
            remoteUIURL: json.text("remote_ui_url"))
        for value in registration.secretValues { bundle.journal.register(secret: value) }
        return registration
    }

    /// Registers the device (H-MOB-1..3): only when `config` lists `mobile_app`; `encrypted` asks for a secret.
    @discardableResult
    public func register(_ device: DeviceInfo, config: ServerConfig, encrypted: Bool = true)
        async throws(MobileAppError)
        -> MobileAppRegistration
    {
        guard config.hasMobileApp else { throw .mobileAppMissing }
        var request = Request<Void>.empty(
            .post, "/api/mobile_app/registrations",
            body: Data(device.body(encrypted: encrypted).jsonString().utf8),
            headers: ["Content-Type": "application/json"])
        request.retryPolicy = .never
        let reply: Reply<Void>
        do {
            reply = try await bundle.client.reply(request)
        } catch {
            throw .http(error)
        }
        if reply.status == 404 { throw .mobileAppMissing }
        guard reply.status == 201, let json = JSONValue(data: reply.body), let id = json.text("webhook_id") else {
            throw .refused(status: reply.status, what: "the device's registration")
        }
        let registration = MobileAppRegistration(
            webhookID: id, secret: json.text("secret"), cloudhookURL: json.text("cloudhook_url"),
            remoteUIURL: json.text("remote_ui_url"))
        for value in registration.secretValues { bundle.journal.register(secret: value) }
        var record: [String: JSONValue] = ["webhook_id": .string(id)]
        record["secret"] = registration.secret.map(JSONValue.string)
        record["cloudhook_url"] = registration.cloudhookURL.map(JSONValue.string)
        record["remote_ui_url"] = registration.remoteUIURL.map(JSONValue.string)
        do {
            try bundle.secrets.saveRecord(Data(JSONValue.object(record).jsonString().utf8), for: recordKey)
        } catch {
            throw .store(error)
        }
        bundle.journal.record(.auth, "registered this device with mobile_app (\(registration))")
        return registration
    }

    /// Sends the webhook `type` with `data` and returns the reply's JSON (`nil` for an empty body), opened when
    /// encrypted; `expecting` lists the statuses that are this webhook's success.
    public func webhook(_ type: String, data: JSONValue? = nil, expecting: Set<Int> = [200, 201])
        async throws(MobileAppError) -> JSONValue?
    {
        guard let registration = try registration() else { throw .notRegistered }
        let body: JSONValue
        if let secret = registration.secret {
            body = .object([
                "type": .string(type), "encrypted": true,
                "encrypted_data": .string(try Self.seal(data ?? .object([:]), secret: secret)),
            ])
        } else {
            var fields: [String: JSONValue] = ["type": .string(type)]
            if let data { fields["data"] = data }
            body = .object(fields)
        }
        var request = Request<Void>.empty(
            .post, "/api/webhook/\(registration.webhookID)", body: Data(body.jsonString().utf8),
            headers: ["Content-Type": "application/json"])
        request.retryPolicy = .never
        // No credential: a client of the environment's, not the bundle's (H-NET-7).
        let client = bundle.environment.client(for: bundle.baseURL, profile: HomeAssistantServer.profile)
        let reply: Reply<Void>
        do {
            reply = try await client.reply(request)
        } catch {
            throw .http(error)
        }
        guard expecting.contains(reply.status) else {
            throw .refused(status: reply.status, what: "the \(type) webhook")
        }
        guard !reply.body.isEmpty else { return nil }
        guard let json = JSONValue(data: reply.body) else { throw .unreadable("the \(type) reply is not JSON") }
        if json["encrypted"] == true, let sealed = json.text("encrypted_data"), let secret = registration.secret {
            return try Self.open(sealed, secret: secret)
        }
        return json
    }

    /// Registers `sensor` (H-MOB-11): answered 201 `{"success": true}`.
    public func registerSensor(_ sensor: MobileSensor) async throws(MobileAppError) {
        var data = sensor.fields
        data["type"] = .string(sensor.type)
        data["unique_id"] = .string(sensor.uniqueID)
        data["name"] = .string(sensor.name)
        data["state"] = sensor.state
        let reply = try await webhook("register_sensor", data: .object(data), expecting: [201])
        guard reply?["success"] == true else { throw .unreadable("register_sensor did not answer success") }
    }

    /// Sends `sensors`' states (`update_sensor_states`) and returns each one's answer by unique id.
    public func updateSensors(_ sensors: [MobileSensor]) async throws(MobileAppError) -> [String: JSONValue] {
        let list = sensors.map { sensor -> JSONValue in
            var item: [String: JSONValue] = [
                "type": .string(sensor.type), "unique_id": .string(sensor.uniqueID), "state": sensor.state,
            ]
            if let icon = sensor.fields["icon"] { item["icon"] = icon }
            if let attributes = sensor.fields["attributes"] { item["attributes"] = attributes }
            return .object(item)
        }
        let reply = try await webhook("update_sensor_states", data: .array(list), expecting: [200])
        return reply?.objectValue ?? [:]
    }

    /// Sends a location fix (H-MOB-14).
    public func updateLocation(_ fix: LocationFix) async throws(MobileAppError) {
        _ = try await webhook("update_location", data: fix.data, expecting: [200])
    }

    /// The zones (`get_zones`), read as states.
    public func zones() async throws(MobileAppError) -> WireRead<[EntityState]> {
        guard let reply = try await webhook("get_zones", expecting: [200]) else { return WireRead([]) }
        do {
            return try EntityState.list(reply)
        } catch {
            throw .unreadable(error.description)
        }
    }

    // MARK: Encryption

    /// `data` sealed under the registration's hex secret with a fresh nonce: base64 (padded) of nonce ‖ box.
    static func seal(_ data: JSONValue, secret: String) throws(MobileAppError) -> String {
        guard let key = hex(secret), key.count == SecretBox.keyLength else {
            throw .unreadable("the registration's secret is not 64 hex characters")
        }
        do {
            let nonce = try SecureRandom.bytes(SecretBox.nonceLength)
            let box = try SecretBox.seal(Data(data.jsonString().utf8), key: key, nonce: nonce)
            return (nonce + box).base64EncodedString()
        } catch {
            throw .unreadable("the webhook could not be sealed: \(error.description)")
        }
    }

    /// Opens an `encrypted_data` reply.
    static func open(_ sealed: String, secret: String) throws(MobileAppError) -> JSONValue {
        guard let key = hex(secret), let data = Data(base64Encoded: sealed), data.count >= SecretBox.nonceLength
        else { throw .unreadable("the encrypted reply is not base64 of a nonce and a box") }
        let opened: Data
        do {
            opened = try SecretBox.open(
                data.dropFirst(SecretBox.nonceLength), key: key, nonce: data.prefix(SecretBox.nonceLength))
        } catch {
            throw .unreadable("the encrypted reply could not be opened with this device's key")
        }
        guard let json = JSONValue(data: opened) else { throw .unreadable("the opened reply is not JSON") }
        return json
    }

    static func hex(_ text: String) -> Data? {
        guard text.count % 2 == 0 else { return nil }
        var bytes = Data()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
