import CompanionCore
import CompanionVault
import Foundation

/// P5: pull and decrypt a vault of about 1,000 files and 50 MB from a local SG/Send server, CompanionKit against
/// `sgit clone` of the same vault in the same run (interleaved, median of the rounds), plus decrypt throughput.
///
///     Benchmarks p5 --server URL --key KEY-STRING --sgit PATH [--rounds N]
///
/// The server, the vault and the CLI come from `Servers/sgit` (`install.sh`, `start.sh`, `make-bench-vault.sh`);
/// `--server`, `--key` and `--sgit` default to `SGIT_SERVER_URL`, `SGIT_BENCH_KEY` and `SGIT_CLI`.
enum VaultBenchmark {
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
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("p5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        var kitTimes: [Double] = []
        var batchTimes: [Double] = []
        var cliTimes: [Double] = []
        var plainBytes = 0
        var fileCount = 0
        var lastCache = scratch
        for round in 0..<rounds {
            // CompanionKit: a cold cache, pull everything, then read (verify, decrypt, check) every file; once by
            // default (the batch route, several batches in flight), once with parallel GETs, one per object.
            for batchSize in [1, 0] {
                let cache = scratch.appendingPathComponent("kit-\(round)-\(batchSize)")
                let started = ContinuousClock.now
                let source =
                    batchSize == 0 ? HTTPVaultSource(server: server) : HTTPVaultSource(server: server, batchSize: 1)
                let vault = try SGitVault(key: key, source: source, cache: cache, log: VaultTrafficLog())
                try await vault.pull()
                var bytes = 0
                let files = try await vault.files()
                for file in files { bytes += try await vault.read(file).count }
                let seconds = (ContinuousClock.now - started).seconds
                if batchSize == 1 { kitTimes.append(seconds) } else { batchTimes.append(seconds) }
                plainBytes = bytes
                fileCount = files.count
                lastCache = cache
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
        let objectsFolder = lastCache.appendingPathComponent("objects")
        let names = try FileManager.default.contentsOfDirectory(atPath: objectsFolder.path).filter {
            $0.hasPrefix("obj-")
        }
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

        // Decrypt throughput alone: every cached object, in memory, AES-256-GCM (and zlib where used).
        let stored = try names.map { try Data(contentsOf: objectsFolder.appendingPathComponent($0)) }
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
        let cli = median(cliTimes)
        let megabytes = Double(plainBytes) / 1_048_576
        let decryptSeconds = median(decryptTimes)
        let floor = median(floorTimes)
        let title =
            "P5: pull + decrypt \(fileCount) files, \(String(format: "%.1f", megabytes)) MB, median of \(rounds) rounds"
        Report.table(
            id: "p5", title: title,
            rows: [
                ("CompanionKit, default (batch route)", kitBatch, fileCount),
                ("CompanionKit, parallel GET per object", kit, fileCount),
                ("sgit clone (sgit-ai CLI)", cli, fileCount),
                ("floor: curl, 8 parallel GETs, no decrypt", floor, fileCount),
            ], baseline: cli, baselineName: "sgit clone")
        let lines = [
            String(
                format: "  speed vs sgit clone: default %.2fx, GET per object %.2fx (above 1 = faster)", cli / kitBatch,
                cli / kit),
            String(format: "  CompanionKit default / floor: %.2fx", kitBatch / floor),
            String(
                format: "  decrypt only (%d objects)      %8.3f s  %7.1f MB/s", stored.count, decryptSeconds,
                Double(decrypted) / 1_048_576 / decryptSeconds),
        ]
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[sorted.count / 2]
    }
}
