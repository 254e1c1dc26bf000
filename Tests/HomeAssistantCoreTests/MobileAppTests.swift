import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionCrypto
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// `mobile_app` against the real Home Assistant: registration, the battery sensor, the location, the zones, plain
/// and encrypted webhooks (H-MOB-1..7, 11, 12, 14; H-NET-7).
@Suite struct MobileAppTests {
    let server: HomeAssistantFixture

    init() throws { server = try HomeAssistantFixture() }

    /// A signed-in account's server and device, with a device name of its own (so its entity ids are too).
    func device(_ environment: AppEnvironment, recorder: RequestRecorder = RequestRecorder()) async throws -> (
        HomeAssistantServer, MobileApp, DeviceInfo, String
    ) {
        let address = try server.address(environment)
        let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        let home = try await HomeAssistantServer.open(stored.account, environment: environment, middlewares: [recorder])
        let tag = String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let info = DeviceInfo(
            deviceID: "ci-device-\(tag)", appID: "io.companionkit.ci", appName: "CompanionKit CI", appVersion: "0.1.0",
            deviceName: "ci phone \(tag)", manufacturer: "CompanionKit", model: "Linux CI", osName: "Linux",
            osVersion: "6")
        return (home, MobileApp(server: home), info, "ci_phone_\(tag)")
    }

    /// The state of `entityID` read back through the REST API.
    func state(_ home: HomeAssistantServer, _ entityID: String) async throws -> EntityState {
        try EntityState(json: try await home.bundle.client.send(HomeAssistantAPI.state(entityID)))
    }

    @Test("H-MOB-1: without mobile_app in get_config's components nothing is sent")
    func noMobileAppNoRequest() async throws {
        let environment = TestEnvironments.loopback()
        let recorder = RequestRecorder()
        let (_, device, info, _) = try await device(environment, recorder: recorder)
        await #expect(throws: MobileAppError.mobileAppMissing) {
            try await device.register(info, config: ServerConfig(version: "2025.4.4", components: ["api"]))
        }
        #expect(!recorder.lines.contains("POST /api/mobile_app/registrations"))
    }

    @Test(
        "H-MOB-2 H-MOB-3 H-MOB-4 H-MOB-11 H-MOB-12 H-NET-7: register (201, 64-hex id in the secret store only), the battery sensor registered and updated, read back; webhooks carry no Authorization"
    )
    func plainRegistrationAndBattery() async throws {
        let journal = Journal()
        let environment = TestEnvironments.loopback(journal: journal)
        let recorder = RequestRecorder()
        let (home, device, info, slug) = try await device(environment, recorder: recorder)
        let config = try await home.config().value
        let registration = try await device.register(info, config: config, encrypted: false)
        let idIsHex = registration.webhookID.count == 64 && registration.webhookID.allSatisfy(\.isHexDigit)
        #expect(idIsHex, "the webhook id is 64 hex characters")
        #expect(registration.secret == nil)
        #expect(try device.registration() == registration)
        try await device.registerSensor(.battery(level: 80))
        let battery = try await state(home, "sensor.\(slug)_battery_level")
        #expect(battery.state == "80")
        #expect(battery.name == "\(info.deviceName) Battery Level")
        let answers = try await device.updateSensors([.battery(level: 79)])
        #expect(answers["battery_level"]?["success"] == true)
        #expect(try await state(home, "sensor.\(slug)_battery_level").state == "79")
        // The registration went with the Bearer token; no webhook did (they go through a client without it).
        let registrations = recorder.requests.filter { $0.url.path == "/api/mobile_app/registrations" }
        #expect(registrations.count == 1 && registrations.allSatisfy { $0.headers["Authorization"] != nil })
        #expect(!recorder.requests.contains { $0.url.path.hasPrefix("/api/webhook/") })
        // H-MOB-4: the webhook id is masked wherever the journal wrote it.
        let text = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        let masked = !text.contains(registration.webhookID)
        #expect(masked, "the journal never holds the webhook id")
    }

    @Test(
        "H-MOB-14: a fix with its accuracy puts the device home; zones are read; gps without accuracy changes nothing")
    func locationAndZones() async throws {
        let environment = TestEnvironments.loopback()
        let (home, device, info, slug) = try await device(environment)
        try await device.register(info, config: try await home.config().value, encrypted: false)
        try await device.updateLocation(LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 15, battery: 80))
        #expect(try await state(home, "device_tracker.\(slug)").state == "home")
        let zones = try await device.zones()
        #expect(zones.value.contains { $0.entityID == "zone.home" })
        // H-MOB-14: gps_accuracy and battery are integers >= 0: a negative one is sent as 0, and 0 stays 0.
        try await device.updateLocation(LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: -5, battery: 0))
        let clamped = try await state(home, "device_tracker.\(slug)")
        #expect(clamped.attributes["gps_accuracy"]?.intValue == 0 && clamped.attributes["battery_level"]?.intValue == 0)
        try await device.updateLocation(LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 0, battery: -3))
        let zero = try await state(home, "device_tracker.\(slug)")
        #expect(zero.attributes["gps_accuracy"]?.intValue == 0 && zero.attributes["battery_level"]?.intValue == 0)
        // Away, then gps without its accuracy: Home Assistant ignores it (200 {}), the tracker stays away.
        try await device.updateLocation(LocationFix(latitude: 48.8566, longitude: 2.3522, accuracy: 20))
        #expect(try await state(home, "device_tracker.\(slug)").state == "not_home")
        _ = try await device.webhook("update_location", data: ["gps": [52.3731, 4.8922]])
        #expect(try await state(home, "device_tracker.\(slug)").state == "not_home")
    }

    @Test(
        "H-MOB-5 H-MOB-7: an encrypted registration's webhooks are sealed; get_config's sealed reply opens; a plain one is refused (400 encryption_required)"
    )
    func encryptedWebhooks() async throws {
        let environment = TestEnvironments.loopback()
        let (home, device, info, slug) = try await device(environment)
        let registration = try await device.register(info, config: try await home.config().value, encrypted: true)
        let secretIsHex = registration.secret?.count == 64
        #expect(secretIsHex, "an encrypted registration has a 64-hex secret")
        let config = try #require(try await device.webhook("get_config", expecting: [200]))
        #expect(config["version"] == "2025.4.4")
        try await device.registerSensor(.battery(level: 55))
        #expect(try await state(home, "sensor.\(slug)_battery_level").state == "55")
        _ = try await device.updateSensors([.battery(level: 54)])
        #expect(try await state(home, "sensor.\(slug)_battery_level").state == "54")
        // The server refuses a plain webhook to an encrypted registration.
        let client = environment.client(for: server.url, profile: HomeAssistantServer.profile)
        let plain = try await client.call(
            .post, "/api/webhook/\(registration.webhookID)", json: ["type": "get_config"])
        #expect(plain.status == 400 && plain.json?["error"]?["code"] == "encryption_required")
    }
}

