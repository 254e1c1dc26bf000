import CompanionCore
import CompanionStore
import Foundation

/// P3 cold: a fresh process opens a store of N cached items and prints the first 50 (id and title,
/// decoded), against the `sqlite3` CLI printing the same 50 rows of the same file, for N = 1k … 1M.
/// Two kit processes are timed: `ColdStartReader`, a small executable that links only the store and the core
/// (what a tool or an app that reads the cache links; `scripts/bench` builds it fully static), and the
/// `Benchmarks` binary itself (`p3cold-child`), which also links the HTTP stack. Each binary is also started
/// with nothing to do (its floor), and each child reports the time it spent inside main (open, read, decode,
/// print), so the table splits the kit's own work from the process's start and exit.
///
/// Both sides read the same file through a warm page cache (the machine is shared, so its caches are
/// not dropped); "cold" means a new process: nothing of the store is open or in the process's memory.
enum ColdStart {
    static let sizes = [1_000, 10_000, 100_000, 1_000_000]
    static let list = "sessions"

    /// An item the size of a sessions-list row (about 200 bytes of JSON).
    static func body(_ index: Int, encoder: JSONEncoder) throws -> Data {
        try encoder.encode(
            StoreBenchmarks.Item(
                id: String(format: "%032x", index), title: "Session \(index)", status: index % 3 == 0 ? "idle" : "done",
                createdAt: 1_795_950_000 + index, text: String(repeating: "lorem ipsum ", count: 6)))
    }

    /// Fills a store with `count` items, 50,000 to a transaction.
    static func fill(_ url: URL, count: Int) async throws {
        let store = try OfflineStore(scope: StoreBenchmarks.scope, location: .directory(url))
        let encoder = JSONEncoder()
        var start = 0
        while start < count {
            let end = min(count, start + 50_000)
            let items = try (start..<end).map {
                (id: String(format: "%032x", $0), body: try body($0, encoder: encoder))
            }
            let page = ListPage(items: items, nextCursor: end < count ? "more" : nil)
            let replacing = start == 0
            _ = try await store.write { transaction throws(StoreError) in
                try transaction.storePage(page, list: list, replacing: replacing)
            }
            start = end
        }
    }

    /// One contender's timings at one N: wall time of the whole process, and the time it reported inside main.
    struct Times {
        var wall: [Double] = []
        var inside: [Double] = []

        var cpu: [Double] = []

        mutating func add(_ child: (seconds: Double, cpu: Double, lines: [Substring])) {
            wall.append(child.seconds)
            cpu.append(child.cpu)
            if let line = child.lines.last, line.hasPrefix("#"), let seconds = Double(line.dropFirst()) {
                inside.append(seconds)
            }
        }
    }

    /// The `ColdStartReader` executable: `BENCH_COLDSTART_READER` (`scripts/bench p3cold` builds it fully static
    /// in its own build folder), else the one next to this binary.
    static var readerPath: String {
        if let path = ProcessInfo.processInfo.environment["BENCH_COLDSTART_READER"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "ColdStartReader"
        ).path
    }

