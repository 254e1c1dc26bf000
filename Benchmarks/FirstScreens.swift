import Foundation

/// P9: each app's first screen from a cold process, side by side with the `sqlite3` CLI reading the same rows.
///
/// The measured process is `FirstScreen` (Benchmarks/FirstScreen): it links the four app cores and the kit, as an
/// app links its core, and produces the first screen through the core's own screen model with the network down.
/// Each app's folder is seeded once from its server (`FirstScreen seed`); then the contenders take turns within
/// every round: `FirstScreen read <app>`, `sqlite3` printing the same rows from the same file (checked equal
/// once), and the floors (`FirstScreen --start-only`, `sqlite3 -version`). Mainworthy keeps nothing on disk: its
/// row is the queue read from the server with the stored session, against one curl process reading the same two
/// routes, and the time to the screen that says the network is down.
enum FirstScreens {
    /// An app's first screen and its peer.
    struct Contender {
        let app: String
        let title: String
        /// The peer: an executable and its arguments.
        let peer: (String, [String])
        let peerName: String
        /// Whether the peer prints exactly our rows (checked once).
        let compareRows: Bool
    }

    /// The `FirstScreen` executable: `BENCH_FIRST_SCREEN` (`scripts/bench p9` builds it), else next to this binary.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["BENCH_FIRST_SCREEN"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("FirstScreen").path
    }

    static func run(rounds: Int = 21) async throws {
        let sqlite = try ColdStart.sqlitePath()
        let curl = try executable("curl")
        let reader = binary
        guard FileManager.default.isExecutableFile(atPath: reader) else {
            throw BenchmarkError("p9: \(reader) is missing; build it with `scripts/bench p9`")
        }
        let root = try StoreBenchmarks.folder("p9")
        defer { try? FileManager.default.removeItem(at: root) }
        func folder(_ app: String) -> URL { root.appendingPathComponent(app, isDirectory: true) }
        // Seeds: each app's store filled as the app fills it, from its server (Mainworthy: the session only).
        for app in ["certain", "omnigent", "promptugal", "mainworthy"] {
            _ = try ColdStart.run(reader, ["seed", app, folder(app).path])
        }
        func sql(_ app: String, _ file: String, _ query: String) -> (String, [String]) {
            (sqlite, ["-readonly", "-separator", " ", file, query])
        }
        let certain = try sqliteQuery(folder("certain"), app: "certain")
        let omnigent = try sqliteQuery(folder("omnigent"), app: "omnigent")
        let promptugal = try sqliteQuery(folder("promptugal"), app: "promptugal")
        let contenders = [
            Contender(
                app: "certain", title: "Certain overview (stored snapshot: accounts, latest 5)",
                peer: sql("certain", certain.file, certain.query), peerName: "sqlite3 CLI, the same rows",
                compareRows: true),
            Contender(
                app: "omnigent", title: "Omnigent sessions list (stored first page)",
                peer: sql("omnigent", omnigent.file, omnigent.query), peerName: "sqlite3 CLI, the same rows",
                compareRows: true),
            Contender(
                app: "promptugal", title: "PrompTugal schedule (stored picks)",
                peer: sql("promptugal", promptugal.file, promptugal.query), peerName: "sqlite3 CLI, the same rows",
                compareRows: true),
            Contender(
                app: "mainworthy", title: "Mainworthy queue (memory only: read from the server, network up)",
                peer: (curl, ["-K", folder("mainworthy").appendingPathComponent("curl-queue.conf").path]),
                peerName: "curl CLI, the same two routes", compareRows: false),
        ]
        for contender in contenders where contender.compareRows {
            let ours = try ColdStart.run(reader, ["read", contender.app, folder(contender.app).path]).lines
                .filter { !$0.hasPrefix("#") }
            let theirs = try ColdStart.run(contender.peer.0, contender.peer.1).lines
            guard ours == theirs, !ours.isEmpty else {
                throw BenchmarkError(
                    "p9: \(contender.app): the screen showed \(ours.count) rows, sqlite3 printed \(theirs.count), "
                        + "or they differ")
            }
        }
        var ours: [String: ColdStart.Times] = [:]
        var peers: [String: [Double]] = [:]
        var offline = ColdStart.Times()
        var floors: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for contender in contenders {
                ours[contender.app, default: ColdStart.Times()].add(
                    try ColdStart.run(reader, ["read", contender.app, folder(contender.app).path]))
                peers[contender.app, default: []].append(try ColdStart.run(contender.peer.0, contender.peer.1).seconds)
            }
            offline.add(try ColdStart.run(reader, ["read", "mainworthy-offline", folder("mainworthy").path]))
            floors["reader", default: []].append(try ColdStart.run(reader, ["--start-only"]).seconds)
            floors["sqlite3", default: []].append(try ColdStart.run(sqlite, ["-version"]).seconds)
            floors["curl", default: []].append(try ColdStart.run(curl, ["--version"]).seconds)
        }
        let title = "P9: each app's first screen from a cold process, network down, median of \(rounds)"
        print("\n\(title)")
        print(String(repeating: "-", count: 118))
        print(
            Report.pad("first screen", 66) + Report.pad("ours ms", 10) + Report.pad("peer ms", 10)
                + Report.pad("ratio", 8) + "inside main ms")
        for contender in contenders {
            guard let times = ours[contender.app], let peer = peers[contender.app].map(median) else { continue }
            let wall = median(times.wall)
            print(
                Report.pad(contender.title, 66) + Report.pad(String(format: "%.2f", wall * 1000), 10)
                    + Report.pad(String(format: "%.2f", peer * 1000), 10)
                    + Report.pad(String(format: "%.2fx", wall / peer), 8)
                    + String(format: "%.2f", median(times.inside) * 1000))
            Report.record(
                id: "p9", title: title, name: contender.title, seconds: wall, operations: 1, baseline: peer)
            Report.record(
                id: "p9", title: title, name: "  \(contender.peerName) (\(contender.app))", seconds: peer,
                operations: 1, baseline: peer)
            Report.record(
                id: "p9", title: title, name: "  inside main (\(contender.app))", seconds: median(times.inside),
                operations: 1, baseline: peer)
        }
        let sqliteFloor = median(floors["sqlite3"] ?? [])
        let offlineWall = median(offline.wall)
        print(
            String(
                format: "Mainworthy queue with the network down (its failure screen): %.2f ms (inside main %.2f ms)",
                offlineWall * 1000, median(offline.inside) * 1000))
        Report.record(
            id: "p9", title: title, name: "Mainworthy queue, network down (the screen saying so)",
            seconds: offlineWall, operations: 1, baseline: sqliteFloor)
        try instructions(contenders, reader: reader, sqlite: sqlite, folder: folder)
        for (key, name) in [
            ("reader", "floor: FirstScreen that only starts (links the kit and the cores)"),
            ("sqlite3", "floor: sqlite3 -version"), ("curl", "floor: curl --version"),
        ] {
            let floor = median(floors[key] ?? [])
            print(Report.pad(name, 76) + String(format: "%.2f ms", floor * 1000))
            Report.record(id: "p9", title: title, name: name, seconds: floor, operations: 1, baseline: sqliteFloor)
        }
    }

    /// The same first screens in instructions (callgrind: the same on a busy machine), each process whole, from
    /// its loading to its exit, against `sqlite3` reading the same rows; and the floors.
    static func instructions(
        _ contenders: [Contender], reader: String, sqlite: String, folder: (String) -> URL
    ) throws {
        let title = "P9 in instructions (callgrind): each process whole, from its loading to its exit"
        print("\n\(title)")
        print(String(repeating: "-", count: 96))
        print(Report.pad("process", 66) + Report.pad("instructions", 16) + "ratio vs sqlite3")
        func row(_ name: String, _ count: Int, _ baseline: Int) {
            print(
                Report.pad(name, 66) + Report.pad(String(format: "%.2fM", Double(count) / 1e6), 16)
                    + String(format: "%.2fx", Double(count) / Double(baseline)))
            Report.record(
                id: "p9i", title: title, name: name, seconds: Double(count) / 1e6, operations: 1,
                baseline: Double(baseline) / 1e6, unit: "M instr")
        }
        let sqliteFloor = try P1Instructions.instructions(of: sqlite, ["-version"])
        for contender in contenders where contender.compareRows {
            let ours = try P1Instructions.instructions(of: reader, ["read", contender.app, folder(contender.app).path])
            let peer = try P1Instructions.instructions(of: contender.peer.0, contender.peer.1)
            row(contender.title, ours, peer)
            row("  sqlite3 CLI, the same rows (\(contender.app))", peer, peer)
        }
        row(
            "floor: FirstScreen that only starts", try P1Instructions.instructions(of: reader, ["--start-only"]),
            sqliteFloor)
        row("floor: sqlite3 -version", sqliteFloor, sqliteFloor)
    }

    /// The `sqlite3` query reading what `app`'s first screen shows, from the seed's store file.
    static func sqliteQuery(_ folder: URL, app: String) throws -> (file: String, query: String) {
        // The seed leaves the store file's name and the query in `sqlite.json` next to it.
        let data = try Data(contentsOf: folder.appendingPathComponent("sqlite.json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: String],
            let file = object["file"], let query = object["query"]
        else { throw BenchmarkError("p9: \(app): the seed left no sqlite3 query") }
        return (file, query)
    }

    /// An executable's own path from `PATH`, so its time does not include an `env` in front of it.
    static func executable(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)")
        {
            return "\(folder)/\(name)"
        }
        throw BenchmarkError("p9: \(name) is not on PATH")
    }
}
