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

    /// Reads the description kept with the registration (for registering again, H-MOB-8).
    init?(record json: JSONValue) {
        guard let deviceID = json.text("device_id"), let appID = json.text("app_id"),
            let appName = json.text("app_name"), let appVersion = json.text("app_version"),
            let deviceName = json.text("device_name"), let manufacturer = json.text("manufacturer"),
            let model = json.text("model"), let osName = json.text("os_name"), let osVersion = json.text("os_version")
        else { return nil }
        var push: (token: String, url: String)?
        if let token = json["app_data"]?.text("push_token"), let url = json["app_data"]?.text("push_url") {
            push = (token, url)
        }
        self.init(
            deviceID: deviceID, appID: appID, appName: appName, appVersion: appVersion, deviceName: deviceName,
            manufacturer: manufacturer, model: model, osName: osName, osVersion: osVersion, push: push)
    }

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
    /// The account is signed out: no webhook is sent (H-MOB-18).
    case signedOut
    /// The registration cannot be used (deleted in Home Assistant, its key lost), and registering again once did
    /// not help (H-MOB-8).
    case registrationUnusable(String)
    /// The secret store failed.
    case store(SecretStoreError)
    /// Home Assistant refused the webhook with its own error code and message (as `encryption_already_enabled`,
    /// "Encryption already enabled"), surfaced word for word.
    case serverError(code: String, message: String, what: String)

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
        case .signedOut:
            return "This account is signed out, so the device sends nothing to Home Assistant. Sign in again."
        case .registrationUnusable(let why):
            return "This device's registration with Home Assistant cannot be used (\(why)), and registering again did "
                + "not help. Remove the device in Home Assistant and register again."
        case .store(let error): return error.description
        case .serverError(let code, let message, let what):
            return "Home Assistant refused \(what): \(message) (\(code))."
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
    /// Whether the device is at home (the glue's network match or `HomeProbe`); `nil`, not known, counts as away.
    public var atHome: Bool?
    /// Middlewares on every webhook request (a test's recorder).
    public var middlewares: [any Middleware]

    /// The device of `server`'s account.
    public init(server: HomeAssistantServer, atHome: Bool? = nil, middlewares: [any Middleware] = []) {
        self.server = server
        self.atHome = atHome
        self.middlewares = middlewares
    }

    private var bundle: ServerBundle { server.bundle }

    /// Where the registration is kept in the secret store: one per account.
    var recordKey: SecretRecordKey { SecretRecordKey(.device, bundle.account.rawValue) }

    /// The stored registration, if the device is registered.
    public func registration() throws(MobileAppError) -> MobileAppRegistration? {
        guard let json = try record(), let id = json.text("webhook_id") else { return nil }
        let registration = MobileAppRegistration(
            webhookID: id, secret: json.text("secret"), cloudhookURL: json.text("cloudhook_url"),
            remoteUIURL: json.text("remote_ui_url"))
        for value in registration.secretValues { bundle.journal.register(secret: value) }
        return registration
    }

    /// The device id the registration was made with (made once per install and server, H-MOB-2), if registered.
    public func deviceID() throws(MobileAppError) -> String? {
        try record()?["device"]?.text("device_id")
    }

    /// The stored record: the registration's secrets, the device's description, the sensors Home Assistant
    /// reported disabled, and what the webhook `get_config` last said.
    func record() throws(MobileAppError) -> JSONValue? {
        let data: Data?
        do {
            data = try bundle.secrets.loadRecord(recordKey)
        } catch {
            throw .store(error)
        }
        return data.flatMap { JSONValue(data: $0) }
    }

    /// Replaces the stored record in one write (H-MOB-3).
    func save(_ record: [String: JSONValue]) throws(MobileAppError) {
        do {
            try bundle.secrets.saveRecord(Data(JSONValue.object(record).jsonString().utf8), for: recordKey)
        } catch {
            throw .store(error)
        }
    }

    /// Changes the stored record's fields (not the registration's secrets) in one write.
    func update(_ change: (inout [String: JSONValue]) -> Void) throws(MobileAppError) {
        guard var fields = try record()?.objectValue else { throw .notRegistered }
        change(&fields)
        try save(fields)
    }

    /// Forgets the registration: its webhook id, key and cloudhook leave the secret store (Home Assistant keeps the
    /// device until an admin removes it).
    public func forgetRegistration() throws(MobileAppError) {
        do {
            try bundle.secrets.deleteRecord(recordKey)
        } catch {
            throw .store(error)
        }
    }

    /// Signs out on purpose (H-MOB-18, H-TOK-9): the registration's secrets are deleted, then the account signs
    /// out (the refresh token revoked). Returns the revoke's failure, if any.
    @discardableResult
    public func signOut() async throws(MobileAppError) -> AuthError? {
        try forgetRegistration()
        return await server.signOut()
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
        record["device"] = device.body(encrypted: encrypted)
        record["encrypted"] = .bool(encrypted)
        try save(record)
        bundle.journal.record(.auth, "registered this device with mobile_app (\(registration))")
        return registration
    }

    /// Registers again with the stored description (H-MOB-8): a new webhook id (and key) replaces the unusable one.
    func registerAgain() async throws(MobileAppError) {
        guard let record = try record(), let deviceJSON = record["device"], let device = DeviceInfo(record: deviceJSON)
        else { throw .notRegistered }
        let config: ServerConfig
        do {
            config = try await server.config().value
        } catch let error as HTTPError {
            throw .http(error)
        } catch {
            throw .unreadable("\(error)")
        }
        bundle.journal.record(.auth, "mobile_app: the registration cannot be used; registering this device again")
        try await register(device, config: config, encrypted: record["encrypted"] == true)
    }

    /// Sends the webhook `type` with `data` and returns the reply's JSON (`nil` for an empty body), opened when
    /// encrypted; `expecting` lists the statuses that are this webhook's success.
    ///
    /// Rules:
    /// - Nothing is sent while the account is signed out (H-MOB-18).
    /// - It goes to the cloudhook when the registration has one and the device is not at home, else to the account's
    ///   address (whose transport uses the home address while it answers); a cloudhook 503 is sent once more to the
    ///   account's address (H-MOB-9).
    /// - 410, 400 `encryption_required`, a 200 with an empty body (an unknown webhook id) and a cloudhook 404 mean the
    ///   registration cannot be used: the device registers again once and the webhook is sent once more to the new
    ///   id (H-MOB-8). A 200 `{}` proves nothing (Home Assistant answers schema errors that way) and is returned as
    ///   it came.
    public func webhook(_ type: String, data: JSONValue? = nil, expecting: Set<Int> = [200, 201])
        async throws(MobileAppError) -> JSONValue?
    {
        if let session = bundle.session, await session.credential == nil { throw .signedOut }
        switch try await send(type, data: data, expecting: expecting) {
        case .reply(let json): return json
        case .unusable:
            try await registerAgain()
            switch try await send(type, data: data, expecting: expecting) {
            case .reply(let json): return json
            case .unusable(let why): throw .registrationUnusable(why)
            }
        }
    }

    /// A webhook's outcome: its reply, or the registration found unusable (H-MOB-8).
    enum Outcome {
        case reply(JSONValue?)
        case unusable(String)
    }

    /// Sends the webhook once (to the cloudhook and, after its 503, once to the account's address).
    func send(_ type: String, data: JSONValue?, expecting: Set<Int>) async throws(MobileAppError) -> Outcome {
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
        var cloudhook: URL?
        if atHome != true, let text = registration.cloudhookURL, let url = URL(string: text) { cloudhook = url }
        var reply = try await post(body, to: cloudhook, webhookID: registration.webhookID)
        if cloudhook != nil, reply.status == 503 {
            cloudhook = nil
            reply = try await post(body, to: nil, webhookID: registration.webhookID)
        }
        if let why = Self.unusable(status: reply.status, body: reply.body, viaCloudhook: cloudhook != nil) {
            return .unusable(why)
        }
        guard expecting.contains(reply.status) else {
            if let error = JSONValue(data: reply.body)?["error"], let code = error.text("code") {
                throw .serverError(code: code, message: error.text("message") ?? code, what: "the \(type) webhook")
            }
            throw .refused(status: reply.status, what: "the \(type) webhook")
        }
        guard !reply.body.isEmpty else { return .reply(nil) }
        guard let json = JSONValue(data: reply.body) else { throw .unreadable("the \(type) reply is not JSON") }
        if json["encrypted"] == true, let sealed = json.text("encrypted_data"), let secret = registration.secret {
            return .reply(try Self.open(sealed, secret: secret))
        }
        return .reply(json)
    }

    /// Why a webhook's status says the registration cannot be used, or `nil` (H-MOB-8).
    static func unusable(status: Int, body: Data, viaCloudhook: Bool) -> String? {
        switch status {
        case 410: return "Home Assistant answered 410: the registration was deleted"
        case 404 where viaCloudhook: return "the cloudhook answered 404"
        case 400 where JSONValue(data: body)?["error"]?.text("code") == "encryption_required":
            return "Home Assistant requires encryption, and this device has no key for it"
        case 200 where body.isEmpty: return "Home Assistant does not know this webhook id"
        default: return nil
        }
    }

    /// Posts `body` to `cloudhook`, or to the account's `/api/webhook/<id>`, without the credential (H-NET-7).
    func post(_ body: JSONValue, to cloudhook: URL?, webhookID: String) async throws(MobileAppError) -> Reply<Void> {
        var origin = cloudhook.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
        origin?.path = ""
        origin?.query = nil
        let base = origin?.url ?? bundle.baseURL
        let path = cloudhook.map { $0.path } ?? "/api/webhook/\(webhookID)"
        var request = Request<Void>.empty(
            .post, path, body: Data(body.jsonString().utf8), headers: ["Content-Type": "application/json"])
        request.retryPolicy = .never
        // No credential: a client of the environment's, not the bundle's (H-NET-7).
        let client = bundle.environment.client(
            for: base, profile: HomeAssistantServer.profile, middlewares: middlewares)
        do {
            return try await client.reply(request)
        } catch {
            throw .http(error)
        }
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
        try acknowledge([sensor])
    }

    /// What `update_sensor_states` sends for `sensor`: its type, id, state, and its icon and attributes when set.
    static func sensorUpdate(_ sensor: MobileSensor) -> JSONValue {
        var item: [String: JSONValue] = [
            "type": .string(sensor.type), "unique_id": .string(sensor.uniqueID), "state": sensor.state,
        ]
        if let icon = sensor.fields["icon"] { item["icon"] = icon }
        if let attributes = sensor.fields["attributes"] { item["attributes"] = attributes }
        return .object(item)
    }

    /// Records `sensors` as Home Assistant last acknowledged them (H-MOB-12), in the registration's record: a new
    /// registration starts with none.
    func acknowledge(_ sensors: [MobileSensor]) throws(MobileAppError) {
        guard !sensors.isEmpty else { return }
        try update { record in
            var sent = record["sent"]?.objectValue ?? [:]
            for sensor in sensors { sent[sensor.uniqueID] = Self.sensorUpdate(sensor) }
            record["sent"] = .object(sent)
        }
    }

    /// The sensors registered or updated on this registration, by unique id: the ones Home Assistant acknowledged.
    public func knownSensors() throws(MobileAppError) -> Set<String> { Set(try acknowledged().keys) }

    /// The sensors' updates Home Assistant last acknowledged, by unique id (H-MOB-12).
    func acknowledged() throws(MobileAppError) -> [String: JSONValue] {
        try record()?["sent"]?.objectValue ?? [:]
    }

    /// Sends the states of those of `sensors` that changed (`update_sensor_states`) and returns each sent one's answer
    /// by unique id.
    ///
    /// Rules:
    /// - Only a sensor whose state, attributes or icon differ from the last send Home Assistant acknowledged
    ///   (`success: true`) is sent; with none changed, no request is made (H-MOB-12).
    /// - A sensor answered `not_registered` is registered (`register_sensor`) and then sent once more, alone with the
    ///   others so answered; one answered `invalid_format` is journalled with Home Assistant's message and not resent
    ///   (H-MOB-12).
    /// - A sensor Home Assistant answered `is_disabled: true` for is left out until the webhook `get_config` shows it
    ///   enabled again (H-MOB-13).
    public func updateSensors(_ sensors: [MobileSensor]) async throws(MobileAppError) -> [String: JSONValue] {
        let disabled = try disabledSensors()
        let sent = try acknowledged()
        let changed = sensors.filter { !disabled.contains($0.uniqueID) && sent[$0.uniqueID] != Self.sensorUpdate($0) }
        guard !changed.isEmpty else { return [:] }
        var answers = try await sendUpdates(changed)
        let unregistered = changed.filter { answers[$0.uniqueID]?["error"]?.text("code") == "not_registered" }
        if !unregistered.isEmpty {
            for sensor in unregistered { try await registerSensor(sensor) }
            answers.merge(try await sendUpdates(unregistered)) { $1 }
        }
        for sensor in changed {
            guard let error = answers[sensor.uniqueID]?["error"], error.text("code") == "invalid_format" else {
                continue
            }
            bundle.journal.record(
                .sync,
                "mobile_app: Home Assistant refused sensor \(sensor.uniqueID)'s update (invalid_format: "
                    + "\(error.text("message") ?? "no message")); not sent again")
        }
        try acknowledge(changed.filter { answers[$0.uniqueID]?["success"] == true })
        let nowDisabled = answers.filter { $0.value["is_disabled"] == true }.map(\.key)
        if !nowDisabled.isEmpty {
            try update { $0["disabled"] = .array(disabled.union(nowDisabled).sorted().map(JSONValue.string)) }
        }
        return answers
    }

    /// One `update_sensor_states` webhook with `sensors`, its answers by unique id.
    func sendUpdates(_ sensors: [MobileSensor]) async throws(MobileAppError) -> [String: JSONValue] {
        try await webhook("update_sensor_states", data: .array(sensors.map(Self.sensorUpdate)), expecting: [200])?
            .objectValue ?? [:]
    }

    /// Turns encryption on for a registration made without it (H-MOB-7): the webhook `enable_encryption`, whose plain
    /// reply `{"secret": …}` is kept in the secret store with the registration, so every later webhook is sealed.
    /// Home Assistant answers 400 `encryption_already_enabled` when it is on already (`serverError`, its words).
    @discardableResult
    public func enableEncryption() async throws(MobileAppError) -> MobileAppRegistration {
        let reply = try await webhook("enable_encryption", expecting: [200])
        guard let secret = reply?.text("secret"), Self.hex(secret)?.count == SecretBox.keyLength else {
            throw .unreadable("enable_encryption did not answer a 64-hex secret")
        }
        bundle.journal.register(secret: secret)
        guard var record = try record()?.objectValue else { throw .notRegistered }
        record["secret"] = .string(secret)
        record["encrypted"] = true
        try save(record)
        guard let registration = try registration() else { throw .notRegistered }
        bundle.journal.record(.auth, "mobile_app: encryption turned on for this device's registration")
        return registration
    }

    /// The sensors Home Assistant reported disabled, not sent until it enables them (H-MOB-13).
    public func disabledSensors() throws(MobileAppError) -> Set<String> {
        Set((try record()?["disabled"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// The webhook `get_config` (H-MOB-10), after registering and at each launch: keeps the cloudhook (absent: none)
    /// and the remote address with the registration's secrets, and enables again the sensors it shows enabled.
    @discardableResult
    public func refreshConfig() async throws(MobileAppError) -> MobileAppConfig {
        guard let reply = try await webhook("get_config", expecting: [200]) else {
            throw .unreadable("get_config answered nothing")
        }
        let config = MobileAppConfig(reply)
        try update { record in
            record["cloudhook_url"] = config.cloudhookURL.map(JSONValue.string)
            record["remote_ui_url"] = config.remoteUIURL.map(JSONValue.string)
            let disabled = (record["disabled"]?.arrayValue ?? []).compactMap(\.stringValue)
            record["disabled"] = .array(disabled.filter { config.entities[$0] != false }.map(JSONValue.string))
        }
        if let cloudhook = config.cloudhookURL { bundle.journal.register(secret: cloudhook) }
        return config
    }

    /// `update_registration` (H-MOB-15): always with `app_version`, `device_name`, `manufacturer` and `model`
    /// (Home Assistant ignores the update without them), plus `os_version` and the push pair in `app_data`; the
    /// description is kept for registering again. Returns the registration as Home Assistant now has it, without
    /// its secrets.
    @discardableResult
    public func updateRegistration(_ device: DeviceInfo) async throws(MobileAppError) -> JSONValue {
        let full = device.body(encrypted: false)
        var data: [String: JSONValue] = [:]
        for key in ["app_version", "device_name", "manufacturer", "model", "os_version", "app_data"] {
            data[key] = full[key]
        }
        guard let reply = try await webhook("update_registration", data: .object(data), expecting: [200]) else {
            throw .unreadable("update_registration answered nothing")
        }
        try update { record in
            let encrypted = record["encrypted"] == true
            record["device"] = device.body(encrypted: encrypted)
        }
        return reply
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

/// What the webhook `get_config` tells the device (H-MOB-10).
public struct MobileAppConfig: Sendable, Hashable {
    /// Home Assistant's version.
    public var version: String?
    /// The home's name.
    public var locationName: String?
    /// Home Assistant Cloud's webhook URL; `nil` when the key is absent.
    public var cloudhookURL: String?
    /// Home Assistant Cloud's remote address; `nil` when absent.
    public var remoteUIURL: String?
    /// Each of the device's entities by unique id: whether it is disabled.
    public var entities: [String: Bool]

    /// Reads the reply.
    init(_ json: JSONValue) {
        version = json.text("version")
        locationName = json.text("location_name")
        cloudhookURL = json.text("cloudhook_url")
        remoteUIURL = json.text("remote_ui_url")
        var entities: [String: Bool] = [:]
        for (id, value) in json["entities"]?.objectValue ?? [:] {
            if let disabled = value["disabled"]?.boolValue { entities[id] = disabled }
        }
        self.entities = entities
    }
}
