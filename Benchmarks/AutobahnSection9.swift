import CompanionCore
import CompanionHTTP
import Foundation

/// Autobahn|Testsuite section 9 (limits and performance: messages of 64 KiB to 16 MiB whole, fragmented and
/// chopped, and 1,000 small messages in a row): the kit's client and the Python `websockets` client echo every case
/// against the same fuzzingserver in one run, one after the other, each under an agent of its own. The time of a
/// case is the fuzzingserver's own `duration` from its report (the same clock for both clients); each row's ratio
/// is against the Python client on the same case.
enum AutobahnSection9 {
    /// `Benchmarks autobahn9 <ws-url> <reports-index.json>` (BENCH_PYTHON for the peer; scripts/bench ab9).
    static func run(base: URL, index: String) async throws {
        let python = try LiveBenchmarks.python()
        let transport = DefaultChannelTransport.webSocket()
        let count = try await Int(firstText(transport, base, "/getCaseCount")) ?? 0
        guard count > 0 else { throw BenchmarkError("autobahn: no case count") }
        var cases: [(number: Int, id: String)] = []
        for number in 1...count {
            let info = try await firstText(transport, base, "/getCaseInfo?case=\(number)")
            guard let id = JSONValue(data: Data(info.utf8))?["id"]?.stringValue else {
                throw BenchmarkError("autobahn: case \(number) has no id: \(info.prefix(200))")
            }
            if id.hasPrefix("9.") { cases.append((number, id)) }
        }
        guard !cases.isEmpty else { throw BenchmarkError("autobahn: the fuzzingserver runs no case of section 9") }
        let tag = UUID().uuidString.prefix(8).lowercased()
        let kitAgent = "bench-kit-\(tag)"
        let peerAgent = "bench-python-\(tag)"
        var kitWalls: [String: Double] = [:]
        for item in cases {
            kitWalls[item.id] = try await time { await echo(transport, base, item.number, agent: kitAgent) }
        }
        let peerWalls = try LiveBenchmarks.run(
            python,
            [LiveBenchmarks.peer("autobahn_peer.py"), base.absoluteString, peerAgent] + cases.map { "\($0.number)" })
        for agent in [kitAgent, peerAgent] {
            _ = try? await firstText(transport, base, "/updateReports?agent=\(agent)")
        }
        guard let report = JSONValue(data: try Data(contentsOf: URL(fileURLWithPath: index))) else {
            throw BenchmarkError("autobahn: \(index) is not JSON")
        }
        let title = "Autobahn section 9 (limits and performance): the fuzzingserver's duration per case, s"
        print("\n\(title)")
        print(Report.pad("case", 10) + Report.pad("kit s", 12) + Report.pad("python s", 12) + "kit / python")
        var totals = (kit: 0.0, peer: 0.0)
        for item in cases {
            func duration(_ agent: String, wall: Double?) -> Double {
                // The report's milliseconds; the client's own wall when the report has none.
                report[agent]?[item.id]?["duration"]?.doubleValue.map { $0 / 1000 } ?? wall ?? .nan
            }
            let kit = duration(kitAgent, wall: kitWalls[item.id])
            let peer = duration(peerAgent, wall: peerWalls["\(item.number)"])
            let kitBehavior = report[kitAgent]?[item.id]?["behavior"]?.stringValue ?? "?"
            guard kitBehavior != "FAILED" else { throw BenchmarkError("autobahn: case \(item.id) FAILED for the kit") }
            totals.kit += kit
            totals.peer += peer
            print(
                Report.pad(item.id, 10) + Report.pad(String(format: "%.3f", kit), 12)
                    + Report.pad(String(format: "%.3f", peer), 12) + String(format: "%.2fx", kit / peer))
            for (name, value) in [("CompanionKit client", kit), ("Python websockets 17 client", peer)] {
                Report.record(
                    id: "ab9", title: title, name: "\(item.id) \(name)", seconds: value, operations: 1, baseline: peer)
            }
        }
        print(
            Report.pad("total", 10) + Report.pad(String(format: "%.3f", totals.kit), 12)
                + Report.pad(String(format: "%.3f", totals.peer), 12)
                + String(format: "%.2fx", totals.kit / totals.peer))
        for (name, value) in [("CompanionKit client", totals.kit), ("Python websockets 17 client", totals.peer)] {
            Report.record(
                id: "ab9", title: title, name: "all \(cases.count) cases, \(name)", seconds: value,
                operations: cases.count, baseline: totals.peer)
        }
    }

    /// `base` with `pathAndQuery` (the fuzzingserver's routes are on its root).
    private static func url(_ base: URL, _ pathAndQuery: String) throws -> URL {
        guard let url = URL(string: base.absoluteString + pathAndQuery) else {
            throw BenchmarkError("autobahn: bad URL \(pathAndQuery)")
        }
        return url
    }

    /// The first text message of a connection to `pathAndQuery` (the case count, a case's description), or the
    /// empty text when the server closes first.
    private static func firstText(_ transport: any ChannelTransport, _ base: URL, _ pathAndQuery: String)
        async throws -> String
    {
        let socket = try await transport.open(
            ChannelRequest(url: try url(base, pathAndQuery), openTimeout: .seconds(30)))
        var iterator = socket.messages.makeAsyncIterator()
        let text = (try? await iterator.next())?.text ?? ""
        await socket.close(.normal, reason: "")
        return text
    }

    /// Runs case `number`: every message is sent back as it came, until the server closes (AutobahnTests' echo).
    private static func echo(_ transport: any ChannelTransport, _ base: URL, _ number: Int, agent: String) async {
        guard let url = try? url(base, "/runCase?case=\(number)&agent=\(agent)"),
            let socket = try? await transport.open(ChannelRequest(url: url, openTimeout: .seconds(30)))
        else { return }
        do {
            for try await message in socket.messages { try await socket.send(message) }
        } catch {
            // The report says how the case went.
        }
        await socket.close(.normal, reason: "")
    }
}
