import CompanionCore
import CompanionHTTP
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// P1: 1,000 sequential GETs of a small JSON body from a loopback server, side by side: raw
/// URLSession, the `Client` over URLSession, the `Client` over libcurl, curl's CLI (one process,
/// keep-alive) and Python's httpx (one `Client`, keep-alive). Interleaved round by round so load on
/// the machine hits every contender alike. Then 8 concurrent clients, as throughput. The baseline is
/// curl, the floor: libcurl is what FoundationNetworking wraps.
enum P1 {
    static func run(url: URL, requests: Int = 1_000, rounds: Int = 5) async throws {
        let session = URLSession(configuration: .ephemeral)
        let base = url.deletingLastPathComponent()
        let path = "/" + url.lastPathComponent
        func client(_ transport: any Transport) -> Client {
            Client(
                baseURL: base,
                configuration: Client.Configuration(
                    transportPolicy: .allowingInsecureLoopback, journal: Journal(capacity: 4_096)),
                transport: transport)
        }
        let overURLSession = client(URLSessionTransport())
        #if os(Linux)
            let overCurl = client(CurlTransport())
            let curlTransport = CurlTransport()
        #else
            let overCurl = client(URLSessionTransport())
            let curlTransport = URLSessionTransport()
        #endif
        var samples: [String: [Double]] = [:]

        // Warm up every path once (connections, lazy initialisation).
        _ = try await session.data(for: URLRequest(url: url))
        _ = try await overURLSession.send(Request<Data>.raw(.get, path))
        _ = try await overCurl.send(Request<Data>.raw(.get, path))

        for _ in 0..<rounds {
            samples["raw", default: []].append(
                try await time {
                    for _ in 0..<requests { _ = try await session.data(for: URLRequest(url: url)) }
                })
            samples["kit-urlsession", default: []].append(
                try await time {
                    for _ in 0..<requests { _ = try await overURLSession.send(Request<JSONValue>.get(path)) }
                })
            samples["kit-curl", default: []].append(
                try await time {
                    for _ in 0..<requests { _ = try await overCurl.send(Request<JSONValue>.get(path)) }
                })
            samples["curl-transport", default: []].append(
                try await time {
                    for _ in 0..<requests {
                        let (_, body) = try await curlTransport.send(HTTPRequest(url: url))
                        _ = try await body.collect(upTo: 1 << 20)
                    }
                })
            samples["curl", default: []].append(try curlRun(url: url, requests: requests))
            if let seconds = try httpxRun(url: url, requests: requests) {
                samples["httpx", default: []].append(seconds)
            }
        }
        let floor = median(samples["curl"] ?? [])
        var rows: [(String, Double, Int)] = [
            ("raw URLSession data(for:)", median(samples["raw"] ?? []), requests),
            ("Client over URLSession (decoded JSON)", median(samples["kit-urlsession"] ?? []), requests),
            ("Client over libcurl (decoded JSON)", median(samples["kit-curl"] ?? []), requests),
            ("CurlTransport alone (breakdown)", median(samples["curl-transport"] ?? []), requests),
            ("curl CLI, one process, keep-alive", floor, requests),
        ]
        if let httpx = samples["httpx"] {
            rows.append(("Python httpx, one Client, keep-alive", median(httpx), requests))
        } else {
            rows.append(("Python httpx (not installed: BENCH_PYTHON unset)", .nan, requests))
        }
        Report.table(
            id: "p1",
            title: "P1: \(requests) sequential GETs of \(url.lastPathComponent), median of \(rounds) rounds",
            rows: rows, baseline: floor, baselineName: "curl CLI")
        // The Client's own cost: the same two medians, against the transport it runs over (goal <= 1.15x).
        let transport = median(samples["curl-transport"] ?? [])
        Report.table(
            id: "p1k",
            title: "P1: the Client's own cost, per request, against CurlTransport alone in the same run",
            rows: [
                ("Client over libcurl (decoded JSON)", median(samples["kit-curl"] ?? []), requests),
                ("CurlTransport alone", transport, requests),
            ], baseline: transport, baselineName: "CurlTransport")

        try await concurrent(url: url, base: base, path: path, requests: requests, rounds: rounds)
    }

