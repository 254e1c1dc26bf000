import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

/// `companion homeassistant` against the real Home Assistant 2025.4.4 (H-CLI): sign-in, 1,000 entities by area, a
/// toggle from the terminal seen by a `watch`, refusals word for word, the stored states offline, `--json` as
/// docs/cli-json.md documents it. Serialized: one terminal home, signed in once.
@Suite(.serialized)
struct HomeAssistantCLITests {
    let program: URL
    let home: TemporaryFolder
    let url: String
    let password: String

    init() throws {
        program = try ProgramRun.executable("companion")
        home = try TemporaryFolder(prefix: "companion-homeassistant")
        url = try TestServers.url("HOMEASSISTANT_URL").absoluteString
        let file = try TestServers.value("HOMEASSISTANT_PASSWORD_FILE")
        password = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func run(_ arguments: [String], input: String = "", limit: Duration = .seconds(120), in folder: URL? = nil)
        async throws -> ProgramRun.Result
    {
        let environment = [
            "HOME": (folder ?? home.url).path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
        return try await ProgramRun.run(
            program, ["homeassistant"] + arguments, environment: environment, input: input,
            limit: limit)
    }

    func login() async throws {
        // Home Assistant's password check, one at a time with the core's tests' sign-ins (`ServerTurn`).
        let result = try await ServerTurn.take("homeassistant-password") {
            try await run(["login", url, "--user", "ci", "--password-stdin"], input: password + "\n")
        }
        try #require(result.status == 0, "login exited \(result.status): \(result.errors)")
        #expect(!result.output.contains(password) && !result.errors.contains(password))
    }

    @Test("H-CLI-1 H-CLI-3: login; probe; 1,000 entities by area; --json as documented; --offline with its age")
    func statesByArea() async throws {
        let probe = try await run(["probe", url, "--json"])
        #expect(probe.status == 0, "\(probe.errors)")
        expectDocumentedShape(probe.output, "homeassistant probe")
        #expect(JSONValue(data: Data(probe.output.utf8))?["version"] == "2025.4.4")
        try await login()
        let plain = try await run(["states", "--area", "Kitchen"])
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(plain.output.hasPrefix("Kitchen (100)\n"), "\(plain.output.prefix(200))")
        let json = try await run(["states", "--json"])
        #expect(json.status == 0, "\(json.errors)")
        expectDocumentedShape(json.output, "homeassistant states")
        let report = try #require(JSONValue(data: Data(json.output.utf8)))
        #expect(report["state"] == "content")
        let rows = report["value"]?.arrayValue ?? []
        let placed = rows.filter { $0["area"] != nil }
        #expect(placed.count == 1000, "1,000 entities in the 10 areas")
        let ids = rows.compactMap { $0["entity_id"]?.stringValue }
        #expect(ids == ids.sorted())
        let offline = try await run(["states", "--offline", "--json"])
        #expect(offline.status == 0, "\(offline.errors)")
        let stored = try #require(JSONValue(data: Data(offline.output.utf8)))
        #expect(stored["state"] == "stale" && stored["age_seconds"]?.intValue != nil)
        // The stored states are the ones printed (other suites may add a device's entities meanwhile: the store
        // keeps every entity the connection saw until it closed).
        let storedIDs = Set((stored["value"]?.arrayValue ?? []).compactMap { $0["entity_id"]?.stringValue })
        #expect(storedIDs.isSuperset(of: ids), "\(Set(ids).subtracting(storedIDs).prefix(5))")
        let help = try await run(["states", "--help"])
        #expect(help.status == 0 && help.output.contains("--offline"))
    }

    @Test("H-CLI-4: toggle from the terminal and read the new state back; a refusal word for word; usage errors")
    func toggleSeenByWatch() async throws {
        try await login()
        let id = "input_boolean.garage_plug_2"
        let before = try await run(["state", id, "--json"])
        let was = JSONValue(data: Data(before.output.utf8))?["state"]?.stringValue
        let toggle = try await run(["toggle", id, "--json"])
        #expect(toggle.status == 0, "\(toggle.errors)")
        expectDocumentedShape(toggle.output, "homeassistant call")
        let after = try await run(["state", id, "--json"])
        let now = JSONValue(data: Data(after.output.utf8))?["state"]?.stringValue
        #expect(was != nil && now != nil && was != now, "\(String(describing: was)) → \(String(describing: now))")
        let refused = try await run([
            "call", "input_number.set_value", "--entity", "input_number.thermostat", "--data", #"{"value": 999}"#,
        ])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("Invalid value for input_number.thermostat: 999.0 (range 10.0 - 30.0)"))
        #expect(try await run(["call", "nope"]).status == 2)
        #expect(try await run(["call", "--help"]).status == 0)
        let logout = try await run(["logout"])
        #expect(logout.status == 0, "\(logout.errors)")
        #expect(try await run(["states"]).status == 1)
    }
}