extension MobileAppTests {
    /// The `type` and the sensors' unique ids of each `update_sensor_states` or `register_sensor` webhook `recorder`
    /// saw (plain registrations only: their bodies are readable).
    func sensorWebhooks(_ recorder: RequestRecorder) -> [String] {
        recorder.requests.compactMap { request -> String? in
            guard request.url.path.hasPrefix("/api/webhook/"), let body = request.body,
                let json = JSONValue(data: body), let type = json["type"]?.stringValue
            else { return nil }
            switch type {
            case "update_sensor_states":
                let ids = (json["data"]?.arrayValue ?? []).compactMap { $0["unique_id"]?.stringValue }
                return "update " + ids.joined(separator: ",")
            case "register_sensor": return "register " + (json["data"]?["unique_id"]?.stringValue ?? "?")
            default: return type
            }
        }
    }

    @Test(
        "H-MOB-12: only changed sensors are sent (none changed: no request); not_registered registers and resends it alone; invalid_format is journalled, not resent"
    )
    func changedSensorsOnly() async throws {
        let journal = Journal()
        let environment = TestEnvironments.loopback(journal: journal)
        let (home, _, info, slug) = try await device(environment)
        let webhooks = RequestRecorder()
        let device = MobileApp(server: home, middlewares: [webhooks])
        try await device.register(info, config: try await home.config().value, encrypted: false)
        try await device.registerSensor(.battery(level: 80))
        // The registered state was acknowledged: the same state again sends nothing.
        #expect(try await device.updateSensors([.battery(level: 80)]).isEmpty)
        #expect(sensorWebhooks(webhooks) == ["register battery_level"])
        // A changed state is sent; then the same one is not.
        #expect(try await device.updateSensors([.battery(level: 79)])["battery_level"]?["success"] == true)
        #expect(try await device.updateSensors([.battery(level: 79)]).isEmpty)
        #expect(sensorWebhooks(webhooks) == ["register battery_level", "update battery_level"])
        // An icon change alone is a change.
        var charging = MobileSensor.battery(level: 79)
        charging.fields["icon"] = "mdi:battery-charging"
        #expect(try await device.updateSensors([charging])["battery_level"]?["success"] == true)
        // A sensor Home Assistant does not know: answered not_registered, registered, then sent again alone.
        let steps = MobileSensor(uniqueID: "ci_steps", name: "Steps", state: 1234)
        let answers = try await device.updateSensors([charging, steps])
        #expect(answers["ci_steps"]?["success"] == true)
        #expect(
            sensorWebhooks(webhooks) == [
                "register battery_level", "update battery_level", "update battery_level",
                "update ci_steps", "register ci_steps", "update ci_steps",
            ])
        #expect(try await state(home, "sensor.\(slug)_steps").state == "1234")
        #expect(try device.knownSensors() == ["battery_level", "ci_steps"])
        // A state Home Assistant's schema refuses: invalid_format, journalled with its message, sent once only.
        let bad = MobileSensor(uniqueID: "ci_steps", name: "Steps", state: ["not": "a state"])
        let refused = try await device.updateSensors([bad])
        #expect(refused["ci_steps"]?["error"]?["code"] == "invalid_format")
        #expect(sensorWebhooks(webhooks).count == 7)
        let text = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        #expect(text.contains("refused sensor ci_steps's update (invalid_format"))
        #expect(try await state(home, "sensor.\(slug)_steps").state == "1234")
    }

    @Test(
        "H-MOB-7: enable_encryption on a plain registration answers a plain 64-hex secret, kept; later webhooks are sealed; again: 400 encryption_already_enabled, its words"
    )
    func enableEncryption() async throws {
        let journal = Journal()
        let environment = TestEnvironments.loopback(journal: journal)
        let (home, device, info, slug) = try await device(environment)
        let plain = try await device.register(info, config: try await home.config().value, encrypted: false)
        #expect(plain.secret == nil)
        let registration = try await device.enableEncryption()
        let secret = try #require(registration.secret)
        #expect(secret.count == 64 && secret.allSatisfy(\.isHexDigit))
        #expect(registration.webhookID == plain.webhookID)
        #expect(try device.registration()?.secret == secret)
        // Sealed from now on: Home Assistant refuses a plain webhook, and the device's sealed one works.
        let client = environment.client(for: server.url, profile: HomeAssistantServer.profile)
        let unsealed = try await client.call(.post, "/api/webhook/\(plain.webhookID)", json: ["type": "get_config"])
        #expect(unsealed.status == 400 && unsealed.json?["error"]?["code"] == "encryption_required")
        #expect(try await device.webhook("get_config", expecting: [200])?["version"] == "2025.4.4")
        try await device.registerSensor(.battery(level: 42))
        #expect(try await state(home, "sensor.\(slug)_battery_level").state == "42")
        await #expect(
            throws: MobileAppError.serverError(
                code: "encryption_already_enabled", message: "Encryption already enabled",
                what: "the enable_encryption webhook")
        ) {
            try await device.enableEncryption()
        }
        let text = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        #expect(!text.contains(secret), "the journal never holds the secret")
    }
}

