import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long the soak runs, from `scripts/soak`; nil turns the suite off.
let soakSeconds: Int? = ProcessInfo.processInfo.environment["COMPANION_SOAK_SECONDS"].flatMap(Int.init)

/// The soak: 50 Server-Sent Events streams held open for minutes, events posted at a steady rate, the memory
/// of the process sampled. Run by `scripts/soak [minutes]`, which sets `COMPANION_SOAK_SECONDS`; without it the
/// suite is off, because minutes of streaming do not belong in every test run (it is opt-in, not skipped
/// when a server is missing: with the variable set, a missing server fails it).
///
/// - 40 streams read the real Omnigent server's session streams (4 on each of 10 sessions) while a poster
///   appends one assistant message every 100 ms, round robin over the sessions; each stream must see every
///   message of its session exactly once, counted by item id.
/// - 10 streams read the fault server's numbered streams (one event every 100 ms); the server cuts half of them
///   after their 25th event (the fault server cuts a stream's first connection only) and they resume with
///   `Last-Event-ID`; each must see ids 1…N exactly once.
/// - RSS (`/proc/self/statm`) is sampled every second; after the warm-up (a quarter of the run, at most 60 s)
///   the median of the last 10 samples may exceed the median of the first 10 by less than 5 %.
@Suite(
    "Soak: 50 streams against Omnigent and the fault server",
    .enabled(if: soakSeconds != nil, "scripts/soak sets COMPANION_SOAK_SECONDS"), .serialized)
struct SoakTests {

    /// What every stream saw, by stream.
    final class Tally: Sendable {
        struct Seen {
            var ids: [String: Int] = [:]
            var connected = false
        }
        private let streams = Mutex([Int: Seen]())

        func connected(_ stream: Int) { streams.withLock { $0[stream, default: Seen()].connected = true } }
        func saw(_ id: String, on stream: Int) {
            streams.withLock { $0[stream, default: Seen()].ids[id, default: 0] += 1 }
        }
        func connectedCount() -> Int { streams.withLock { $0.values.filter(\.connected).count } }
        func ids(_ stream: Int) -> [String: Int] { streams.withLock { $0[stream]?.ids ?? [:] } }
    }

    /// The resident set in bytes, from `/proc/self/statm` (pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func median(_ values: ArraySlice<Int>) -> Int {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// A client whose transport allows all 50 streams at once (the default allows 8 connections a host).
    static func client(_ base: URL) -> Client {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 64
        return Client(
            baseURL: base,
            configuration: Client.Configuration(
                transportPolicy: .allowingInsecureLoopback, journal: Journal(capacity: 200)),
            transport: URLSessionTransport(configuration: configuration))
    }

