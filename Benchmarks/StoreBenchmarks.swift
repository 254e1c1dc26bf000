import CompanionCore
import CompanionStore
import Foundation

/// P3, P4 and P7: the offline store's speed and memory, in release mode.
///
/// - P3: open the store and decode the first 50 of N cached items (N = 1k, 10k, 100k); must stay flat in N.
/// - P4: write 10k items in one transaction, CompanionKit against Python's sqlite3 writing the same rows.
/// - P7: peak RSS (VmHWM) of a child process listing and decoding 10k items, against the JSON payload size:
///   reading every row first (`items`) and decoding each row as it is read (`decodedItems`).
enum StoreBenchmarks {
    struct Item: Codable, Sendable {
        var id: String
        var title: String
        var status: String
        var createdAt: Int
        var text: String
    }

    static func run(_ which: String) async throws {
        if let path = ProcessInfo.processInfo.environment["STORE_BENCH_P7_CHILD"] {
            try await p7Child(path)
            return
        }
        switch which {
        case "p3": try await p3()
        case "p4": try await p4()
        case "p7": try await p7()
        default:
            try await p3()
            try await p4()
            try await p7()
        }
    }

    static func items(_ count: Int) throws -> [(id: String, body: Data)] {
        let encoder = JSONEncoder()
        return try (0..<count).map { index in
            let item = Item(
                id: String(format: "%032x", index), title: "Session \(index)", status: index % 3 == 0 ? "idle" : "done",
                createdAt: 1_795_950_000 + index,
                text: String(repeating: "lorem ipsum dolor sit amet ", count: 14))
            return (item.id, try encoder.encode(item))
        }
    }

    static func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "store-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let scope = AccountKey(serverKey: "bench", userID: "local")

    static func fill(_ url: URL, count: Int) async throws {
        let store = try OfflineStore(scope: scope, location: .directory(url))
        let page = ListPage(items: try items(count), nextCursor: nil)
        _ = try await store.write { transaction throws(StoreError) in
            try transaction.storePage(page, list: "sessions", replacing: true)
        }
    }

    static func p3(rounds: Int = 7) async throws {
        var rows: [(String, Double, Int)] = []
        var baseline = 0.0
        for count in [1_000, 10_000, 100_000] {
            let url = try folder("p3")
            defer { try? FileManager.default.removeItem(at: url) }
            try await fill(url, count: count)
            var samples: [Double] = []
            for _ in 0..<rounds {
                samples.append(
                    try await time {
                        let store = try OfflineStore(scope: scope, location: .directory(url))
                        let first = try await store.read { transaction throws(StoreError) in
                            try transaction.items("sessions", limit: 50)
                        }
                        let decoder = JSONDecoder()
                        let decoded = try first.map { try decoder.decode(Item.self, from: $0.body) }
                        guard decoded.count == 50 else { throw BenchmarkError("read \(decoded.count) items, not 50") }
                    })
            }
            let value = median(samples)
            if baseline == 0 { baseline = value }
            rows.append(("open + first 50 of \(count)", value, 1))
        }
        Report.table(
            id: "p3", title: "P3: open the store and decode the first 50 items, median of \(rounds)", rows: rows,
            baseline: baseline)
    }

    static func p4(rounds: Int = 5) async throws {
        let rows = try items(10_000)
        let work = try folder("p4")
        defer { try? FileManager.default.removeItem(at: work) }
        // The same rows for Python, one JSON line each: [id, body].
        var lines = Data()
        for row in rows {
            lines.append(
                try JSONSerialization.data(withJSONObject: [row.id, String(decoding: row.body, as: UTF8.self)]))
            lines.append(0x0A)
        }
        let rowsFile = work.appendingPathComponent("rows.jsonl")
        try lines.write(to: rowsFile)
        let script = work.appendingPathComponent("p4.py")
        try Data(pythonScript.utf8).write(to: script)
        var kit: [Double] = []
        var python: [Double] = []
        for round in 0..<rounds {
            let url = work.appendingPathComponent("kit-\(round)")
            let store = try OfflineStore(scope: scope, location: .directory(url))
            let page = ListPage(items: rows, nextCursor: nil)
            kit.append(
                try await time {
                    _ = try await store.write { transaction throws(StoreError) in
                        try transaction.storePage(page, list: "sessions", replacing: true)
                    }
                })
            python.append(
                try runPython(
                    script: script, rows: rowsFile, database: work.appendingPathComponent("py-\(round).sqlite")))
        }
        let baseline = median(python)
        Report.table(
            id: "p4",
            title:
                "P4: write 10,000 items (\(rows.reduce(0) { $0 + $1.body.count } / 1024) KiB) in one transaction, median of \(rounds)",
            rows: [
                ("Python sqlite3 (same rows, same schema)", baseline, 10_000),
                ("CompanionKit store", median(kit), 10_000),
            ],
            baseline: baseline)
    }