    /// One contender alone, for a profiler: `Benchmarks p1-one <contender> <url> <requests>` warms up, then sends
    /// `requests` GETs the way the P1 row of that name does and exits. Contenders: `kit-curl` (the `Client` over
    /// libcurl, decoded JSON), `curl-transport` (`CurlTransport` alone, body collected), `kit-urlsession`.
    /// `scripts/bench p1-instructions` runs it under callgrind at two request counts: the difference divided by
    /// the difference in requests is the instructions per request, start-up and warm-up excluded, the same
    /// whatever else the machine is doing.
    static func one(contender: String, url: URL, requests: Int) async throws {
        let base = url.deletingLastPathComponent()
        let path = "/" + url.lastPathComponent
        func client(_ transport: any Transport) -> Client {
            Client(
                baseURL: base,
                configuration: Client.Configuration(
                    transportPolicy: .allowingInsecureLoopback, journal: Journal(capacity: 4_096)),
                transport: transport)
        }
        #if os(Linux)
            let curl: any Transport = CurlTransport()
        #else
            let curl: any Transport = URLSessionTransport()
        #endif
        switch contender {
        case "kit-curl", "kit-urlsession":
            let kit = client(contender == "kit-curl" ? curl : URLSessionTransport())
            _ = try await kit.send(Request<JSONValue>.get(path))
            for _ in 0..<requests { _ = try await kit.send(Request<JSONValue>.get(path)) }
        case "curl-transport":
            let (_, body) = try await curl.send(HTTPRequest(url: url))
            _ = try await body.collect(upTo: 1 << 20)
            for _ in 0..<requests {
                let (_, body) = try await curl.send(HTTPRequest(url: url))
                _ = try await body.collect(upTo: 1 << 20)
            }
        default:
            throw BenchmarkError("unknown P1 contender \(contender) (kit-curl, curl-transport, kit-urlsession)")
        }
    }

