import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// `mobile_app` over HTTP against the real Home Assistant: what a webhook's status means (H-MOB-8), the webhook
/// `get_config` (H-MOB-10), disabled sensors (H-MOB-13), `update_registration` (H-MOB-15), sign-out (H-MOB-18),
/// remote push (H-MOB-20) and notification actions and commands (H-NOT-2, H-NOT-3).
@Suite struct DeviceLifecycleTests {
    let server: HomeAssistantFixture
    let control: URL

    init() throws {
        server = try HomeAssistantFixture()
        control = try TestServers.url("HOMEASSISTANT_CONTROL_URL")
    }

    struct Device {
        let home: HomeAssistantServer
        let app: MobileApp
        let info: DeviceInfo
        let slug: String
        let accounts: RequestRecorder
        let webhooks: RequestRecorder
    }

    /// A signed-in account and a device with a name of its own; `push` registers the push pair.
    func device(_ environment: AppEnvironment, push: (token: String, url: String)? = nil) async throws -> Device {
        let signIn = try environment.homeAssistantSignIn(try server.address(environment), recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        let accounts = RequestRecorder()
        let webhooks = RequestRecorder()
        let home = try await HomeAssistantServer.open(stored.account, environment: environment, middlewares: [accounts])
        let tag = String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let info = DeviceInfo(
            deviceID: "ci-device-\(tag)", appID: "io.companionkit.ci", appName: "CompanionKit CI", appVersion: "0.1.0",
            deviceName: "ci phone \(tag)", manufacturer: "CompanionKit", model: "Linux CI", osName: "Linux",
            osVersion: "6", push: push)
        return Device(
            home: home, app: MobileApp(server: home, middlewares: [webhooks]), info: info, slug: "ci_phone_\(tag)",
            accounts: accounts, webhooks: webhooks)
    }

    func controlClient(_ environment: AppEnvironment) -> Client {
        environment.client(for: control, profile: HomeAssistantServer.profile)
    }

    /// One WebSocket command as the owner, through the helper site (`/command`).
    func command(_ environment: AppEnvironment, _ fields: [String: JSONValue]) async throws -> JSONValue? {
        let reply = try await controlClient(environment).call(.post, "/command", json: fields)
        try #require(
            reply.status == 200, "the command answered \(reply.status): \(String(decoding: reply.data, as: UTF8.self))")
        return reply.json?["result"]
    }

    func state(_ home: HomeAssistantServer, _ entityID: String) async throws -> EntityState {
        try EntityState(json: try await home.bundle.client.send(HomeAssistantAPI.state(entityID)))
    }

    var registrationPosts: (Device) -> Int {
        { device in device.accounts.lines.filter { $0 == "POST /api/mobile_app/registrations" }.count }
    }

