import CompanionApp
import CompanionAuth
import CompanionCore
import Foundation
import HomeAssistantCore

/// `companion homeassistant register | sensor | location | notifications`: this device's `mobile_app` on a real Home Assistant
/// (H-CLI-6), for an account signed in with `companion homeassistant login` (its credential in the state folder's
/// secret store).
///
/// Rules: the registration's webhook id, key and cloudhook stay in the secret store and never reach the output,
/// `--json` or the journal (H-MOB-4, H-CLI-8); a webhook is sent once (H-MOB-8's one registration again is the core's).
/// `subcommands` are listed by the `homeassistant` group (`HomeAssistantCommands`).
enum HomeAssistantDeviceCommands {
    /// The device commands, for the `companion homeassistant` group.
    static let subcommands: [Command] = [register, sensor, location, notifications]

    static let userOption = Command.Option.option(
        "user", "NAME", "the account's user when several are signed in to this server")
    static let serverOption = Command.Option.option("server", "ADDRESS", "the Home Assistant signed in to (required)")

    static let register = Command(
        name: "register", summary: "register this device with Home Assistant's mobile_app",
        options: [
            serverOption,
            .option("device-name", "NAME", "the device's name in Home Assistant (default: companion <host name>)"),
            .flag("plain", "ask for no encryption (webhooks unsealed)"),
            .option("push-url", "URL", "where Home Assistant sends remote pushes (with --push-token)"),
            .option("push-token", "TOKEN", "the push token sent with each remote push (with --push-url)"),
            userOption, .json, .httpsOnly,
        ],
        details: """
            Registers only when the server loads mobile_app. Each registration is a new webhook id (and key), kept in
            the state folder's secret store, never printed; registering again replaces it. Then reads the webhook
            get_config (H-MOB-10).
            """,
        run: { try await runRegister($0) })

    static let sensor = Command(
        name: "sensor", summary: "send a sensor's state (registered first when Home Assistant does not know it)",
        parameters: [
            .init(syntax: "<unique_id>", help: "the sensor's id, fixed for this device (battery_level: the battery)"),
            .init(syntax: "<state>", help: "its state (a number is sent as one)"),
        ],
        options: [
            serverOption, .option("name", "NAME", "its name, after the device's (default: the id)"),
            .option("unit", "UNIT", "its unit of measurement"), userOption, .json, .httpsOnly,
        ],
        details: "A sensor Home Assistant reports disabled is not sent until it is enabled again (H-MOB-13).",
        run: { try await runSensor($0) })

    static let location = Command(
        name: "location", summary: "send a location fix (update_location)",
        parameters: [
            .init(syntax: "<latitude>", help: "degrees, -90 to 90"),
            .init(syntax: "<longitude>", help: "degrees, -180 to 180"),
        ],
        options: [
            serverOption, .option("accuracy", "METRES", "the fix's accuracy, a whole number >= 0 (required)"),
            .option("battery", "PERCENT", "the battery level, a whole number >= 0"), userOption, .json, .httpsOnly,
        ],
        run: { try await runLocation($0) })

    static let notifications = Command(
        name: "notifications", summary: "print this device's notifications as they arrive, each confirmed",
        options: [
            serverOption, .flag("follow", "follow the local push channel (required: the only mode)"),
            .option("count", "N", "exit 0 after N notifications (default: run until interrupted)"), userOption, .json,
            .httpsOnly,
        ],
        details: """
            Follows the registered device's local push channel over the live connection (H-MOB-16): each
            notification or command is printed, then confirmed to Home Assistant (H-MOB-17); a channel Home
            Assistant dropped is subscribed again. "Following" on standard error says the channel is asked for.
            """,
        exitCodes: "Exit codes: 0 N notifications printed, 1 refused or the connection ended, 2 usage error.",
        run: { try await runNotifications($0) })

    // MARK: The account

    /// The signed-in account's device at `--server`: its server opened with the stored credential.
    static func device(_ arguments: Arguments) async throws -> (MobileApp, ServerAddress) {
        guard let text = arguments.option("server") else { throw UsageError("--server ADDRESS is required") }
        let environment = try CommandEnvironment.make(arguments, stores: .memory)
        let address: ServerAddress
        do {
            address = try HomeAssistantAddress.parse(text, policy: environment.transportPolicy)
        } catch {
            throw UsageError("the address \(text): \(error.description)")
        }
        let user = arguments.option("user")
        let accounts = try AuthCommands.store().accounts().filter {
            $0.serverKey == address.serverKey && (user == nil || $0.userID == user)
        }
        guard let account = accounts.first else {
            throw CommandFailure(
                "No account is signed in to \(address.serverKey)\(user.map { " as \($0)" } ?? ""). "
                    + "Run `companion homeassistant login \(address.serverKey)` first.")
        }
        guard accounts.count == 1 else {
            throw UsageError("several accounts are signed in to \(address.serverKey): choose one with --user")
        }
        let server = try await HomeAssistantServer.open(account, environment: environment)
        return (MobileApp(server: server), address)
    }

