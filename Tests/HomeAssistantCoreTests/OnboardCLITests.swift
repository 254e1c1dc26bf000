import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// `companion homeassistant onboard` and `token create` with the built binary (H-CLI-7): a Home Assistant that was
/// never onboarded is made for the test by the server's control API (`POST /_control/fresh`).
@Suite(.serialized) struct OnboardCLITests {
    let program: URL
    let home: URL

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-ha-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], input: String = "") async throws -> ProgramRun.Result {
        let environment = [
            "COMPANION_HOME": home.path, "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        return try await ProgramRun.run(program, arguments, environment: environment, input: input)
    }

    /// A Home Assistant that is not onboarded yet, started by the test server's control API.
    func freshServer() async throws -> URL {
        let control = try TestServers.url("HOMEASSISTANT_CONTROL_URL")
        let client = TestClients.loopback(control.deletingLastPathComponent(), timeout: .seconds(220))
        let reply = try await client.call(.post, "/\(control.lastPathComponent)/fresh", json: [:])
        try #require(reply.response.status == 200, "control fresh answered \(reply.response.status)")
        return try #require(reply.json?["url"]?.stringValue.flatMap(URL.init(string:)))
    }

    @Test(
        "H-CLI-7: onboard a fresh loopback server (owner ci, signed in: states work); again: already set up, exit 1; a non-loopback address: exit 2; token create prints a working long-lived token"
    )
    func onboardAndToken() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fresh = try await freshServer()
        let password = UUID().uuidString
        let first = try await run(
            ["homeassistant", "onboard", fresh.absoluteString, "--password-stdin", "--json"], input: password + "\n")
        #expect(first.status == 0, "\(first.errors)")
        expectDocumentedShape(first.output, "homeassistant onboard")
        let report = JSONValue(data: Data(first.output.utf8))
        #expect(report?["user"] == "ci" && report?["signedIn"] == true)
        // Signed in as after `login`: the states of the fresh server are read with the stored credential.
        let states = try await run(["homeassistant", "state", "input_boolean.porch_light", "--json"])
        #expect(states.status == 0, "\(states.errors)")
        #expect(JSONValue(data: Data(states.output.utf8))?["value"]?["entity_id"] == "input_boolean.porch_light")
        // Again: Home Assistant's own sentence, exit 1.
        let again = try await run(
            ["homeassistant", "onboard", fresh.absoluteString, "--password-stdin"], input: password + "\n")
        #expect(again.status == 1)
        #expect(again.errors.contains("already set up") && again.errors.contains("User step already done"))
        // Only a server on this machine.
        let remote = try await run(
            ["homeassistant", "onboard", "https://ha.example", "--password-stdin"], input: password + "\n")
        #expect(remote.status == 2 && remote.errors.contains("not a loopback address"))
        // A long-lived token, printed once, that Home Assistant takes.
        let token = try await run(["homeassistant", "token", "create", "--name", "ci token", "--days", "30", "--json"])
        #expect(token.status == 0, "\(token.errors)")
        expectDocumentedShape(token.output, "homeassistant token")
        let made = try #require(JSONValue(data: Data(token.output.utf8))?["token"]?.stringValue)
        #expect(made.split(separator: ".").count == 3)
        let client = TestClients.loopback(fresh, timeout: .seconds(30))
        let api = try await client.call(.get, "/api/", headers: ["Authorization": "Bearer \(made)"])
        #expect(api.status == 200)
        let usage = try await run(["homeassistant", "token", "create", "--days", "30"])
        #expect(usage.status == 2)
        for output in [first, again, remote, token] {
            #expect(!output.output.contains(password) && !output.errors.contains(password))
        }
    }

    @Test("H-CLI-7: onboard and token have --help (exit 0)")
    func help() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        for command in ["onboard", "token"] {
            let help = try await run(["homeassistant", command, "--help"])
            #expect(help.status == 0 && help.output.contains("Exit codes"), "\(command)")
        }
    }
}
