import Foundation

/// P11 in instructions: the kit's WebSocket channel, the C floor and the Python `websockets` client doing the same
/// case under callgrind, which counts the same whatever else the machine is doing (the walls of `p11` wait for a
/// core on a busy machine). Each contender runs each case at two sizes; the difference over the difference in
/// operations is its instructions per operation, start-up, connection and warm-up excluded. Only the client's own
/// process is counted (the server is the same for all three).
enum P11Instructions {
    /// The two sizes of each case: round trips (a), pushed messages (b), MiB of the big message (c).
    static let sizes: [(letter: String, low: Int, high: Int, unit: String)] = [
        ("a", 200, 1_200, "round trip"),
        ("b", 2_000, 12_000, "pushed message"),
        ("c", 1, 5, "MiB echoed"),
    ]

    /// `Benchmarks p11-one <a|b|c> <ws-url> <count>`: one case of the kit's channel, for callgrind (`count` is MiB
    /// for c).
    static func one(letter: String, url: URL, count: Int) async throws {
        switch letter {
        case "a": _ = try await ChannelContender.roundTrips(url, count: count)
        case "b": _ = try await ChannelContender.pushed(url, count: count)
        default: _ = try await ChannelContender.big(url, size: count << 20)
        }
    }

    /// `Benchmarks p11-instructions <ws-url>`: the table (BENCH_WS_FLOOR and BENCH_PYTHON as for `p11`).
    static func run(url: URL) throws {
        guard let floor = ProcessInfo.processInfo.environment["BENCH_WS_FLOOR"], !floor.isEmpty else {
            throw BenchmarkError("BENCH_WS_FLOOR is unset: scripts/bench p11i builds Benchmarks/Peers/ws_floor.c")
        }
        let python = try LiveBenchmarks.python()
        let base = url.absoluteString
        for size in sizes {
            func perOperation(_ run: (Int) throws -> Int) throws -> Double {
                Double(try run(size.high) - run(size.low)) / Double(size.high - size.low)
            }
            let kit = try perOperation { count in
                try P1Instructions.instructions(["p11-one", size.letter, base, "\(count)"])
            }
            let floorCount = try perOperation { count in
                try P1Instructions.instructions(of: floor, floorArguments(base, size.letter, count))
            }
            let peer = try perOperation { count in
                try P1Instructions.instructions(
                    of: python, [LiveBenchmarks.peer("ws_peer.py")] + peerArguments(base, size.letter, count))
            }
            let title =
                "P11 (\(size.letter)) in instructions (callgrind): per \(size.unit), the client's process only"
            Report.table(
                id: "p11\(size.letter)i", title: title,
                rows: [
                    ("CompanionKit WebSocket channel", kit, 1),
                    ("Python websockets 17 client", peer, 1),
                    ("floor: C on libcurl's connect-only stream", floorCount, 1),
                ], baseline: floorCount, baselineName: "C floor", unit: "instructions")
        }
    }

    /// ws_floor's arguments for one case: `<url> <cases> <round-trips> <pushed> <big>`.
    static func floorArguments(_ base: String, _ letter: String, _ count: Int) -> [String] {
        switch letter {
        case "a": return [base, "a", "\(count)", "1", "1"]
        case "b": return [base, "b", "1", "\(count)", "1"]
        default: return [base, "c", "1", "1", "\(count << 20)"]
        }
    }

    /// ws_peer.py's arguments for one case.
    static func peerArguments(_ base: String, _ letter: String, _ count: Int) -> [String] {
        switch letter {
        case "a": return [base, "--cases", "a", "--round-trips", "\(count)"]
        case "b": return [base, "--cases", "b", "--pushed", "\(count)"]
        default: return [base, "--cases", "c", "--big", "\(count << 20)"]
        }
    }
}