    // MARK: register

    static func runRegister(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        guard arguments.option("server") != nil else { throw UsageError("--server ADDRESS is required") }
        var push: (token: String, url: String)?
        switch (arguments.option("push-token"), arguments.option("push-url")) {
        case (let token?, let url?): push = (token, url)
        case (nil, nil): break
        default: throw UsageError("--push-url and --push-token go together (Home Assistant refuses one alone)")
        }
        let (device, address) = try await device(arguments)
        let config = try await device.server.config().value
        let deviceID = try device.deviceID() ?? newDeviceID()
        let host = ProcessInfo.processInfo.hostName
        let name = arguments.option("device-name") ?? "companion \(host)"
        let info = DeviceInfo(
            deviceID: deviceID, appID: "io.companionkit.companion", appName: "CompanionKit companion",
            appVersion: "0.1.0", deviceName: name, manufacturer: "CompanionKit", model: "companion (terminal)",
            osName: "Linux", osVersion: ProcessInfo.processInfo.operatingSystemVersionString, push: push)
        let registration = try await device.register(info, config: config, encrypted: !arguments.flag("plain"))
        let remote = try await device.refreshConfig()
        let encrypted = registration.secret != nil
        if arguments.flag("json") {
            let out: JSONValue = [
                "server": .string(address.serverKey), "deviceName": .string(name), "encrypted": .bool(encrypted),
                "version": remote.version.map(JSONValue.string) ?? .null,
                "cloudhook": .bool(registration.cloudhookURL != nil || remote.cloudhookURL != nil),
            ]
            Terminal.out(out.outputDocument)
        } else {
            Terminal.out(
                "Registered this device with \(address.serverKey) as \"\(name)\" "
                    + (encrypted ? "(encrypted webhooks)." : "(plain webhooks)."))
        }
        return 0
    }

    /// A new device id: random, made once per registration of this install with a server.
    static func newDeviceID() -> String {
        "companion-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    // MARK: sensor

    static func runSensor(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        guard arguments.option("server") != nil else { throw UsageError("--server ADDRESS is required") }
        let id = try arguments.positional(0, "the sensor's unique_id")
        let raw = try arguments.positional(1, "the state")
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw UsageError("the unique_id is letters, digits, _ and - only")
        }
        let state: JSONValue = Int64(raw).map(JSONValue.integer) ?? Double(raw).map(JSONValue.number) ?? .string(raw)
        var sensor =
            id == "battery_level"
            ? MobileSensor.battery(level: 0)
            : MobileSensor(uniqueID: id, name: arguments.option("name") ?? id, state: state)
        sensor.state = state
        if let name = arguments.option("name") { sensor.name = name }
        if let unit = arguments.option("unit") { sensor.fields["unit_of_measurement"] = .string(unit) }
        let (device, address) = try await device(arguments)
        guard try device.registration() != nil else {
            throw CommandFailure(
                "This device is not registered with \(address.serverKey). Run `companion homeassistant register` first."
            )
        }
        var result = "updated"
        if try device.disabledSensors().contains(id) {
            result = "disabled"
        } else if try !device.knownSensors().contains(id) {
            try await device.registerSensor(sensor)
            result = "registered"
        } else if let answer = try await device.updateSensors([sensor])[id] {
            if answer["is_disabled"] == true {
                result = "disabled"
            } else if answer["success"] != true {
                let message = answer["error"]?["message"]?.stringValue ?? "no answer for it"
                throw CommandFailure("Home Assistant did not take the state of \(id): \(message)")
            }
        } else {
            result = "unchanged"
        }
        if arguments.flag("json") {
            let out: JSONValue = ["uniqueID": .string(id), "state": state, "result": .string(result)]
            Terminal.out(out.outputDocument)
        } else {
            switch result {
            case "disabled": Terminal.out("\(id) is disabled in Home Assistant: nothing was sent.")
            case "registered": Terminal.out("\(id) registered with the state \(raw).")
            case "unchanged": Terminal.out("\(id) is already \(raw) in Home Assistant: nothing was sent.")
            default: Terminal.out("\(id) is now \(raw).")
            }
        }
        return 0
    }

