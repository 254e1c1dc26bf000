import CompanionCore
import CompanionHTTP
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// P1: 1,000 sequential GETs of a small JSON body from a loopback server, CompanionKit against raw
/// URLSession and curl (one process, keep-alive), interleaved round by round so load on the machine
/// hits every contender alike. Reports medians and ratios.
enum P1 {
    static func run(url: URL, requests: Int = 1_000, rounds: Int = 5) async throws {
        let session = URLSession(configuration: .ephemeral)
        let client = Client(
            baseURL: url.deletingLastPathComponent(),
            configuration: Client.Configuration(
                transportPolicy: .allowingInsecureLoopback, journal: Journal(capacity: 4_096)))
        let path = "/" + url.lastPathComponent
        var raw: [Double] = []
        var kit: [Double] = []
        var kitDecoded: [Double] = []
        var curl: [Double] = []
        var transportOnly: [Double] = []
        var noJournal: [Double] = []
        let quiet = Client(
            baseURL: url.deletingLastPathComponent(),
            configuration: Client.Configuration(transportPolicy: .allowingInsecureLoopback, recordsExchanges: false))
        let transport = URLSessionTransport()

        // Warm up every path once (connections, lazy initialisation).
        _ = try await session.data(for: URLRequest(url: url))
        _ = try await client.send(Request<Data>.raw(.get, path))

        for _ in 0..<rounds {
            raw.append(
                try await time {
                    for _ in 0..<requests { _ = try await session.data(for: URLRequest(url: url)) }
                })
            kit.append(
                try await time {
                    for _ in 0..<requests { _ = try await client.send(Request<Data>.raw(.get, path)) }
                })
            kitDecoded.append(
                try await time {
                    for _ in 0..<requests { _ = try await client.send(Request<JSONValue>.get(path)) }
                })
            noJournal.append(
                try await time {
                    for _ in 0..<requests { _ = try await quiet.send(Request<Data>.raw(.get, path)) }
                })
            transportOnly.append(
                try await time {
                    for _ in 0..<requests {
                        let (_, body) = try await transport.send(HTTPRequest(url: url))
                        _ = try await body.collect(upTo: 1 << 20)
                    }
                })
            curl.append(try curlRun(url: url, requests: requests))
        }
        let rawMedian = median(raw)
        Report.table(
            title: "P1: \(requests) sequential GETs of \(url.lastPathComponent), median of \(rounds) rounds",
            rows: [
                ("raw URLSession data(for:)", rawMedian, requests),
                ("CompanionKit Client (Data)", median(kit), requests),
                ("CompanionKit Client (decoded JSON)", median(kitDecoded), requests),
                ("Client without journal (breakdown)", median(noJournal), requests),
                ("URLSessionTransport alone (breakdown)", median(transportOnly), requests),
                ("curl, one process, keep-alive", median(curl), requests),
            ], baseline: rawMedian)
    }

    /// One curl process fetching the URL `requests` times over one kept-alive connection.
    static func curlRun(url: URL, requests: Int) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "-o", "/dev/null", "\(url.absoluteString)?n=[1-\(requests)]"]
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("curl exited with \(process.terminationStatus)")
        }
        return (ContinuousClock.now - start).seconds
    }
}

/// Timing and printing shared by the benchmarks.
enum Report {
    static func table(title: String, rows: [(String, Double, Int)], baseline: Double) {
        print("\n\(title)")
        print(String(repeating: "-", count: 92))
        print(pad("contender", 40) + pad("total s", 12) + pad("per op ms", 14) + pad("ops/s", 12) + "ratio vs baseline")
        for (name, seconds, operations) in rows {
            let perOperation = seconds / Double(max(1, operations)) * 1000
            print(
                pad(name, 40) + pad(String(format: "%.3f", seconds), 12) + pad(String(format: "%.4f", perOperation), 14)
                    + pad(String(format: "%.0f", Double(operations) / seconds), 12)
                    + String(format: "%.3fx", seconds / baseline))
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
