import CompanionCore
import CompanionVault
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// P5: pull and decrypt a vault of about 1,000 files and 50 MB from a local SG/Send server, CompanionKit against
/// `sgit clone` of the same vault in the same run (interleaved, median of the rounds), plus decrypt throughput.
///
///     Benchmarks p5 --server URL --key KEY-STRING --sgit PATH [--rounds N]
///     Benchmarks p5 --steps N     (only the step-by-step breakdown of the default pull, `VaultSteps`)
///     Benchmarks p5 --phases N    (only the default pull, then the pull and the read phase alone)
///
/// The server, the vault and the CLI come from `Servers/sgit` (`install.sh`, `start.sh`, `make-bench-vault.sh`);
/// `--server`, `--key` and `--sgit` default to `SGIT_SERVER_URL`, `SGIT_BENCH_KEY` and `SGIT_CLI`.
enum VaultBenchmark {
    /// The ways CompanionKit pulls and reads the whole vault.
    enum KitMode: String, CaseIterable {
        /// The default: `pull(eachFile:)` through the batch route.
        case streaming
        /// `pull(eachFile:)` with one GET per object (several in flight).
        case perObject
        /// `pull()`, then `read` every file from the cache.
        case pullThenRead

        /// Pulls into the cold `cache` and reads every file; returns the file count and the plaintext bytes.
        func pullAndRead(server: URL, key: VaultKey, cache: URL) async throws -> (files: Int, bytes: Int) {
            let source =
                self == .perObject
                ? HTTPVaultSource(server: server, batchSize: 1, policy: .allowingInsecureLoopback)
                : HTTPVaultSource(server: server, policy: .allowingInsecureLoopback)
            let vault = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
            if self == .pullThenRead {
                try await vault.pull()
                var bytes = 0
                let files = try await vault.files()
                for file in files { bytes += try await vault.read(file).count }
                return (files.count, bytes)
            }
            let totals = Locked((files: 0, bytes: 0))
            try await vault.pull { _, data in
                totals.withLock {
                    $0.files += 1
                    $0.bytes += data.count
                }
            }
            return totals.withLock { $0 }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs P5 with `arguments` (the words after `p5`).
    static func run(arguments: [String]) async throws {
        var options: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            options[arguments[index]] = arguments[index + 1]
            index += 2
        }
        let environment = ProcessInfo.processInfo.environment
        guard let serverText = options["--server"] ?? environment["SGIT_SERVER_URL"],
            let server = URL(string: serverText),
            let keyString = options["--key"] ?? environment["SGIT_BENCH_KEY"],
            let sgit = options["--sgit"] ?? environment["SGIT_CLI"]
        else {
            throw Failure(
                description:
                    "usage: Benchmarks p5 --server URL --key KEY-STRING --sgit PATH [--rounds N] (or SGIT_SERVER_URL, "
                    + "SGIT_BENCH_KEY, SGIT_CLI from Servers/sgit/start.sh and make-bench-vault.sh)")
        }
        let rounds = max(1, Int(options["--rounds"] ?? "") ?? 3)
        let key = try VaultKey(importing: keyString)
        // The server's process group (its pid file names the leader), for its CPU time during the pull.
        let serverGroup = environment["SGIT_SERVER_PIDFILE"].flatMap {
            try? String(contentsOfFile: $0, encoding: .utf8)
        }
        .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if let count = options["--phases"].flatMap(Int.init) {
            try await phases(server: server, key: key, serverGroup: serverGroup, rounds: count)
            return
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("p5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        if let count = options["--steps"].flatMap(Int.init) {
            try await VaultSteps.run(
                server: server, key: key, serverGroup: serverGroup, rounds: count, scratch: scratch)
            return
        }

        var serverShares: [Double] = []
        var clientShares: [Double] = []
        var kitTimes: [Double] = []
        var batchTimes: [Double] = []
        var twoStepTimes: [Double] = []
        var cliTimes: [Double] = []
        var plainBytes = 0
        var fileCount = 0
        var lastCache = scratch
        for round in 0..<rounds {
            // CompanionKit, a cold cache each time, every file's bytes checked (content address, decryption, size
            // and content hash): by default (the batch route, files handed over as their blobs arrive); with a
            // GET per object; and the two-step way (pull, then `read` each file from the cache).
            for mode in KitMode.allCases {
                let cache = scratch.appendingPathComponent("kit-\(round)-\(mode)")
                let serverCPU0 = serverGroup.map(ProcessCPU.group) ?? 0
                let clientCPU0 = ProcessCPU.current()
                let started = ContinuousClock.now
                let (files, bytes) = try await mode.pullAndRead(server: server, key: key, cache: cache)
                let seconds = (ContinuousClock.now - started).seconds
                switch mode {
                case .perObject: kitTimes.append(seconds)
                case .pullThenRead: twoStepTimes.append(seconds)
                case .streaming:
                    batchTimes.append(seconds)
                    serverShares.append(((serverGroup.map(ProcessCPU.group) ?? 0) - serverCPU0) / seconds)
                    clientShares.append((ProcessCPU.current() - clientCPU0) / seconds)
                    lastCache = cache
                }
                plainBytes = bytes
                fileCount = files
            }

            // sgit clone of the same vault: fetch, decrypt and write the working copy.
            let home = scratch.appendingPathComponent("home-\(round)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sgit)
            process.arguments = [
                "--base-url", server.absoluteString, "clone", keyString,
                scratch.appendingPathComponent("cli-\(round)").path,
            ]
            process.environment = environment.merging(["HOME": home.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let cliStarted = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            cliTimes.append((ContinuousClock.now - cliStarted).seconds)
            guard process.terminationStatus == 0 else { throw Failure(description: "sgit clone failed") }
        }

        // The floor: the same objects' stored bytes fetched by curl, 8 transfers at once, nothing decrypted.
        let cached = try SGitVault(
            key: key, source: HTTPVaultSource(server: server, policy: .allowingInsecureLoopback), cache: lastCache,
            log: VaultTrafficLog())
        let names = cached.cachedObjectIDs().sorted()
        var floorTimes: [Double] = []
        let config = scratch.appendingPathComponent("curl-floor.txt")
        let readBase = server.absoluteString + "/api/vault/read/" + key.vaultID + "/bare%2Fdata%2F"
        try names.map { "url = \"\(readBase)\($0)\"\noutput = \"/dev/null\"\n" }.joined()
            .write(to: config, atomically: true, encoding: .utf8)
        for _ in 0..<rounds {
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            curl.arguments = [
                "curl", "-s", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", "8", "-K", config.path,
            ]
            let started = ContinuousClock.now
            try curl.run()
            curl.waitUntilExit()
            guard curl.terminationStatus == 0 else { throw Failure(description: "curl floor run failed") }
            floorTimes.append((ContinuousClock.now - started).seconds)
        }

        // The server's own floor for the route CompanionKit uses: the same batches (same size, same number in
        // flight), fetched by curl, nothing decoded, verified or decrypted.
        var batchFloorTimes: [Double] = []
        let batchConfig = try batchFloorConfig(names: names, server: server, key: key, scratch: scratch)
        for _ in 0..<rounds { batchFloorTimes.append(try batchFloor(batchConfig)) }

        // Decrypt throughput alone: every cached object, in memory, AES-256-GCM (and zlib where used).
        let stored = try names.map { (id) throws -> Data in
            guard let object = cached.cachedObject(id) else {
                throw Failure(description: "cached object \(id) unreadable")
            }
            return object
        }
        var decryptTimes: [Double] = []
        var decrypted = 0
        for _ in 0..<max(3, rounds) {
            let started = ContinuousClock.now
            decrypted = 0
            for object in stored { decrypted += try VaultFormat.decrypt(object, key: key).count }
            decryptTimes.append((ContinuousClock.now - started).seconds)
        }

        let kit = median(kitTimes)
        let kitBatch = median(batchTimes)
        let twoStep = median(twoStepTimes)
        let cli = median(cliTimes)
        let megabytes = Double(plainBytes) / 1_048_576
        let decryptSeconds = median(decryptTimes)
        let floor = median(floorTimes)
        let batchFloor = median(batchFloorTimes)
        let title =
            "P5: pull + decrypt \(fileCount) files, \(String(format: "%.1f", megabytes)) MB, median of \(rounds) rounds"
        Report.table(
            id: "p5", title: title,
            rows: [
                ("CompanionKit, default (batch route)", kitBatch, fileCount),
                ("CompanionKit, pull then read file by file", twoStep, fileCount),
                ("CompanionKit, parallel GET per object", kit, fileCount),
                ("sgit clone (sgit-ai CLI)", cli, fileCount),
                ("floor: curl, 8 parallel GETs, no decrypt", floor, fileCount),
                ("floor: curl, batch route, \(floorInFlight) in flight, no decrypt", batchFloor, fileCount),
            ], baseline: cli, baselineName: "sgit clone")
        let lines = [
            String(
                format: "  speed vs sgit clone: default %.2fx, GET per object %.2fx (above 1 = faster)", cli / kitBatch,
                cli / kit),
            String(
                format: "  CompanionKit default / floor: %.2fx (per-object GETs), %.2fx (batch route, %d in flight)",
                kitBatch / floor, kitBatch / batchFloor, floorInFlight),
            String(
                format: "  best possible on this route: sgit clone / batch floor = %.2fx faster than sgit clone",
                cli / batchFloor),
            String(
                format: "  decrypt only (%d objects)      %8.3f s  %7.1f MB/s", stored.count, decryptSeconds,
                Double(decrypted) / 1_048_576 / decryptSeconds),
        ]
        var bound = [
            String(
                format:
                    "  during the default pull: server CPU %.0f%% of one core, CompanionKit CPU %.0f%% (the server runs one worker)",
                median(serverShares) * 100, median(clientShares) * 100)
        ]
        if serverGroup == nil { bound = ["  server CPU not measured: SGIT_SERVER_PIDFILE is unset"] }
        FileHandle.standardOutput.write(Data(((lines + bound).joined(separator: "\n") + "\n").utf8))
        Report.record(
            id: "p5b", title: "P5: CPU during the default pull, share of one core (what bounds it)",
            name: "SG/Send server process group", seconds: median(serverShares), operations: 1, baseline: 1,
            unit: "cores")
        Report.record(
            id: "p5b", title: "P5: CPU during the default pull, share of one core (what bounds it)",
            name: "CompanionKit process", seconds: median(clientShares), operations: 1, baseline: 1, unit: "cores")
        // Where the default's time goes, step by step, against the batch floor in the same rounds.
        try await VaultSteps.run(server: server, key: key, serverGroup: serverGroup, rounds: rounds, scratch: scratch)
        if let sgit = environment["SGIT_CLI"] {
            do {
                try await incremental(server: server, sgit: sgit, files: scratch.appendingPathComponent("cli-0"))
            } catch {
                print("  incremental pull not measured: \(error)")
            }
        }
    }

    /// The incremental pull: a vault of its own (the bench vault's files, pushed with the sgit CLI and a
    /// vault key), pulled in full, then one commit adding one file, pulled again: objects fetched and time,
    /// against `sgit pull` of the same commit in a clone.
    static func incremental(server: URL, sgit: String, files: URL) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("p5-inc-\(UUID().uuidString)")
        let home = work.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        func cli(_ arguments: [String], in folder: URL) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sgit)
            process.arguments = ["--base-url", server.absoluteString, "--token", "localtest"] + arguments
            process.currentDirectoryURL = folder
            process.environment = ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw Failure(description: "sgit \(arguments[0]) failed") }
        }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let phrase = String((0..<24).map { _ in alphabet.randomElement() ?? "a" })
        let vaultID = "inc" + String((0..<7).map { _ in alphabet.randomElement() ?? "a" })
        let keyString = "sgit_private_vault_\(phrase):\(vaultID)"
        try cli(["create", "inc", "--vault-key", keyString], in: work)
        let folder = work.appendingPathComponent("inc")
        for name in try FileManager.default.contentsOfDirectory(atPath: files.path) where !name.hasPrefix(".") {
            try FileManager.default.copyItem(
                at: files.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try cli(["commit", "-m", "bench files"], in: folder)
        try cli(["push"], in: folder)
        try cli(["clone", keyString, work.appendingPathComponent("clone").path], in: work)

        let key = try VaultKey(importing: keyString)
        let cache = work.appendingPathComponent("cache")
        let vault = try SGitVault(
            key: key, source: HTTPVaultSource(server: server, policy: .allowingInsecureLoopback), cache: cache,
            log: VaultTrafficLog())
        let full = try await time { _ = try await vault.pull() }
        let before = vault.cachedObjectIDs()

        try Data("one new file\n".utf8).write(to: folder.appendingPathComponent("new-file.txt"))
        try cli(["commit", "-m", "one new file"], in: folder)
        try cli(["push"], in: folder)
        let again = try await time { _ = try await vault.pull() }
        let after = vault.cachedObjectIDs()
        guard try await vault.read("new-file.txt") == Data("one new file\n".utf8) else {
            throw Failure(description: "the incremental pull did not bring the new file")
        }
        let cliSeconds = try timeSync { try cli(["pull"], in: work.appendingPathComponent("clone")) }
        let fetched = after.subtracting(before).count
        let title = "P5 incremental: pull after one new commit (one new file) of a \(before.count)-object vault"
        Report.table(
            id: "p5i", title: title,
            rows: [
                ("sgit pull (sgit-ai CLI)", cliSeconds, 1),
                ("CompanionKit pull, \(fetched) objects fetched", again, fetched),
                ("CompanionKit full pull of the vault (for scale)", full, before.count),
            ], baseline: cliSeconds, baselineName: "sgit pull")
    }

    /// How many batch requests the floor keeps in flight (as the default pull does).
    static let floorInFlight = 4

    /// A curl config fetching `names` through the batch route in CompanionKit's batches, answers discarded.
    static func batchFloorConfig(names: [String], server: URL, key: VaultKey, scratch: URL) throws -> URL {
        let batchSize = HTTPVaultSource(server: server, policy: .allowingInsecureLoopback).batchSize
        let batchConfig = scratch.appendingPathComponent("curl-batch-floor.txt")
        var entries: [String] = []
        var start = 0
        while start < names.count {
            let operations = names[start..<min(start + batchSize, names.count)].map {
                #"{"op":"read","file_id":"bare/data/\#($0)"}"#
            }
            let body = scratch.appendingPathComponent("batch-\(start).json")
            try Data(#"{"operations":[\#(operations.joined(separator: ","))]}"#.utf8).write(to: body)
            entries.append(
                "url = \"\(server.absoluteString)/api/vault/batch/\(key.vaultID)\"\ndata-binary = \"@\(body.path)\"\n"
                    + "header = \"Content-Type: application/json\"\noutput = \"/dev/null\"\n")
            start += batchSize
        }
        try entries.joined(separator: "next\n").write(to: batchConfig, atomically: true, encoding: .utf8)
        return batchConfig
    }

    /// One run of the batch floor (`floorInFlight` requests at once); its wall time in seconds.
    static func batchFloor(_ config: URL) throws -> Double {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = [
            "curl", "-s", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", "\(floorInFlight)", "-K",
            config.path,
        ]
        let started = ContinuousClock.now
        try curl.run()
        curl.waitUntilExit()
        guard curl.terminationStatus == 0 else { throw Failure(description: "curl batch floor run failed") }
        return (ContinuousClock.now - started).seconds
    }

    /// `--phases N`: only CompanionKit's default pull, N times, with the time and CPU of each phase (for profiling).
    static func phases(server: URL, key: VaultKey, serverGroup: Int32?, rounds: Int) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("p5-phases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for round in 0..<rounds {
            let cpu0 = ProcessCPU.current()
            let server0 = serverGroup.map(ProcessCPU.group) ?? 0
            let started = ContinuousClock.now
            let (files, bytes) = try await KitMode.streaming.pullAndRead(
                server: server, key: key, cache: scratch.appendingPathComponent("stream-\(round)"))
            let streamed = ContinuousClock.now
            let cpu1 = ProcessCPU.current()
            let server1 = serverGroup.map(ProcessCPU.group) ?? 0
            let vault = try SGitVault(
                key: key, source: HTTPVaultSource(server: server, policy: .allowingInsecureLoopback),
                cache: scratch.appendingPathComponent("cache-\(round)"), log: VaultTrafficLog())
            try await vault.pull()
            let pulled = ContinuousClock.now
            let cpu2 = ProcessCPU.current()
            let server2 = serverGroup.map(ProcessCPU.group) ?? 0
            var readBytes = 0
            for file in try await vault.files() { readBytes += try await vault.read(file).count }
            let read = ContinuousClock.now
            let cpu3 = ProcessCPU.current()
            // The batch floor on the same objects, with the server's CPU time for it: what the server alone costs.
            let config = try batchFloorConfig(
                names: vault.cachedObjectIDs().sorted(), server: server, key: key, scratch: scratch)
            let server3 = serverGroup.map(ProcessCPU.group) ?? 0
            let floor = try batchFloor(config)
            let server4 = serverGroup.map(ProcessCPU.group) ?? 0
            print(
                String(
                    format:
                        "  round %d: default %.3f s (cpu %.3f s, server cpu %.3f s, %d files, %d B); "
                        + "pull %.3f s (cpu %.3f s, server cpu %.3f s), then read %.3f s (cpu %.3f s, %d B); "
                        + "batch floor (curl) %.3f s (server cpu %.3f s)",
                    round, (streamed - started).seconds, cpu1 - cpu0, server1 - server0, files, bytes,
                    (pulled - streamed).seconds, cpu2 - cpu1, server2 - server1, (read - pulled).seconds, cpu3 - cpu2,
                    readBytes, floor, server4 - server3))
        }
    }

    static func timeSync(_ body: () throws -> Void) throws -> Double {
        let started = ContinuousClock.now
        try body()
        return (ContinuousClock.now - started).seconds
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[sorted.count / 2]
    }
}