    @Test("50 streams for the run: no event lost or duplicated, RSS grows < 5 % after the warm-up")
    func fiftyStreams() async throws {
        let seconds = try #require(soakSeconds)
        let omnigent = Self.client(try TestServers.omnigent())
        let fault = Self.client(try TestServers.fault())
        let tally = Tally()

        let agents = try await omnigent.send(Request<JSONValue>.get("/v1/agents"))
        let agent = try #require(agents["data"]?[0]?["id"]?.stringValue)
        var sessions: [String] = []
        for index in 0..<10 {
            let body: JSONValue = .object(["agent_id": .string(agent), "title": .string("soak \(index)")])
            let session = try await omnigent.send(Request<JSONValue>.post("/v1/sessions", body: body))
            sessions.append(try #require(session["id"]?.stringValue))
        }

        let sessionIDs = sessions
        let faultCount = seconds * 10
        let runID = UUID().uuidString.prefix(8)
        let readers = Task {
            await withTaskGroup(of: Void.self) { group in
                for stream in 0..<40 {
                    let session = sessionIDs[stream % 10]
                    group.addTask {
                        let events = omnigent.events(.empty(.get, "/v1/sessions/\(session)/stream"))
                        do {
                            for try await event in events {
                                tally.connected(stream)
                                guard event.event == "response.output_item.done",
                                    let item = JSONValue(data: Data(event.data.utf8))?["item"]?["id"]?.stringValue
                                else { continue }
                                tally.saw(item, on: stream)
                            }
                        } catch {}
                    }
                }
                for index in 0..<10 {
                    let cut = index < 5 ? "&drop_after=25" : ""
                    let path = "/sse?count=\(faultCount)&interval_ms=100&stream=soak-\(runID)-\(index)\(cut)"
                    group.addTask {
                        do {
                            for try await event in fault.events(.empty(.get, path)) {
                                tally.connected(40 + index)
                                if let id = event.id { tally.saw(id, on: 40 + index) }
                            }
                        } catch {}
                    }
                }
            }
        }
        defer { readers.cancel() }

        // Every stream is open before the first message is posted.
        let connectDeadline = ContinuousClock.now + .seconds(60)
        while tally.connectedCount() < 50, ContinuousClock.now < connectDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(tally.connectedCount() == 50, "only \(tally.connectedCount()) of 50 streams opened")

        // Post at a steady rate and sample RSS once a second.
        var posted: [Int: [String]] = [:]
        var samples: [Int] = []
        let start = ContinuousClock.now
        var tick = 0
        while ContinuousClock.now - start < .seconds(seconds) {
            let session = tick % 10
            let body: JSONValue = .object([
                "type": "external_assistant_message",
                "data": .object(["agent": .string("soak"), "text": .string("soak message \(tick)")]),
            ])
            let ack = try await omnigent.send(
                Request<JSONValue>.post("/v1/sessions/\(sessions[session])/events", body: body))
            posted[session, default: []].append(try #require(ack["item_id"]?.stringValue))
            if tick % 10 == 0 { samples.append(Self.residentBytes()) }
            tick += 1
            try await Task.sleep(until: start + .milliseconds(100 * tick))
        }

        // Bounded wait for the last events to arrive everywhere.
        func complete() -> Bool {
            (0..<40).allSatisfy { Set(tally.ids($0).keys) == Set(posted[$0 % 10] ?? []) }
                && (40..<50).allSatisfy { tally.ids($0).count == faultCount }
        }
        let drainDeadline = ContinuousClock.now + .seconds(30)
        while !complete(), ContinuousClock.now < drainDeadline { try await Task.sleep(for: .milliseconds(100)) }

        var lost = 0
        var duplicated = 0
        for stream in 0..<40 {
            let seen = tally.ids(stream)
            lost += (posted[stream % 10] ?? []).filter { seen[$0] == nil }.count
            duplicated += seen.values.filter { $0 > 1 }.count
        }
        for stream in 40..<50 {
            let seen = tally.ids(stream)
            lost += (1...faultCount).filter { seen[String($0)] == nil }.count
            duplicated += seen.values.filter { $0 > 1 }.count
        }
        let warmUp = min(60, max(1, seconds / 4))
        let steady = Array(samples.dropFirst(warmUp))
        let baseline = Self.median(steady.prefix(10))
        let final = Self.median(steady.suffix(10))
        let growth = baseline > 0 ? Double(final - baseline) / Double(baseline) * 100 : 0
        let summary =
            "soak: \(seconds) s, 50 streams, \(tick) messages posted, \(faultCount) fault events a stream, "
            + "\(lost) lost, \(duplicated) duplicated; RSS after \(warmUp) s warm-up \(baseline / 1024) KiB, "
            + "at the end \(final / 1024) KiB (\(String(format: "%+.2f", growth)) %), peak "
            + "\((samples.max() ?? 0) / 1024) KiB"
        print(summary)
        if let state = ProcessInfo.processInfo.environment["COMPANION_STATE"] {
            try? Data((summary + "\n").utf8).write(to: URL(fileURLWithPath: state).appendingPathComponent("soak.txt"))
        }
        #expect(lost == 0)
        #expect(duplicated == 0)
        #expect(steady.count >= 2, "too short a run to sample after the warm-up")
        #expect(growth < 5, "RSS grew \(growth) % after the warm-up")
    }
}
