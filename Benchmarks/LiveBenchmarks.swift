import CompanionCore
import Foundation

/// P11, P12 and P13: the live connection, measured against its peers (`Benchmarks/Peers`, run as processes).
///
/// P11's kit rows come from the WebSocket channel (`ChannelContender`); P12's and P13's from the Home Assistant core
/// in a process of its own (`HomeAssistantScreens`). Each plugs in by setting its contender below: the harness, the
/// peers, the server and the rows stay as they are; a contender set to `nil` prints its rows as pending.
enum LiveBenchmarks {
    /// The Python interpreter of the bench venv (`BENCH_PYTHON`, made by `scripts/bench`).
    static func python() throws -> String {
        guard let python = ProcessInfo.processInfo.environment["BENCH_PYTHON"], !python.isEmpty else {
            throw BenchmarkError("BENCH_PYTHON is unset: run the live benchmarks through scripts/bench")
        }
        return python
    }

    /// A peer script in `Benchmarks/Peers` (`BENCH_PEERS` names the folder; the working directory's by default).
    static func peer(_ name: String) -> String {
        let folder = ProcessInfo.processInfo.environment["BENCH_PEERS"] ?? "Benchmarks/Peers"
        return "\(folder)/\(name)"
    }

    /// Runs `executable` to its end and returns the numbers of the last JSON object line it printed.
    static func run(_ executable: String, _ arguments: [String]) throws -> [String: Double] {
        let lines = try Self.lines(executable, arguments)
        return try numbers(lines.last ?? "", from: executable)
    }

    /// Runs `executable` to its end; its stdout lines, and (first) when its first line arrived after the spawn.
    static func lines(_ executable: String, _ arguments: [String]) throws -> [String] {
        try timedLines(executable, arguments).lines
    }