    @Test(
        "H-MOB-8: the device deleted in Home Assistant → the webhook's answer says so → one new registration, and the webhook goes once more, to the new id"
    )
    func deletedRegistrationRegistersAgain() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        let first = try await device.app.register(
            device.info, config: try await device.home.config().value, encrypted: false)
        // Delete the device's config entry as the owner (REST, admin).
        let entries = try await device.home.bundle.client.call(
            .get, "/api/config/config_entries/entry?domain=mobile_app")
        let entry = try #require(
            entries.json?.arrayValue?.first { $0["title"]?.stringValue == device.info.deviceName }?["entry_id"]?
                .stringValue)
        let deleted = try await device.home.bundle.client.call(.delete, "/api/config/config_entries/entry/\(entry)")
        #expect(deleted.status == 200)
        try await device.app.updateLocation(LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 15))
        let second = try #require(try device.app.registration())
        let replaced = second.webhookID != first.webhookID
        #expect(replaced, "a new webhook id replaced the old one")
        #expect(registrationPosts(device) == 2)
        let paths = device.webhooks.requests.map(\.url.path)
        let sentToOldThenNew =
            paths.count == 2 && paths[0].hasSuffix(first.webhookID) && paths[1].hasSuffix(second.webhookID)
        #expect(sentToOldThenNew, "the webhook went once to the old id and once to the new one (\(paths.count) sent)")
        #expect(try await state(device.home, "device_tracker.\(device.slug)").state == "home")
    }

    @Test(
        "H-MOB-8: a lost key → 400 encryption_required → registered again (with a new key) and the webhook resent once")
    func lostKeyRegistersAgain() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: true)
        // The key is lost: the stored record keeps the webhook id only.
        let key = SecretRecordKey(.device, device.home.bundle.account.rawValue)
        let data = try #require(try environment.secrets.loadRecord(key))
        var record = try #require(JSONValue(data: data)?.objectValue)
        record["secret"] = nil
        try environment.secrets.saveRecord(Data(JSONValue.object(record).jsonString().utf8), for: key)
        try await device.app.registerSensor(.battery(level: 42))
        #expect(registrationPosts(device) == 2)
        #expect(device.webhooks.requests.count == 2)
        #expect(try device.app.registration()?.secret?.count == 64)
        #expect(try await state(device.home, "sensor.\(device.slug)_battery_level").state == "42")
    }

    @Test(
        "H-MOB-8: a 200 {} proves nothing and is returned as it came; a 200 with an empty body (unknown id) is not a success"
    )
    func statusOutcomes() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: false)
        // An unknown type: 200 {}, no re-registration.
        #expect(try await device.app.webhook("no_such_type") == .object([:]))
        #expect(registrationPosts(device) == 1)
        // The server's own answer to an unknown id: 200 with an empty body.
        let unknown = try await device.home.bundle.client.call(
            .post, "/api/webhook/\(String(repeating: "0", count: 64))", json: ["type": "get_config"])
        #expect(unknown.status == 200 && unknown.data.isEmpty)
    }

    @Test(
        "H-MOB-10: the webhook get_config after registering: version, location, no cloudhook key → none, entities with their disabled flag"
    )
    func webhookConfig() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: false)
        try await device.app.registerSensor(.battery(level: 80))
        let config = try await device.app.refreshConfig()
        #expect(config.version == "2025.4.4")
        #expect(config.cloudhookURL == nil && config.remoteUIURL == nil)
        #expect(config.entities["battery_level"] == false)
        #expect(try device.app.registration()?.cloudhookURL == nil)
    }

    @Test(
        "H-MOB-13: a sensor Home Assistant answers is_disabled for is not sent again until get_config shows it enabled"
    )
    func disabledSensor() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: false)
        try await device.app.registerSensor(.battery(level: 80))
        let entity = "sensor.\(device.slug)_battery_level"
        _ = try await command(
            environment, ["type": "config/entity_registry/update", "entity_id": .string(entity), "disabled_by": "user"])
        let answers = try await device.app.updateSensors([.battery(level: 70)])
        #expect(answers["battery_level"]?["is_disabled"] == true)
        #expect(try device.app.disabledSensors() == ["battery_level"])
        let sent = device.webhooks.requests.count
        #expect(try await device.app.updateSensors([.battery(level: 60)]).isEmpty)
        #expect(device.webhooks.requests.count == sent, "nothing is sent for a disabled sensor")
        _ = try await command(
            environment, ["type": "config/entity_registry/update", "entity_id": .string(entity), "disabled_by": nil])
        #expect(try await device.app.refreshConfig().entities["battery_level"] == false)
        #expect(try device.app.disabledSensors().isEmpty)
        #expect(try await device.app.updateSensors([.battery(level: 50)])["battery_level"]?["success"] == true)
    }

    @Test(
        "H-MOB-15: update_registration carries app_version, device_name, manufacturer and model; its reply has no webhook id; without them nothing is updated"
    )
    func updateRegistration() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: false)
        #expect(
            try await device.app.webhook("update_registration", data: ["app_version": "0.1.1", "app_data": [:]])
                == .object([:]))
        var newer = device.info
        newer.appVersion = "0.2.0"
        let reply = try await device.app.updateRegistration(newer)
        #expect(reply["app_version"] == "0.2.0" && reply["app_id"] == "io.companionkit.ci")
        #expect(reply["webhook_id"] == nil && reply["secret"] == nil && reply["cloudhook_url"] == nil)
    }

    @Test("H-MOB-18: sign-out deletes the registration's secrets, and a signed-out account sends no webhook")
    func signOutForgets() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: true)
        try await device.app.signOut()
        #expect(try device.app.registration() == nil)
        let key = SecretRecordKey(.device, device.home.bundle.account.rawValue)
        #expect(try environment.secrets.loadRecord(key) == nil)
        await #expect(throws: MobileAppError.signedOut) {
            _ = try await device.app.updateSensors([.battery(level: 10)])
        }
        #expect(device.webhooks.requests.isEmpty)
    }

    @Test(
        "H-MOB-20 H-NOT-1: without a local channel Home Assistant POSTs the notification to push_url (the catcher answers 201); the body reads as a notification"
    )
    func remotePush() async throws {
        let environment = TestEnvironments.loopback()
        let pushURL = try TestServers.value("HOMEASSISTANT_PUSH_URL")
        let device = try await device(environment, push: ("ci-push-token", pushURL))
        let registration = try await device.app.register(
            device.info, config: try await device.home.config().value, encrypted: false)
        let before = try await controlClient(environment).call(.get, "/pushes").json?["version"]?.intValue ?? 0
        let sent = try await device.home.bundle.client.call(
            .post, "/api/services/notify/mobile_app_\(device.slug)",
            json: ["message": "hello from HA", "title": "CI", "data": ["tag": "t1"]])
        #expect(sent.status == 200)
        let pushes = try await controlClient(environment).call(.get, "/pushes?after=\(before)&wait_ms=10000")
        let bodies = (pushes.json?["items"]?.arrayValue ?? []).compactMap { $0["body"] }
        let mine = try #require(
            bodies.first { $0["registration_info"]?["webhook_id"]?.stringValue == registration.webhookID },
            "a push for this device reached the catcher")
        #expect(mine["message"] == "hello from HA" && mine["title"] == "CI" && mine["push_token"] == "ci-push-token")
        #expect(mine["data"] == ["tag": "t1"])
        let info = mine["registration_info"]
        #expect(
            info?["app_id"] == "io.companionkit.ci" && info?["app_version"] == "0.1.0" && info?["os_version"] == "6")
        guard case .show(let notification)? = PushMessage.read(mine, newID: { "new" }) else {
            Issue.record("the remote push is not a notification")
            return
        }
        #expect(notification.id == "t1" && notification.body == "hello from HA" && notification.title == "CI")
    }

    @Test(
        "H-NOT-3: an action with action_data fires mobile_app_notification_action through fire_event, seen by a subscribe_events"
    )
    func notificationAction() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: true)
        let listen = try await controlClient(environment).call(
            .post, "/listen", json: ["event_type": "mobile_app_notification_action"])
        #expect(listen.status == 200)
        let before = try await controlClient(environment).call(.get, "/events").json?["version"]?.intValue ?? 0
        let reply = "on my way \(device.slug)"
        try await device.app.notificationAction(
            "OPEN_DOOR", actionData: ["door": "front"], replyText: reply)
        let events = try await controlClient(environment).call(.get, "/events?after=\(before)&wait_ms=10000")
        let data = (events.json?["items"]?.arrayValue ?? []).compactMap { $0["event"]?["data"] }
        #expect(
            data.contains {
                $0["action"] == "OPEN_DOOR" && $0["action_data"] == ["door": "front"]
                    && $0["reply_text"]?.stringValue == reply
            })
    }

    @Test("H-NOT-2: request_location_update is a command, not shown, and sends one update_location with the next fix")
    func locationCommand() async throws {
        let environment = TestEnvironments.loopback()
        let device = try await device(environment)
        try await device.app.register(device.info, config: try await device.home.config().value, encrypted: false)
        let message = try #require(PushMessage.read(["message": "request_location_update"], newID: { "x" }))
        guard case .command(let command) = message else {
            Issue.record("request_location_update is shown")
            return
        }
        var delivered = DeliveredNotifications()
        #expect(delivered.apply(message) == .requestLocationUpdate && delivered.shown.isEmpty)
        let sent = try await device.app.carryOut(command) {
            LocationFix(latitude: 52.3731, longitude: 4.8922, accuracy: 15)
        }
        #expect(sent && device.webhooks.requests.count == 1)
        #expect(try await state(device.home, "device_tracker.\(device.slug)").state == "home")
    }
}