/// The device's description as a value (H-MOB-2): the registration keeps it to register again (H-MOB-8).
@Suite struct DeviceInfoTests {
    func info(push: (token: String, url: String)? = nil, version: String = "0.1.0") -> DeviceInfo {
        DeviceInfo(
            deviceID: "d1", appID: "org.companionkit.ci", appName: "CompanionKit", appVersion: version,
            deviceName: "CI Phone", manufacturer: "CompanionKit", model: "Linux", osName: "Linux",
            osVersion: "6", push: push)
    }

    @Test("H-MOB-2: two descriptions with the same fields and push pair are equal (and hash alike); any change differs")
    func equality() {
        let pair = (token: "t0k3n", url: "http://127.0.0.1:9/push")
        #expect(info() == info())
        #expect(info(push: pair) == info(push: pair))
        #expect(info(push: pair).hashValue == info(push: pair).hashValue)
        #expect(info() != info(push: pair))
        #expect(info(push: pair) != info(push: (token: "other", url: pair.url)))
        #expect(info() != info(version: "0.2.0"))
    }
}

/// H-MOB-8's 410 (Home Assistant's answer for a deleted registration's id, once it has restarted: it registers the
/// deleted ids as "Deleted Webhook" at start), with Home Assistant's answers scripted: restarting the shared `main`
/// instance would break the suites running beside this one.
@Suite struct GoneRegistrationTests {
    static let first = String(repeating: "a", count: 64)
    static let second = String(repeating: "b", count: 64)
    static let config = #"{"version":"2025.4.4","components":["mobile_app"]}"#

