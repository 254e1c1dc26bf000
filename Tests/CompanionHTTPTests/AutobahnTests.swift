import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// Autobahn|Testsuite's fuzzingserver (Servers/autobahn) against the kit's WebSocket client: every case of sections
/// 1–10, then its JSON report read back. The gate is the one that held up over runs (docs/architecture.md): no case
/// FAILED, and every close behaviour OK or INFORMATIONAL; OK, NON-STRICT and INFORMATIONAL all pass (a few cases flip
/// between OK and NON-STRICT with timing).
@Suite("Autobahn|Testsuite sections 1-10 (Servers/autobahn)", .timeLimit(.minutes(20)))
struct AutobahnTests {
    private static func url(_ pathAndQuery: String) throws -> URL {
        let base = try TestServers.url("COMPANION_AUTOBAHN_URL")
        let text = base.absoluteString.replacingOccurrences(of: "http://", with: "ws://") + pathAndQuery
        return try #require(URL(string: text))
    }

    /// The fuzzingserver's report folder: `<state>/autobahn/reports` (the lifecycle's state root).
    private static func reportIndex() -> URL {
        let root =
            ProcessInfo.processInfo.environment["COMPANION_STATE"]
            ?? FileManager.default.currentDirectoryPath + "/.servers"
        return URL(fileURLWithPath: root).appendingPathComponent("autobahn/reports/index.json")
    }

    /// Echoes every message of one connection back as it came, until the server closes or fails it.
    private static func echo(_ url: URL, transport: any ChannelTransport) async {
        guard let socket = try? await transport.open(ChannelRequest(url: url, openTimeout: .seconds(30))) else {
            return
        }
        do {
            for try await message in socket.messages {
                try await socket.send(message)
            }
        } catch {
            // Many cases end with the client failing the connection on purpose (1002, 1007, 1009).
        }
        await socket.close(.normal, reason: "")
    }

    @Test("K-WS-20: every case of sections 1-10 ends OK, NON-STRICT or INFORMATIONAL, none FAILED")
    func sectionsOneToTen() async throws {
        let transport = DefaultChannelTransport.webSocket()
        let agent = "companionkit-\(UUID().uuidString.prefix(8).lowercased())"
        let countSocket = try await transport.open(ChannelRequest(url: try Self.url("/getCaseCount")))
        var countIterator = countSocket.messages.makeAsyncIterator()
        let countText = try #require(try await countIterator.next()?.text)
        let count = try #require(Int(countText))
        await countSocket.close(.normal, reason: "")
        #expect(count >= 300)
        for number in 1...count {
            await Self.echo(try Self.url("/runCase?case=\(number)&agent=\(agent)"), transport: transport)
        }
        let reports = try await transport.open(ChannelRequest(url: try Self.url("/updateReports?agent=\(agent)")))
        do {
            for try await _ in reports.messages {}
        } catch {
            // The server closes once the reports are written.
        }
        let data = try Data(contentsOf: Self.reportIndex())
        let index = try #require(JSONValue(data: data)?[agent]?.objectValue, "no report for agent \(agent)")
        #expect(index.count == count)
        var behaviors: [String: Int] = [:]
        var closes: [String: Int] = [:]
        var failed: [String] = []
        for (id, result) in index {
            let behavior = result["behavior"]?.stringValue ?? "?"
            let close = result["behaviorClose"]?.stringValue ?? "?"
            behaviors[behavior, default: 0] += 1
            closes[close, default: 0] += 1
            if behavior == "FAILED" || !["OK", "INFORMATIONAL"].contains(close) {
                failed.append("\(id) behavior=\(behavior) behaviorClose=\(close)")
            }
        }
        print(
            "autobahn: \(index.count) cases; behavior \(behaviors.sorted { $0.key < $1.key }); close \(closes.sorted { $0.key < $1.key })"
        )
        #expect(failed.isEmpty, "failed cases: \(failed.sorted())")
    }
}