    // MARK: location

    static func runLocation(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        guard arguments.option("server") != nil else { throw UsageError("--server ADDRESS is required") }
        guard let latitude = Double(try arguments.positional(0, "the latitude")), (-90...90).contains(latitude)
        else { throw UsageError("the latitude is a number from -90 to 90") }
        guard let longitude = Double(try arguments.positional(1, "the longitude")), (-180...180).contains(longitude)
        else { throw UsageError("the longitude is a number from -180 to 180") }
        guard let accuracyText = arguments.option("accuracy") else {
            throw UsageError("--accuracy METRES is required (Home Assistant ignores a position without it)")
        }
        guard let accuracy = Int(accuracyText), accuracy >= 0 else {
            throw UsageError("--accuracy is a whole number of metres, 0 or more")
        }
        var battery: Int?
        if let text = arguments.option("battery") {
            guard let value = Int(text), value >= 0 else { throw UsageError("--battery is a whole number, 0 or more") }
            battery = value
        }
        let (device, _) = try await device(arguments)
        try await device.updateLocation(
            LocationFix(latitude: latitude, longitude: longitude, accuracy: accuracy, battery: battery))
        if arguments.flag("json") {
            let out: JSONValue = [
                "latitude": .number(latitude), "longitude": .number(longitude),
                "accuracy": .integer(Int64(accuracy)), "sent": true,
            ]
            Terminal.out(out.outputDocument)
        } else {
            Terminal.out("Location sent: \(latitude), \(longitude) (±\(accuracy) m).")
        }
        return 0
    }

    // MARK: notifications

    /// One printed push (`--json`).
    struct PushLine: Encodable {
        let kind: String
        let id: String?
        let title: String?
        let body: String?
        let command: String?
        let confirmRequested: Bool

        enum CodingKeys: String, CodingKey {
            case kind, id, title, body, command
            case confirmRequested = "confirm_requested"
        }
    }

    static func runNotifications(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        guard arguments.option("server") != nil else { throw UsageError("--server ADDRESS is required") }
        guard arguments.flag("follow") else { throw UsageError("--follow is required (the only mode)") }
        var limit: Int?
        if let text = arguments.option("count") {
            guard let count = Int(text), count > 0 else { throw UsageError("--count is a whole number above 0") }
            limit = count
        }
        let count = limit
        let (device, address) = try await device(arguments)
        guard let registration = try device.registration() else {
            throw CommandFailure(
                "This device is not registered with \(address.serverKey). Run `companion homeassistant register` first."
            )
        }
        let connection = try await HomeAssistantCommands.live(device.server)
        let json = arguments.flag("json")
        let printed = Locked(0)
        do {
            try await connection.followLocalPush(
                webhookID: registration.webhookID,
                subscribed: { Terminal.err("Following notifications of \(address.serverKey) (local push).") },
                present: { push in
                    show(push, json: json)
                    let shown = printed.withLock { shown in
                        shown += 1
                        return shown
                    }
                    return count.map { shown < $0 } ?? true
                })
        } catch {
            await connection.stop()
            throw CommandFailure("Home Assistant refused the local push channel: \(error.description)")
        }
        await connection.stop()
        if let limit, printed.withLock({ $0 }) >= limit { return 0 }
        throw CommandFailure("The live connection ended.")
    }

    static func show(_ push: LocalPush, json: Bool) {
        var line = PushLine(kind: "unreadable", id: nil, title: nil, body: nil, command: nil, confirmRequested: false)
        switch push.message {
        case .show(let notification)?:
            line = PushLine(
                kind: "notification", id: notification.id, title: notification.title, body: notification.body,
                command: nil, confirmRequested: push.confirmID != nil)
        case .command(let command)?:
            line = PushLine(
                kind: "command", id: nil, title: nil, body: nil, command: "\(command)",
                confirmRequested: push.confirmID != nil)
        case nil:
            break
        }
        if json, let text = try? JSONOutput.line(line) {
            Terminal.out(text)
        } else if let body = line.body {
            Terminal.out((line.title.map { "\($0): " } ?? "") + body)
        } else {
            Terminal.out(line.command.map { "command: \($0)" } ?? "a push without a message")
        }
    }
}