    /// The lines `executable` printed, and the seconds from its spawn to its first line.
    static func timedLines(_ executable: String, _ arguments: [String]) throws -> (lines: [String], first: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let start = ContinuousClock.now
        try process.run()
        let handle = output.fileHandleForReading
        var buffer = Data()
        var first: Double?
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            if first == nil, chunk.contains(0x0A) { first = (ContinuousClock.now - start).seconds }
            buffer.append(chunk)
        }
        process.waitUntilExit()
        let name = URL(fileURLWithPath: arguments.first ?? executable).lastPathComponent
        guard process.terminationStatus == 0, let first else {
            throw BenchmarkError("\(name) exited with \(process.terminationStatus)")
        }
        let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, first)
    }

    static func numbers(_ line: String, from name: String) throws -> [String: Double] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw BenchmarkError("\(name) printed no JSON line: \(line.prefix(200))")
        }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    // MARK: P11

    /// One P11 case: its letter, what it does, and how many operations it counts.
    struct Case: Sendable {
        let letter: String
        let title: String
        let operations: Int
    }

    static let cases = [
        Case(
            letter: "a", title: "10,000 sequential round trips of a 100-byte JSON text message (echo)",
            operations: 10_000),
        Case(letter: "b", title: "100,000 server-pushed 200-byte text messages, read and decoded", operations: 100_000),
        Case(letter: "c", title: "one 16 MiB binary message sent and echoed back whole", operations: 1),
    ]

    /// The kit's WebSocket channel doing one P11 case against the wsbench server (`ws://…` base URL): the wall and
    /// CPU seconds of the case, on a connection opened and warmed before its clock starts (what the peers do;
    /// `Benchmarks/Peers/ws_peer.py` is the reference). `nil` would print its rows as pending.
    static let channelContender: (@Sendable (URL, Case) async throws -> (wall: Double, cpu: Double))? =
        ChannelContender.run

    /// `Benchmarks p11 <ws-url>`: each round runs the Python websockets client and the C floor (one process each,
    /// all three cases), then the kit's channel; medians of `rounds`. Ratios against the Python client's wall time.
    static func p11(url: URL, rounds: Int = 5) async throws {
        let python = try python()
        guard let floor = ProcessInfo.processInfo.environment["BENCH_WS_FLOOR"], !floor.isEmpty else {
            throw BenchmarkError("BENCH_WS_FLOOR is unset: scripts/bench p11 builds Benchmarks/Peers/ws_floor.c")
        }
        var samples: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for (prefix, figures) in [
                ("python", try run(python, [peer("ws_peer.py"), url.absoluteString])),
                ("floor", try run(floor, [url.absoluteString])),
            ] {
                for (key, value) in figures { samples["\(prefix).\(key)", default: []].append(value) }
            }
            if let channelContender {
                for item in cases {
                    let (wall, cpu) = try await channelContender(url, item)
                    samples["kit.\(item.letter)", default: []].append(wall)
                    samples["kit.\(item.letter)_cpu", default: []].append(cpu)
                }
            }
        }
        for item in cases {
            let id = "p11\(item.letter)"
            let title = "P11 (\(item.letter)) WebSocket: \(item.title), median of \(rounds)"
            let baseline = median(samples["python.\(item.letter)"] ?? [])
            var rows: [(String, Double, Int)] = [
                ("Python websockets 17 client", baseline, item.operations),
                (
                    "floor: C on libcurl's connect-only stream", median(samples["floor.\(item.letter)"] ?? []),
                    item.operations
                ),
                (
                    "CPU: Python websockets 17 client", median(samples["python.\(item.letter)_cpu"] ?? []),
                    item.operations
                ),
                ("CPU: the C floor", median(samples["floor.\(item.letter)_cpu"] ?? []), item.operations),
            ]
            if channelContender != nil {
                rows.insert(
                    ("CompanionKit WebSocket channel", median(samples["kit.\(item.letter)"] ?? []), item.operations),
                    at: 0)
                rows.append(
                    (
                        "CPU: CompanionKit WebSocket channel", median(samples["kit.\(item.letter)_cpu"] ?? []),
                        item.operations
                    ))
            }
            Report.table(id: id, title: title, rows: rows, baseline: baseline, baselineName: "Python client")
            if channelContender == nil {
                Report.pending(
                    id: id, title: title, name: "CompanionKit WebSocket channel",
                    reason: "pending the channel (LiveBenchmarks.channelContender)")
            }
        }
    }

    // MARK: P12

    /// The kit's first screen of Home Assistant: from a new process (the seconds from its spawn to the screen
    /// complete) and on an open environment (the median seconds of `repeat` more screens, and the server's own
    /// reply time of each measured on the same connection: last request sent to last message received).
    static let coreFirstScreen:
        (
            @Sendable (_ url: URL, _ tokenFile: String, _ repeat: Int) async throws -> (
                cold: Double, open: Double, reply: Double
            )
        )? = HomeAssistantScreens.firstScreen

    /// `Benchmarks p12 <home-assistant-url> <token-file>`: the Python peers (`hass-client`, and the same messages
    /// by hand over websockets) from process start and on an open connection; medians of `rounds` processes.
    static func p12(url: URL, tokenFile: String, rounds: Int = 5, repeats: Int = 10) async throws {
        let python = try python()
        var samples: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for client in ["hass-client", "websockets"] {
                let (lines, first) = try timedLines(
                    python,
                    [
                        peer("ha_first_screen.py"), url.absoluteString, tokenFile, "--client", client, "--repeat",
                        "\(repeats)",
                    ])
                let screen = try numbers(lines.first ?? "", from: client)
                guard screen["placed"] == 1_000 else {
                    throw BenchmarkError("p12: \(client) placed \(screen["placed"] ?? 0) entities in areas, not 1,000")
                }
                let open = try numbers(lines.last ?? "", from: client)
                samples["\(client).cold", default: []].append(first)
                samples["\(client).open", default: []].append(open["open_s"] ?? .nan)
                if let reply = open["reply_s"] { samples["\(client).reply", default: []].append(reply) }
            }
            if let coreFirstScreen {
                let figures = try await coreFirstScreen(url, tokenFile, repeats)
                samples["kit.cold", default: []].append(figures.cold)
                samples["kit.open", default: []].append(figures.open)
                samples["kit.reply", default: []].append(figures.reply)
            }
        }
        let title = "P12 Home Assistant first screen (1,000 entities by area) from process start, median of \(rounds)"
        let peer = median(samples["hass-client.cold"] ?? [])
        var rows: [(String, Double, Int)] = [
            ("Python hass-client 1.4.1 (aiohttp), new process", peer, 1),
            (
                "Python websockets 17, the same messages by hand, new process",
                median(samples["websockets.cold"] ?? []), 1
            ),
        ]
        if coreFirstScreen != nil {
            rows.insert(("CompanionKit Home Assistant core, new process", median(samples["kit.cold"] ?? []), 1), at: 0)
        }
        Report.table(id: "p12", title: title, rows: rows, baseline: peer, baselineName: "hass-client")
        if coreFirstScreen == nil {
            Report.pending(
                id: "p12", title: title, name: "CompanionKit Home Assistant core, new process",
                reason: "pending the Home Assistant core (LiveBenchmarks.coreFirstScreen)")
        }
        let openTitle =
            "P12 the same screen on an open connection, median of \(rounds) x \(repeats), against the server's reply"
        let reply = median(samples["websockets.reply"] ?? [])
        var openRows: [(String, Double, Int)] = [
            ("server's own reply (last request sent to last message, websockets peer)", reply, 1),
            ("Python hass-client 1.4.1, open connection", median(samples["hass-client.open"] ?? []), 1),
            ("Python websockets 17 by hand, open connection", median(samples["websockets.open"] ?? []), 1),
        ]
        if coreFirstScreen != nil {
            openRows.append(("CompanionKit core, open environment", median(samples["kit.open"] ?? []), 1))
            openRows.append(("server's own reply on the core's connection", median(samples["kit.reply"] ?? []), 1))
        }
        Report.table(id: "p12o", title: openTitle, rows: openRows, baseline: reply, baselineName: "server reply")
        if coreFirstScreen == nil {
            Report.pending(
                id: "p12o", title: openTitle, name: "CompanionKit core, open environment",
                reason: "pending the Home Assistant core (LiveBenchmarks.coreFirstScreen)")
        }
    }

    // MARK: P13

    /// The command of a process that follows the Home Assistant core's feed for `seconds`, with the same contract
    /// as `ha_follower.py`: one line once it follows, and at its end one JSON line whose `entities` is its store's
    /// count of entities. Its RSS is sampled beside the Python follower's.
    static let coreFollower: (@Sendable (_ url: URL, _ tokenFile: String, _ seconds: Int) -> [String])? =
        HomeAssistantScreens.follower

    /// A follower process and its RSS samples (seconds since the churn began, KiB).
    final class Follower {
        let name: String
        let process = Process()
        let output = Pipe()
        var samples: [(Double, Int)] = []

        init(name: String, command: [String]) {
            self.name = name
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardOutput = output
        }

        /// Starts it and waits for its first line (it follows), bounded by the process: it exits on any failure.
        func start() throws {
            try process.run()
            _ = output.fileHandleForReading.availableData
        }

        func sample(at seconds: Double) {
            if let kib = LongSession.residentKiB(of: process.processIdentifier) { samples.append((seconds, kib)) }
        }

        /// Waits for its end; the numbers of its last line.
        func finish() throws -> [String: Double] {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let last = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            return try LiveBenchmarks.numbers(last, from: name)
        }
    }

    /// `Benchmarks p13 <home-assistant-url> <token-file> [--minutes M] [--warmup S]`: `ha_churn.py` makes 50 state
    /// changes a second over the 1,000 area entities while each follower runs (the Python `ha_follower.py`, a
    /// `subscribe_entities` store in a dict; the core's once set); their RSS is read every 5 s. Rows per follower:
    /// RSS after the warm-up, at the end, the highest after the warm-up, and the entities in its store at the end.
    static func p13(url: URL, tokenFile: String, arguments: [String]) async throws {
        var minutes = 10.0
        var warmup = 60.0
        var index = 0
        while index + 1 < arguments.count {
            if arguments[index] == "--minutes", let value = Double(arguments[index + 1]) { minutes = value }
            if arguments[index] == "--warmup", let value = Double(arguments[index + 1]) { warmup = value }
            index += 2
        }
        let python = try python()
        let seconds = Int(warmup + minutes * 60)
        var followers = [
            Follower(
                name: "Python websockets follower",
                command: [
                    python, peer("ha_follower.py"), url.absoluteString, tokenFile, "--seconds", "\(seconds + 20)",
                ])
        ]
        if let coreFollower {
            followers.append(
                Follower(name: "CompanionKit Home Assistant core", command: coreFollower(url, tokenFile, seconds + 20)))
        }
        for follower in followers { try follower.start() }
        let churn = Process()
        churn.executableURL = URL(fileURLWithPath: python)
        churn.arguments = [
            peer("ha_churn.py"), url.absoluteString, tokenFile, "--rate", "50", "--seconds", "\(seconds)",
        ]
        let churnOutput = Pipe()
        churn.standardOutput = churnOutput
        let start = ContinuousClock.now
        try churn.run()
        while churn.isRunning {
            for follower in followers { follower.sample(at: (ContinuousClock.now - start).seconds) }
            try await Task.sleep(for: .seconds(5))
        }
        let churnData = churnOutput.fileHandleForReading.readDataToEndOfFile()
        churn.waitUntilExit()
        guard churn.terminationStatus == 0 else {
            throw BenchmarkError("ha_churn.py exited with \(churn.terminationStatus)")
        }
        let churned = try numbers(
            String(decoding: churnData, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "",
            from: "ha_churn.py")
        for follower in followers { follower.sample(at: (ContinuousClock.now - start).seconds) }
        let title = String(
            format:
                "P13 memory of a live follower: %.0f state changes at %.1f/s on %.0f entities over %.1f min after %.0f s warm-up",
            churned["changes"] ?? 0, churned["rate"] ?? 0, churned["entities"] ?? 0, minutes, warmup)
        for follower in followers {
            let figures = try follower.finish()
            let samples = follower.samples
            let after = samples.first { $0.0 >= warmup }?.1 ?? samples.last?.1 ?? 0
            let end = samples.last?.1 ?? 0
            let highest = samples.filter { $0.0 >= warmup }.map(\.1).max() ?? end
            let mib = { (kib: Int) in Double(kib) / 1024 }
            Report.table(
                id: "p13", title: title,
                rows: [
                    ("\(follower.name): RSS after the warm-up", mib(after), 1),
                    ("\(follower.name): RSS at the end", mib(end), 1),
                    ("\(follower.name): highest RSS after the warm-up", mib(highest), 1),
                ], baseline: mib(after), baselineName: "after warm-up", unit: "MiB")
            Report.table(
                id: "p13", title: title,
                rows: [("\(follower.name): entities in its store at the end", figures["entities"] ?? 0, 1)],
                baseline: figures["entities"] ?? 1, baselineName: "itself", unit: "entities")
        }
        if coreFollower == nil {
            Report.pending(
                id: "p13", title: title, name: "CompanionKit Home Assistant core's feed: RSS growth and store count",
                reason: "pending the Home Assistant core (LiveBenchmarks.coreFollower)")
        }
    }
}
