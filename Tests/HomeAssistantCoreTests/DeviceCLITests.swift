import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// `companion homeassistant register | sensor | location` with the built binary against the real Home Assistant
/// (H-CLI-6, H-CLI-8): exit codes, `--help`, `--json` as docs/cli-json.md documents it, no webhook id anywhere.
@Suite(.serialized) struct DeviceCLITests {
    let server: HomeAssistantFixture
    let program: URL
    let home: URL

    init() throws {
        server = try HomeAssistantFixture()
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-ha-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func run(_ arguments: String...) async throws -> ProgramRun.Result {
        let environment = [
            "COMPANION_HOME": home.path, "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        return try await ProgramRun.run(program, arguments, environment: environment)
    }

    /// Signs `ci` in as the app would and keeps the credential in the client's secret store (the `login` command is
    /// the connection's branch); returns the account's server opened on the same store.
    func signIn() async throws -> HomeAssistantServer {
        let secrets = FileSecretStore(folder: home.appendingPathComponent("secrets"))
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("secrets"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let environment = AppEnvironment(
            transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .memory), secrets: secrets)
        let signIn = try environment.homeAssistantSignIn(try server.address(environment), recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try secrets.save(stored)
        return try await HomeAssistantServer.open(stored.account, environment: environment)
    }

    @Test(
        "H-CLI-6 H-CLI-8: register (--json), the battery sensor and a location from the terminal; read back through the API; no webhook id in any output or state file"
    )
    func deviceFromTheTerminal() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let account = try await signIn()
        let address = server.url.absoluteString
        let tag = String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let register = try await run(
            "homeassistant", "register", "--server", address, "--device-name", "cli phone \(tag)", "--json")
        #expect(register.status == 0, "\(register.errors)")
        expectDocumentedShape(register.output, "homeassistant register")
        #expect(JSONValue(data: Data(register.output.utf8))?["encrypted"] == true)
        let sensor = try await run("homeassistant", "sensor", "battery_level", "77", "--server", address, "--json")
        #expect(sensor.status == 0, "\(sensor.errors)")
        expectDocumentedShape(sensor.output, "homeassistant sensor")
        #expect(JSONValue(data: Data(sensor.output.utf8))?["result"] == "registered")
        let again = try await run("homeassistant", "sensor", "battery_level", "76", "--server", address)
        #expect(again.status == 0 && again.output.contains("battery_level is now 76"), "\(again.errors)")
        // H-MOB-12: the state Home Assistant last acknowledged is not sent again.
        let same = try await run("homeassistant", "sensor", "battery_level", "76", "--server", address, "--json")
        #expect(same.status == 0, "\(same.errors)")
        expectDocumentedShape(same.output, "homeassistant sensor")
        #expect(JSONValue(data: Data(same.output.utf8))?["result"] == "unchanged")
        let battery = try EntityState(
            json: try await account.bundle.client.send(HomeAssistantAPI.state("sensor.cli_phone_\(tag)_battery_level")))
        #expect(battery.state == "76")
        let location = try await run(
            "homeassistant", "location", "52.3731", "4.8922", "--accuracy", "15", "--server", address, "--json")
        #expect(location.status == 0, "\(location.errors)")
        expectDocumentedShape(location.output, "homeassistant location")
        let tracker = try EntityState(
            json: try await account.bundle.client.send(HomeAssistantAPI.state("device_tracker.cli_phone_\(tag)")))
        #expect(tracker.state == "home")
        // H-CLI-8: the webhook id is in the secret store only.
        let webhookID = try #require(try MobileApp(server: account).registration()?.webhookID)
        var leaked: [String] = []
        for result in [register, sensor, again, location] where (result.output + result.errors).contains(webhookID) {
            leaked.append("output")
        }
        let walker = try #require(FileManager.default.enumerator(atPath: home.path))
        while let relative = walker.nextObject() as? String {
            guard !relative.hasPrefix("secrets") else { continue }
            let data = (try? Data(contentsOf: home.appendingPathComponent(relative))) ?? Data()
            if data.range(of: Data(webhookID.utf8)) != nil { leaked.append(relative) }
        }
        #expect(leaked.isEmpty, "the webhook id was found in: \(leaked)")
    }

    @Test(
        "H-CLI-6: --help exits 0; a bad latitude, a missing --accuracy and a lone --push-url exit 2; not signed in exits 1"
    )
    func usageAndFailures() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        for command in ["register", "sensor", "location"] {
            let help = try await run("homeassistant", command, "--help")
            #expect(help.status == 0 && help.output.contains("--server ADDRESS"), "\(command)")
        }
        let address = server.url.absoluteString
        #expect(
            try await run("homeassistant", "location", "91", "4", "--accuracy", "5", "--server", address).status == 2)
        #expect(try await run("homeassistant", "location", "52", "4", "--server", address).status == 2)
        #expect(try await run("homeassistant", "register", "--server", address, "--push-url", "http://x").status == 2)
        let signedOut = try await run("homeassistant", "register", "--server", address)
        #expect(signedOut.status == 1 && signedOut.errors.contains("No account is signed in"), "\(signedOut.errors)")
    }
}
