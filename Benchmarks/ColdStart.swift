import CompanionCore
import CompanionStore
import Foundation

/// P3 cold: a fresh process opens a store of N cached items and prints the first 50 (id and title,
/// decoded), against the `sqlite3` CLI printing the same 50 rows of the same file, for N = 1k … 1M.
/// A process that only starts and exits (`Benchmarks noop`) is timed too: the floor of this binary, and the
/// child reports the time it spent inside main (open, read, decode, print), so the table splits the kit's
/// own work from the process's start and exit.
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

    static func run(rounds: Int = 7) async throws {
        let sqlite = "/usr/bin/env"
        var noop: [Double] = []
        var kitTimes: [Int: Double] = [:]
        var cliTimes: [Int: Double] = [:]
        var insideTimes: [Int: Double] = [:]
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
            // Both outputs are checked once: the same 50 ids in the same order.
            let kitOutput = try run(CommandLine.arguments[0], ["p3cold-child", url.path])
            let cliOutput = try run(sqlite, ["sqlite3", "-readonly", "-separator", " ", file, query])
            let kitRows = kitOutput.lines.filter { !$0.hasPrefix("#") }
            guard kitRows == cliOutput.lines, kitRows.count == 50 else {
                throw BenchmarkError("p3cold: the kit and sqlite3 printed different rows for \(count) items")
            }
            var kit: [Double] = []
            var inside: [Double] = []
            var cli: [Double] = []
            for _ in 0..<rounds {
                let child = try run(CommandLine.arguments[0], ["p3cold-child", url.path])
                kit.append(child.seconds)
                if let line = child.lines.last, line.hasPrefix("#"), let seconds = Double(line.dropFirst()) {
                    inside.append(seconds)
                }
                cli.append(try run(sqlite, ["sqlite3", "-readonly", "-separator", " ", file, query]).seconds)
                noop.append(try run(CommandLine.arguments[0], ["noop"]).seconds)
            }
            kitTimes[count] = median(kit)
            insideTimes[count] = median(inside)
            cliTimes[count] = median(cli)
            try? FileManager.default.removeItem(at: url)
        }
        let title = "P3 cold: a new process opens the store and prints the first 50 of N items, median of \(rounds)"
        print("\n\(title)")
        print(String(repeating: "-", count: 96))
        print(
            Report.pad("N", 12) + Report.pad("CompanionKit ms", 18) + Report.pad("sqlite3 CLI ms", 18)
                + Report.pad("ratio", 10) + "CompanionKit inside main ms (open + read + decode + print)")
        for count in sizes {
            guard let kit = kitTimes[count], let cli = cliTimes[count], let inside = insideTimes[count] else {
                continue
            }
            print(
                Report.pad("\(count)", 12) + Report.pad(String(format: "%.2f", kit * 1000), 18)
                    + Report.pad(String(format: "%.2f", cli * 1000), 18)
                    + Report.pad(String(format: "%.2fx", kit / cli), 10)
                    + String(format: "%.2f", inside * 1000))
            Report.record(
                id: "p3cold", title: title, name: "CompanionKit inside main, N = \(count)", seconds: inside,
                operations: 1, baseline: cli, parameter: count, series: "CompanionKit inside main")
            Report.record(
                id: "p3cold", title: title, name: "sqlite3 CLI, N = \(count)", seconds: cli, operations: 1,
                baseline: cli,
                parameter: count, series: "sqlite3 CLI")
            Report.record(
                id: "p3cold", title: title, name: "CompanionKit, N = \(count)", seconds: kit, operations: 1,
                baseline: cli, parameter: count, series: "CompanionKit")
        }
        let floor = median(noop)
        Report.record(
            id: "p3cold", title: title, name: "a Swift process that only starts (floor)", seconds: floor, operations: 1,
            baseline: cliTimes[1_000_000] ?? floor)
        print(Report.pad("a Benchmarks process that starts and exits", 48) + String(format: "%.2f ms", floor * 1000))
    }

    /// Runs a process to its end with stdout captured; its wall time from launch to exit.
    static func run(_ executable: String, _ arguments: [String]) throws -> (seconds: Double, lines: [Substring]) {
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
        return (seconds, String(decoding: data, as: UTF8.self).split(separator: "\n"))
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