    /// A device registered through scripted answers (`cloudhook` as the registration's `cloudhook_url`), away from
    /// home when `atHome` is false; `answers` follow the registration's.
    func registered(
        _ answers: [ScriptedTransport.Reply], cloudhook: String? = nil, atHome: Bool? = nil
    ) async throws -> (MobileApp, ScriptedTransport) {
        let hook = cloudhook.map { "\"\($0)\"" } ?? "null"
        let registered = #"{"webhook_id":"\#(Self.first)","secret":null,"cloudhook_url":\#(hook),"remote_ui_url":null}"#
        let transport = ScriptedTransport([.respond(status: 201, body: registered)] + answers)
        let environment = TestEnvironments.loopback(transport: transport)
        let address = try ServerAddress(parsing: "http://127.0.0.1:18123", policy: .allowingInsecureLoopback)
        let account = AccountKey(address: address, userID: "ci")
        try environment.secrets.save(
            StoredCredential(
                account: account, address: address,
                credential: .bearer(accessToken: "aaa.bbb.ccc", refreshToken: nil, expiresAt: nil),
                storedAt: environment.clock.now()))
        let device = MobileApp(
            server: try await HomeAssistantServer.open(account, environment: environment), atHome: atHome)
        let info = DeviceInfoTests().info()
        let config = ServerConfig(version: "2025.4.4", components: ["mobile_app"], internalURL: nil, externalURL: nil)
        _ = try await device.register(info, config: config, encrypted: false)
        return (device, transport)
    }

    @Test(
        "H-MOB-8 H-MOB-3: a 410 registers again once (the stored description) and resends to the new id; a second 410 is the registration unusable"
    )
    func goneRegistersAgain() async throws {
        let again = #"{"webhook_id":"\#(Self.second)","secret":null,"cloudhook_url":null,"remote_ui_url":null}"#
        let (device, transport) = try await registered([
            .respond(status: 410, body: ""), .respond(status: 200, body: Self.config),
            .respond(status: 201, body: again),
            .respond(status: 200, body: "{}"),
        ])
        try await device.updateLocation(LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 15))
        #expect(
            transport.requests.map(\.url.path) == [
                "/api/mobile_app/registrations", "/api/webhook/\(Self.first)", "/api/config",
                "/api/mobile_app/registrations", "/api/webhook/\(Self.second)",
            ])
        #expect(try device.registration()?.webhookID == Self.second)

        let (stillGone, _) = try await registered([
            .respond(status: 410, body: ""), .respond(status: 200, body: Self.config),
            .respond(status: 201, body: again),
            .respond(status: 410, body: ""),
        ])
        await #expect(
            throws: MobileAppError.registrationUnusable("Home Assistant answered 410: the registration was deleted")
        ) {
            try await stillGone.updateLocation(LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 15))
        }
    }

    @Test(
        "H-MOB-8: a cloudhook's 404 registers again once and resends to the new id; the account's own address answering 404 is a refusal, no new registration"
    )
    func cloudhookNotFoundRegistersAgain() async throws {
        let again = #"{"webhook_id":"\#(Self.second)","secret":null,"cloudhook_url":null,"remote_ui_url":null}"#
        let fix = LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 15)
        let (away, transport) = try await registered(
            [
                .respond(status: 404, body: ""), .respond(status: 200, body: Self.config),
                .respond(status: 201, body: again), .respond(status: 200, body: "{}"),
            ], cloudhook: "https://hooks.example/hook1", atHome: false)
        try await away.updateLocation(fix)
        #expect(
            transport.requests.map { "\($0.url.host ?? "")\($0.url.path)" } == [
                "127.0.0.1/api/mobile_app/registrations", "hooks.example/hook1", "127.0.0.1/api/config",
                "127.0.0.1/api/mobile_app/registrations", "127.0.0.1/api/webhook/\(Self.second)",
            ])
        #expect(try away.registration()?.webhookID == Self.second)

        // The same 404 from the account's own address says nothing about the registration: refused, sent once.
        let (direct, directTransport) = try await registered([.respond(status: 404, body: "")])
        await #expect(throws: MobileAppError.refused(status: 404, what: "the update_location webhook")) {
            try await direct.updateLocation(fix)
        }
        #expect(
            directTransport.requests.map(\.url.path) == [
                "/api/mobile_app/registrations", "/api/webhook/\(Self.first)",
            ])
        #expect(try direct.registration()?.webhookID == Self.first)
    }

    @Test(
        "H-MOB-7: an enable_encryption answer whose secret is not 64 hex characters (63, 62, one not hex) is unreadable and the registration stays plain"
    )
    func enableEncryptionRefusesAnOddSecret() async throws {
        for secret in [
            String(repeating: "a", count: 63), String(repeating: "a", count: 62),
            "g" + String(repeating: "a", count: 63),
        ] {
            let (device, transport) = try await registered([.respond(status: 200, body: #"{"secret":"\#(secret)"}"#)])
            await #expect(throws: MobileAppError.unreadable("enable_encryption did not answer a 64-hex secret")) {
                try await device.enableEncryption()
            }
            #expect(try device.registration()?.secret == nil, "\(secret.count) characters")
            #expect(transport.requests.count == 2)
        }
    }
}
