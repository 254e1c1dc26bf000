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

    /// The environment every run of this suite gets: the suite's own home folder.
    func environment(in folder: URL? = nil) -> [String: String] {
        [
            "HOME": (folder ?? home.url).path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
    }

    func run(_ arguments: [String], input: String = "", limit: Duration = .seconds(120), in folder: URL? = nil)
        async throws -> ProgramRun.Result
    {
        let environment = environment(in: folder)
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

    @Test(
        "H-CLI-4 H-CLI-5 H-CLI-6: toggle from the terminal, seen by a running watch; a notification followed and confirmed; a refusal word for word; usage errors"
    )
    func toggleSeenByWatch() async throws {
        try await login()
        let id = "input_boolean.garage_plug_2"
        let before = try await run(["state", id, "--json"])
        expectDocumentedShape(before.output, "homeassistant state")
        let was = JSONValue(data: Data(before.output.utf8))?["value"]?["state"]?.stringValue
        let toggle = try await run(["toggle", id, "--json"])
        #expect(toggle.status == 0, "\(toggle.errors)")
        expectDocumentedShape(toggle.output, "homeassistant call")
        let after = try await run(["state", id, "--json"])
        let now = JSONValue(data: Data(after.output.utf8))?["value"]?["state"]?.stringValue
        #expect(was != nil && now != nil && was != now, "\(String(describing: was)) → \(String(describing: now))")
        // H-CLI-5: a `watch` running beside; a toggle from another terminal arrives on it as one JSON line.
        let watch = try RunningProgram(program, ["homeassistant", "watch", id, "--json"], environment: environment())
        defer { watch.stop() }
        let watching = await watch.line(within: .seconds(90)) { $0.hasPrefix("Watching ") }
        try #require(watching != nil, "the watch did not become live: \(watch.text)")
        let again = try await run(["toggle", id, "--json"])
        #expect(again.status == 0, "\(again.errors)")
        let line = try #require(
            await watch.line(within: .seconds(30)) { $0.hasPrefix("{") }, "no change on the watch: \(watch.text)")
        expectDocumentedShape(line, "homeassistant watch")
        let change = JSONValue(data: Data(line.utf8))
        #expect(change?["entity_id"] == .string(id))
        #expect(change?["from"]?.stringValue == now && change?["to"]?.stringValue == was, "\(line)")
        watch.stop()
        // H-MOB-16 H-MOB-17 through the terminal: this device registered, its notifications followed; one sent from
        // another terminal arrives, is printed, then confirmed.
        let tag = String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let register = try await run(["register", "--server", url, "--device-name", "cli follow \(tag)", "--json"])
        try #require(register.status == 0, "register: \(register.errors)")
        let follow = try RunningProgram(
            program, ["homeassistant", "notifications", "--follow", "--count", "1", "--json", "--server", url],
            environment: environment())
        defer { follow.stop() }
        let following = await follow.line(within: .seconds(90)) { $0.hasPrefix("Following notifications") }
        try #require(following != nil, "the channel was not asked for: \(follow.text)")
        let notify = try await run([
            "call", "notify.mobile_app_cli_follow_\(tag)", "--data",
            #"{"message": "hello from the terminal", "title": "CI", "data": {"tag": "cli"}}"#,
        ])
        #expect(notify.status == 0, "\(notify.errors)")
        let pushLine = try #require(
            await follow.line(within: .seconds(30)) { $0.hasPrefix("{") }, "no push printed: \(follow.text)")
        expectDocumentedShape(pushLine, "homeassistant notifications")
        let push = JSONValue(data: Data(pushLine.utf8))
        #expect(push?["kind"] == "notification" && push?["id"] == "cli" && push?["confirm_requested"] == true)
        #expect(push?["body"] == "hello from the terminal" && push?["title"] == "CI")
        #expect(await follow.exit(within: .seconds(30)) == 0, "after its one push confirmed: \(follow.text)")
        #expect(try await run(["notifications", "--help"]).status == 0)
        #expect(try await run(["notifications", "--server", url]).status == 2, "--follow is required")
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

/// `companion homeassistant watch` through a restart of Home Assistant (H-CLI-5, H-CONN-10, H-ENT-8), on the https
/// instance with its client certificate and private CA in the terminal's network settings: a restart of the plain
/// instance would take the server from every suite running beside.
@Suite(.exclusive("homeassistant-tls"))
struct HomeAssistantCLIRestartTests {
    @Test(
        "H-CLI-5 H-CONN-10 H-ENT-8: a watch through a restart of Home Assistant: connection lost, retried, reconnected with current states"
    )
    func watchThroughRestart() async throws {
        let program = try ProgramRun.executable("companion")
        let home = try TemporaryFolder(prefix: "companion-ha-restart")
        let url = try TestServers.url("HOMEASSISTANT_TLS_URL").absoluteString
        let password = try String(
            contentsOfFile: try TestServers.value("HOMEASSISTANT_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let passphrase = try String(
            contentsOfFile: try TestServers.value("HOMEASSISTANT_TLS_P12_PASSPHRASE_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = [
            "HOME": home.url.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
        let run = { (arguments: [String], input: String) async throws -> ProgramRun.Result in
            try await ProgramRun.run(program, arguments, environment: environment, input: input, limit: .seconds(120))
        }
        // The network settings, as a person would give them: the private CA, then the client identity.
        let trust = try await run(
            ["trust", url, "--ca", try TestServers.value("HOMEASSISTANT_TLS_ROOT_PEM"), "--yes"], "")
        try #require(trust.status == 0, "trust: \(trust.errors)")
        let identity = try await run(
            [
                "identity", "import", try TestServers.value("HOMEASSISTANT_TLS_CLIENT_P12"), "--server", url,
                "--passphrase-stdin",
            ], passphrase + "\n")
        try #require(identity.status == 0, "identity import: \(identity.errors)")
        let login = try await ServerTurn.take("homeassistant-password") {
            try await run(["homeassistant", "login", url, "--user", "ci", "--password-stdin"], password + "\n")
        }
        try #require(login.status == 0, "login: \(login.errors)")
        let id = "input_number.thermostat"
        let set = try await run(
            ["homeassistant", "call", "input_number.set_value", "--entity", id, "--data", #"{"value": 25}"#], "")
        try #require(set.status == 0, "set_value: \(set.errors)")
        let watch = try RunningProgram(program, ["homeassistant", "watch", id, "--json"], environment: environment)
        defer { watch.stop() }
        try #require(
            await watch.line(within: .seconds(90)) { $0.hasPrefix("Watching ") } != nil, "not live: \(watch.text)")
        // Home Assistant restarts (the control API; users, tokens and booleans survive, input_numbers start again
        // from their initial 20.0).
        let control = try TestServers.url("HOMEASSISTANT_CONTROL_URL")
        let client = TestClients.loopback(control.deletingLastPathComponent(), timeout: .seconds(220))
        let restart = try await client.call(
            .post, "/\(control.lastPathComponent)/restart", json: ["instance": "tls"])
        try #require(restart.response.status == 200, "restart answered \(restart.response.status)")
        let lost = await watch.line(within: .seconds(60)) { $0.hasPrefix("Connection lost; retry 1 ") }
        #expect(lost != nil, "no retry notice: \(watch.text)")
        let back = await watch.line(within: .seconds(120)) { $0 == "Reconnected: current states received." }
        #expect(back != nil, "not reconnected: \(watch.text)")
        let line = await watch.line(within: .seconds(30)) { $0.hasPrefix("{") }
        let change = JSONValue(data: Data((line ?? "").utf8))
        #expect(change?["entity_id"] == .string(id), "\(watch.text)")
        #expect(
            change?["from"] == "25.0" && change?["to"] == "20.0", "the current state after the restart: \(line ?? "")")
        watch.stop()
    }
}

/// A program running beside the test (`companion homeassistant watch`): its standard output and error in one pipe,
/// read line by line on a thread of its own up to a deadline (never on the shared pool, never a sleep), killed by
/// `stop()`.
final class RunningProgram: Sendable {
    private let child: ChildProcess.Running
    /// Everything read so far, and how many of its lines a `line(within:where:)` already passed.
    private let buffer = Locked<(bytes: Data, consumed: Int, ended: Bool)>((Data(), 0, false))
    private let stopped = Locked(false)

    init(_ program: URL, _ arguments: [String], environment: [String: String]) throws {
        child = try ChildProcess.spawn(program.path, arguments, environment: environment, errors: .output)
    }

    /// Everything printed so far.
    var text: String { String(decoding: buffer.withLock { $0.bytes }, as: UTF8.self) }

    /// The next line (after those already returned or passed) that `condition` accepts, read for at most
    /// `limit`; `nil` when the output ended or the time passed first.
    func line(within limit: Duration, where condition: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.readLine(until: ContinuousClock.now + limit, condition)) }
                .start()
        }
    }

    private func readLine(until deadline: ContinuousClock.Instant, _ condition: (String) -> Bool) -> String? {
        guard let output = child.output else { return nil }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let found = nextLine(condition) { return found }
            if buffer.withLock({ $0.ended }) { return nil }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining / .milliseconds(1), 60_000)) + 1)
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            buffer.withLock { state in
                if count > 0 { state.bytes.append(contentsOf: chunk[0..<count]) } else { state.ended = true }
            }
        }
    }

    /// The first complete line not yet passed that `condition` accepts; the lines before it are passed.
    private func nextLine(_ condition: (String) -> Bool) -> String? {
        buffer.withLock { state in
            let lines = String(decoding: state.bytes, as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false
            ).dropLast()
            for (index, line) in lines.enumerated().dropFirst(state.consumed) {
                state.consumed = index + 1
                if condition(String(line)) { return String(line) }
            }
            return nil
        }
    }

    /// Waits (bounded) for the program to end by itself: its exit code, or `nil` when it had not ended in time.
    func exit(within limit: Duration) async -> Int32? {
        _ = await line(within: limit) { _ in false }
        guard buffer.withLock({ $0.ended }) else { return nil }
        guard
            stopped.withLock({ was in
                defer { was = true }
                return !was
            })
        else { return nil }
        return child.wait().code
    }

    /// Kills the program and waits for it (once; later calls do nothing).
    func stop() {
        guard
            stopped.withLock({ was in
                defer { was = true }
                return !was
            })
        else { return }
        child.kill()
        child.wait()
    }
}