    /// The `sqlite3` CLI's own path, so its time does not include an `env` in front of it.
    static func sqlitePath() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/sqlite3")
        {
            return "\(folder)/sqlite3"
        }
        throw BenchmarkError("p3cold: the sqlite3 CLI is not on PATH")
    }

    static func run(rounds: Int = 41) async throws {
        let sqlite = try sqlitePath()
        let reader = readerPath
        guard FileManager.default.isExecutableFile(atPath: reader) else {
            throw BenchmarkError(
                "p3cold: \(reader) is missing; build it with "
                    + "`scripts/bench p3cold` (or `swift build -c release --product ColdStartReader`)")
        }
        var floors: [String: [Double]] = [:]
        var readerTimes: [Int: Times] = [:]
        var kitTimes: [Int: Times] = [:]
        var cliTimes: [Int: Double] = [:]
        var cliCPUTimes: [Int: Double] = [:]
        let root = try StoreBenchmarks.folder("p3cold")
        defer { try? FileManager.default.removeItem(at: root) }
        for count in sizes {
            let url = root.appendingPathComponent("n\(count)")
            let fillSeconds = try await time { try await fill(url, count: count) }
            let file = url.appendingPathComponent(StoreBenchmarks.scope.storageName + ".sqlite").path
            FileHandle.standardError.write(
                Data(String(format: "p3cold: %d items stored in %.1f s\n", count, fillSeconds).utf8))
            let query =
                "SELECT item_id, json_extract(body, '$.title') FROM list_items WHERE list_key = '\(list)' "
                + "ORDER BY position LIMIT 50"
            let cliArguments = ["-readonly", "-separator", " ", file, query]
            // Every output is checked once: the same 50 ids and titles in the same order.
            let cliRows = try run(sqlite, cliArguments).lines
            for output in [try run(reader, [url.path]), try run(CommandLine.arguments[0], ["p3cold-child", url.path])] {
                let rows = output.lines.filter { !$0.hasPrefix("#") }
                guard rows == cliRows, rows.count == 50 else {
                    throw BenchmarkError("p3cold: the kit and sqlite3 printed different rows for \(count) items")
                }
            }
            // The contenders take turns within each round, so a burst of load on the shared machine hits all.
            var readerRuns = Times()
            var kitRuns = Times()
            var cli: [Double] = []
            var cliCPU: [Double] = []
            for _ in 0..<rounds {
                readerRuns.add(try run(reader, [url.path]))
                let cliRun = try run(sqlite, cliArguments)
                cli.append(cliRun.seconds)
                cliCPU.append(cliRun.cpu)
                kitRuns.add(try run(CommandLine.arguments[0], ["p3cold-child", url.path]))
                floors["reader", default: []].append(try run(reader, ["--start-only"]).seconds)
                floors["benchmarks", default: []].append(try run(CommandLine.arguments[0], ["noop"]).seconds)
                floors["sqlite3", default: []].append(try run(sqlite, ["-version"]).seconds)
            }
            readerTimes[count] = readerRuns
            kitTimes[count] = kitRuns
            cliTimes[count] = median(cli)
            cliCPUTimes[count] = median(cliCPU)
            try? FileManager.default.removeItem(at: url)
        }
        report(
            rounds: rounds, reader: readerTimes, kit: kitTimes, cli: cliTimes, cliCPU: cliCPUTimes,
            floors: floors.mapValues(median))
    }

    /// Prints the table and records its rows for `scripts/bench all`.
    static func report(
        rounds: Int, reader: [Int: Times], kit: [Int: Times], cli cliTimes: [Int: Double], cliCPU: [Int: Double],
        floors: [String: Double]
    ) {
        let title = "P3 cold: a new process opens the store and prints the first 50 of N items, median of \(rounds)"
        print("\n\(title)")
        print(String(repeating: "-", count: 118))
        print(
            Report.pad("N", 11) + Report.pad("sqlite3 CLI ms", 16) + Report.pad("ColdStartReader ms", 20)
                + Report.pad("ratio", 8) + Report.pad("Benchmarks binary ms", 22) + Report.pad("ratio", 8)
                + "inside main ms (reader, Benchmarks)")
        for count in sizes {
            guard let ours = reader[count], let bench = kit[count], let cli = cliTimes[count] else { continue }
            let (wall, inside) = (median(ours.wall), median(ours.inside))
            let (benchWall, benchInside) = (median(bench.wall), median(bench.inside))
            print(
                Report.pad("\(count)", 11) + Report.pad(String(format: "%.2f", cli * 1000), 16)
                    + Report.pad(String(format: "%.2f", wall * 1000), 20)
                    + Report.pad(String(format: "%.2fx", wall / cli), 8)
                    + Report.pad(String(format: "%.2f", benchWall * 1000), 22)
                    + Report.pad(String(format: "%.2fx", benchWall / cli), 8)
                    + String(format: "%.2f, %.2f", inside * 1000, benchInside * 1000))
            Report.record(
                id: "p3cold", title: title, name: "CompanionKit inside main, N = \(count)", seconds: inside,
                operations: 1, baseline: cli, parameter: count, series: "CompanionKit inside main")
            Report.record(
                id: "p3cold", title: title, name: "sqlite3 CLI, N = \(count)", seconds: cli, operations: 1,
                baseline: cli, parameter: count, series: "sqlite3 CLI")
            Report.record(
                id: "p3cold", title: title, name: "CompanionKit, ColdStartReader (store only, static), N = \(count)",
                seconds: wall, operations: 1, baseline: cli, parameter: count, series: "CompanionKit (ColdStartReader)")
            Report.record(
                id: "p3cold", title: title, name: "CompanionKit in the Benchmarks binary, N = \(count)",
                seconds: benchWall, operations: 1, baseline: cli, parameter: count,
                series: "CompanionKit (Benchmarks binary)")
        }
        // CPU time (user + system) is steadier than wall time on a shared machine: the same medians, in CPU.
        print("CPU ms (user + system), median: N, sqlite3 CLI, ColdStartReader, ratio, Benchmarks binary, ratio")
        for count in sizes {
            guard let ours = reader[count], let bench = kit[count], let cli = cliCPU[count] else { continue }
            let (cpu, benchCPU) = (median(ours.cpu), median(bench.cpu))
            print(
                String(
                    format: "  %d: %.2f, %.2f, %.2fx, %.2f, %.2fx", count, cli * 1000, cpu * 1000, cpu / cli,
                    benchCPU * 1000, benchCPU / cli))
            guard count == 1_000_000 else { continue }
            Report.record(
                id: "p3cold", title: title, name: "CPU (user + system), sqlite3 CLI, N = 1M", seconds: cli,
                operations: 1, baseline: cli)
            Report.record(
                id: "p3cold", title: title, name: "CPU (user + system), CompanionKit, ColdStartReader, N = 1M",
                seconds: cpu, operations: 1, baseline: cli)
        }
        // The floors: each binary started with nothing to do, against sqlite3's whole run at 1M items.
        let baseline = cliTimes[1_000_000] ?? 1
        let rows = [
            ("benchmarks", "a Swift process that only starts (floor): Benchmarks, links HTTP"),
            ("reader", "a Swift process that only starts (floor): ColdStartReader"),
            ("sqlite3", "the sqlite3 CLI that only starts (sqlite3 -version)"),
        ]
        for (key, name) in rows {
            guard let floor = floors[key] else { continue }
            Report.record(id: "p3cold", title: title, name: name, seconds: floor, operations: 1, baseline: baseline)
            print(
                Report.pad(name, 70) + String(format: "%.2f ms  (%.2fx sqlite3 at 1M)", floor * 1000, floor / baseline))
        }
    }

    /// Runs a process to its end with stdout captured; its wall time from launch to exit, and its CPU time (user +
    /// system, from the growth of this process's reaped children's usage: the children run one at a time).
    static func run(
        _ executable: String, _ arguments: [String]
    ) throws -> (seconds: Double, cpu: Double, lines: [Substring]) {
        let cpuBefore = ProcessCPU.reapedChildren()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let start = ContinuousClock.now
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(arguments.first ?? executable) exited with \(process.terminationStatus)")
        }
        return (
            seconds, ProcessCPU.reapedChildren() - cpuBefore,
            String(decoding: data, as: UTF8.self).split(separator: "\n")
        )
    }

    /// The child: open the store, read the first 50, decode them and print id and title.
    static func child(_ path: String) async throws {
        let start = ContinuousClock.now
        let store = try OfflineStore(scope: StoreBenchmarks.scope, location: .directory(URL(fileURLWithPath: path)))
        let first = try await store.read { transaction throws(StoreError) in try transaction.items(list, limit: 50) }
        let decoder = JSONDecoder()
        var text = ""
        for item in first {
            let decoded = try decoder.decode(StoreBenchmarks.Item.self, from: item.body)
            text += decoded.id + " " + decoded.title + "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
        // The time spent inside main, for the breakdown (the rest of the process's time is its start and exit).
        FileHandle.standardOutput.write(Data("#\((ContinuousClock.now - start).seconds)\n".utf8))
    }
}