    static let pythonScript = """
        import json, sqlite3, sys, time
        rows = [json.loads(line) for line in open(sys.argv[1])]
        db = sqlite3.connect(sys.argv[2], isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL"); db.execute("PRAGMA foreign_keys=ON")
        db.executescript('''
        CREATE TABLE lists(list_key TEXT PRIMARY KEY, next_cursor TEXT, complete INTEGER NOT NULL DEFAULT 0,
            page_count INTEGER NOT NULL DEFAULT 0, revision TEXT, fetched_at REAL NOT NULL, left_at REAL);
        CREATE TABLE list_items(list_key TEXT NOT NULL REFERENCES lists(list_key) ON DELETE CASCADE,
            position INTEGER NOT NULL, item_id TEXT NOT NULL, page INTEGER NOT NULL, body BLOB NOT NULL,
            PRIMARY KEY(list_key, item_id));
        CREATE UNIQUE INDEX list_items_in_order ON list_items(list_key, position);
        ''')
        start = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute("DELETE FROM lists WHERE list_key = ?", ("sessions",))
        db.execute("INSERT INTO lists(list_key, fetched_at) VALUES (?, ?)", ("sessions", time.time()))
        db.executemany("INSERT OR IGNORE INTO list_items(list_key, position, item_id, page, body) VALUES (?, ?, ?, 0, ?)",
                       (("sessions", i, r[0], r[1].encode()) for i, r in enumerate(rows)))
        db.execute("UPDATE lists SET complete = 1, page_count = 1 WHERE list_key = ?", ("sessions",))
        db.execute("COMMIT")
        print(time.perf_counter() - start)
        """

    static func runPython(script: URL, rows: URL, database: URL) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, rows.path, database.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let seconds = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchmarkError("python3 failed with status \(process.terminationStatus)") }
        return seconds
    }

    static func p7() async throws {
        let url = try folder("p7")
        defer { try? FileManager.default.removeItem(at: url) }
        try await fill(url, count: 10_000)
        let payload = try JSONSerialization.data(
            withJSONObject: [
                "object": "list", "data": try items(10_000).map { try JSONSerialization.jsonObject(with: $0.body) },
            ])
        /// One child per way of listing, so each starts from a fresh heap: VmHWM after opening, after the
        /// rows are read, after they are decoded, and the count decoded.
        func child(_ mode: String) throws -> [Int] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["p7"]
            process.environment = ProcessInfo.processInfo.environment.merging([
                "STORE_BENCH_P7_CHILD": url.path, "STORE_BENCH_P7_MODE": mode,
            ]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let figures = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            guard process.terminationStatus == 0, figures.count == 4, figures[3] == 10_000 else {
                throw BenchmarkError("the P7 child (\(mode)) failed")
            }
            return figures
        }
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        let times = { (bytes: Int) in String(format: "  (%.2fx the payload)", Double(bytes) / Double(payload.count)) }
        let title = "P7: peak RSS growth listing and decoding 10,000 stored items, against their JSON payload"
        let payloadMiB = Double(payload.count) / 1_048_576
        print("\nP7: peak RSS of a process listing and decoding 10,000 stored items")
        print(String(repeating: "-", count: 92))
        print(Report.pad("JSON payload of the same 10,000 items", 56) + mib(payload.count))
        Report.record(
            id: "p7", title: title, name: "JSON payload of the items", seconds: payloadMiB, operations: 1,
            baseline: payloadMiB, unit: "MiB")
        for (mode, name) in [
            ("all", "items(): every row read, then decoded"),
            ("decoded", "decodedItems(): decoded as each row is read"),
        ] {
            let figures = try child(mode)
            print(name)
            print(Report.pad("  VmHWM after opening the store", 56) + mib(figures[0]))
            print(
                Report.pad("  growth once the rows are read", 56) + mib(figures[1] - figures[0])
                    + times(figures[1] - figures[0]))
            print(
                Report.pad("  growth once they are decoded too (P7)", 56) + mib(figures[2] - figures[0])
                    + times(figures[2] - figures[0]))
            Report.record(
                id: "p7", title: title, name: "peak RSS growth, \(name)",
                seconds: Double(figures[2] - figures[0]) / 1_048_576, operations: 1, baseline: payloadMiB, unit: "MiB")
        }
    }

    static func p7Child(_ path: String) async throws {
        let store = try OfflineStore(scope: scope, location: .directory(URL(fileURLWithPath: path)))
        _ = try await store.read { transaction throws(StoreError) in try transaction.listState("sessions") }
        let before = peakRSS()
        if ProcessInfo.processInfo.environment["STORE_BENCH_P7_MODE"] == "decoded" {
            let decoded = try await store.read { transaction throws(StoreError) in
                try transaction.decodedItems("sessions", as: Item.self)
            }
            let after = peakRSS()
            print("\(before) \(after) \(after) \(decoded.count)")
        } else {
            let all = try await store.read { transaction throws(StoreError) in try transaction.items("sessions") }
            let afterRead = peakRSS()
            let decoder = JSONDecoder()
            let decoded = try all.map { try decoder.decode(Item.self, from: $0.body) }
            let after = peakRSS()
            print("\(before) \(afterRead) \(after) \(decoded.count)")
        }
    }

    /// VmHWM from /proc/self/status, in bytes.
    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let number = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return number * 1024
        }
        return 0
    }
}