    /// 8 clients at once, each sending its share of `requests` sequentially; throughput in requests/s.
    static func concurrent(url: URL, base: URL, path: String, requests: Int, rounds: Int) async throws {
        let clients = 8
        let share = requests / clients
        func many(_ make: () -> any Transport) -> [Client] {
            (0..<clients).map { _ in
                Client(
                    baseURL: base,
                    configuration: Client.Configuration(
                        transportPolicy: .allowingInsecureLoopback, journal: Journal(capacity: 4_096)),
                    transport: make())
            }
        }
        let overURLSession = many { URLSessionTransport() }
        #if os(Linux)
            let overCurl = many { CurlTransport() }
        #else
            let overCurl = many { URLSessionTransport() }
        #endif
        func run(_ group: [Client]) async throws -> Double {
            try await time {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for client in group {
                        tasks.addTask {
                            for _ in 0..<share { _ = try await client.send(Request<JSONValue>.get(path)) }
                        }
                    }
                    try await tasks.waitForAll()
                }
            }
        }
        _ = try await run(overURLSession)
        _ = try await run(overCurl)
        var urlSession: [Double] = []
        var curl: [Double] = []
        var cli: [Double] = []
        for _ in 0..<rounds {
            urlSession.append(try await run(overURLSession))
            curl.append(try await run(overCurl))
            cli.append(try curlRun(url: url, requests: share * clients, parallel: clients))
        }
        let floor = median(cli)
        Report.table(
            id: "p1c",
            title: "P1 concurrent: \(clients) clients x \(share) GETs at once, median of \(rounds) rounds",
            rows: [
                ("8 Clients over URLSession", median(urlSession), share * clients),
                ("8 Clients over libcurl", median(curl), share * clients),
                ("curl CLI --parallel-max 8, keep-alive", floor, share * clients),
            ], baseline: floor, baselineName: "curl CLI")
    }

    /// One curl process fetching the URL `requests` times over kept-alive connections.
    static func curlRun(url: URL, requests: Int, parallel: Int = 1) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["curl", "-s", "--no-progress-meter", "-o", "/dev/null"]
        if parallel > 1 { arguments += ["--parallel", "--parallel-immediate", "--parallel-max", "\(parallel)"] }
        process.arguments = arguments + ["\(url.absoluteString)?n=[1-\(requests)]"]
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("curl exited with \(process.terminationStatus)")
        }
        return (ContinuousClock.now - start).seconds
    }

    /// Python httpx (the interpreter in `BENCH_PYTHON`) timing `requests` GETs on one kept-alive
    /// client; it reports its own loop time, so interpreter start-up is not counted. `nil` when unset.
    static func httpxRun(url: URL, requests: Int) throws -> Double? {
        guard let python = ProcessInfo.processInfo.environment["BENCH_PYTHON"], !python.isEmpty else { return nil }
        let script = """
            import sys, time, httpx
            url, n = sys.argv[1], int(sys.argv[2])
            with httpx.Client() as c:
                c.get(url).json()
                t = time.perf_counter()
                for _ in range(n):
                    c.get(url).json()
                print(time.perf_counter() - t)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, url.absoluteString, "\(requests)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let seconds = Double(
                String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchmarkError("httpx exited with \(process.terminationStatus)") }
        return seconds
    }
}

/// Timing and printing shared by the benchmarks.
enum Report {
    /// Prints a table; when `BENCH_RESULTS` names a file, appends each row to it as one JSON line
    /// (`scripts/bench all` joins them into one table and draws the charts).
    static func table(
        id: String = "", title: String, rows: [(String, Double, Int)], baseline: Double,
        baselineName: String = "baseline", unit: String? = nil
    ) {
        print("\n\(title)")
        print(String(repeating: "-", count: 96))
        if let unit {
            // Values that are not seconds (instruction counts): the value and the ratio only.
            print(pad("contender", 66) + pad(unit, 16) + "ratio vs \(baselineName)")
            for (name, value, operations) in rows {
                print(
                    pad(name, 66) + pad(String(format: "%.0f", value), 16) + String(format: "%.3fx", value / baseline))
                record(
                    id: id, title: title, name: name, seconds: value, operations: operations, baseline: baseline,
                    unit: unit)
            }
            return
        }
        print(
            pad("contender", 44) + pad("total s", 12) + pad("per op ms", 14) + pad("ops/s", 12)
                + "ratio vs \(baselineName)")
        for (name, seconds, operations) in rows {
            let perOperation = seconds / Double(max(1, operations)) * 1000
            print(
                pad(name, 44) + pad(String(format: "%.3f", seconds), 12) + pad(String(format: "%.4f", perOperation), 14)
                    + pad(String(format: "%.0f", Double(operations) / seconds), 12)
                    + String(format: "%.3fx", seconds / baseline))
            record(id: id, title: title, name: name, seconds: seconds, operations: operations, baseline: baseline)
        }
    }

    /// Appends one row to `BENCH_RESULTS`; `parameter` and `series` place it on a line chart (P3 against N);
    /// `unit` names what `seconds` holds when it is not seconds (P7's MiB).
    static func record(
        id: String, title: String, name: String, seconds: Double, operations: Int, baseline: Double,
        parameter: Int? = nil, series: String? = nil, unit: String? = nil
    ) {
        guard !id.isEmpty, seconds.isFinite, let path = ProcessInfo.processInfo.environment["BENCH_RESULTS"] else {
            return
        }
        var row: [String: Any] = [
            "id": id, "title": title, "name": name, "seconds": seconds, "operations": operations,
            "ratio": seconds / baseline,
        ]
        if let unit { row["unit"] = unit }
        if let parameter, let series {
            row["n"] = parameter
            row["series"] = series
        }
        append(row, to: path)
    }

    /// Prints and records a row that has no figure yet, because its contender is not built: its `reason` shows in
    /// place of the value (`scripts/bench all` writes it into the table as is, and leaves it out of the charts).
    static func pending(id: String, title: String, name: String, reason: String) {
        print(pad(name, 44) + reason)
        guard let path = ProcessInfo.processInfo.environment["BENCH_RESULTS"] else { return }
        append(
            ["id": id, "title": title, "name": name, "pending": reason, "seconds": 0, "operations": 0, "ratio": 0],
            to: path)
    }

    /// Appends one row to the results file as a JSON line.
    private static func append(_ row: [String: Any], to path: String) {
        guard var line = try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(line)
            handle.closeFile()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: line)
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

func time(_ body: () async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).seconds
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
