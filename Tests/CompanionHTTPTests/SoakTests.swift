import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
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
///   message of its session exactly once, counted by the message's number (its text, `soak message N`).
/// - 10 streams read the fault server's numbered streams (one event every 100 ms); the server cuts half of them
///   after their 25th event (the fault server cuts a stream's first connection only) and they resume with
///   `Last-Event-ID`; each must see ids 1…N exactly once.
/// - RSS (`/proc/self/statm`) is sampled every second; after the warm-up (a quarter of the run, at most 60 s)
///   the median of the last 10 samples may exceed the median of the first 10 by less than 5 %.
@Suite(
    "Soak: 50 streams against Omnigent and the fault server",
    .enabled(if: soakSeconds != nil, "scripts/soak sets COMPANION_SOAK_SECONDS"), .serialized)
struct SoakTests {

    /// How often every stream saw each message number, in arrays allocated once at the start: the bookkeeping
    /// must not grow during the run, or it would be measured as the kit's memory growth.
    final class Tally: Sendable {
        private struct Streams {
            var counts: [[UInt8]]
            var connected: [Bool]
        }
        private let streams: Locked<Streams>
        let capacity: Int
        /// Fires after every update, so the test waits on the tally's changes instead of polling it.
        let changes = ChangeSignal()

        init(streams count: Int, messages capacity: Int) {
            self.capacity = capacity
            streams = Locked(
                Streams(
                    counts: Array(repeating: Array(repeating: 0, count: capacity), count: count),
                    connected: Array(repeating: false, count: count)))
        }

        func connected(_ stream: Int) {
            let first = streams.withLock { state in
                defer { state.connected[stream] = true }
                return !state.connected[stream]
            }
            if first { changes.changed() }
        }
        /// Counts message `number` on `stream`; a number outside the run counts as a duplicate at index 0.
        func saw(_ number: Int, on stream: Int) {
            streams.withLock { state in
                let index = (0..<capacity).contains(number) ? number : 0
                state.counts[stream][index] = state.counts[stream][index] &+ 1
            }
            changes.changed()
        }
        func connectedCount() -> Int { streams.withLock { $0.connected.filter { $0 }.count } }
        /// How many of `expected` the stream never saw, and how many it saw more than once.
        func check(_ stream: Int, expected: some Sequence<Int>) -> (lost: Int, duplicated: Int) {
            streams.withLock { state in
                let counts = state.counts[stream]
                var lost = 0
                for number in expected where counts[number] == 0 { lost += 1 }
                return (lost, counts.filter { $0 > 1 }.count)
            }
        }
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
        let faultCount = seconds * 10
        let tally = Tally(streams: 50, messages: faultCount + 64)

        let agents = try await omnigent.send(Request<JSONValue>.get("/v1/agents"))
        let agent = try #require(agents["data"]?[0]?["id"]?.stringValue)
        var sessions: [String] = []
        for index in 0..<10 {
            let body: JSONValue = .object(["agent_id": .string(agent), "title": .string("soak \(index)")])
            let session = try await omnigent.send(Request<JSONValue>.post("/v1/sessions", body: body))
            sessions.append(try #require(session["id"]?.stringValue))
        }

        let sessionIDs = sessions
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
                                // The message number is in its text, "soak message N".
                                guard event.event == "response.output_item.done",
                                    let item = JSONValue(data: Data(event.data.utf8))?["item"],
                                    item["id"]?.stringValue != nil,
                                    let text = item["content"]?[0]?["text"]?.stringValue,
                                    text.hasPrefix("soak message "), let number = Int(text.dropFirst(13))
                                else { continue }
                                tally.saw(number, on: stream)
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
                                if let number = event.id.flatMap({ Int($0) }) { tally.saw(number, on: 40 + index) }
                            }
                        } catch {}
                    }
                }
            }
        }
        defer { readers.cancel() }

        // Every stream is open before the first message is posted: a wait on the tally's changes (each stream
        // signals its first event) under a 60 s deadline, not a sleep that hopes the streams are open by then.
        _ = await tally.changes.wait(upTo: .seconds(60)) { tally.connectedCount() == 50 }
        #expect(tally.connectedCount() == 50, "only \(tally.connectedCount()) of 50 streams opened")

        // Post at a steady rate and sample RSS once a second.
        //
        // Paced by a repeating timer, not a sleep: the soak's subject is a load held in real time (one message every
        // 100 ms for the run's length, while RSS is sampled). A Dispatch timer ticks every 100 ms into a stream that
        // keeps every tick, so a slow post is caught up by the ticks it missed and the rate never drifts.
        let (ticks, ticking) = AsyncStream<Void>.makeStream()
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.setEventHandler { ticking.yield() }
        timer.resume()
        defer {
            timer.cancel()
            ticking.finish()
        }
        var pace = ticks.makeAsyncIterator()
        var samples: [Int] = []
        samples.reserveCapacity(seconds + 10)
        let start = ContinuousClock.now
        var tick = 0
        while ContinuousClock.now - start < .seconds(seconds), tick < tally.capacity {
            let session = tick % 10
            let body: JSONValue = .object([
                "type": "external_assistant_message",
                "data": .object(["agent": .string("soak"), "text": .string("soak message \(tick)")]),
            ])
            let ack = try await omnigent.send(
                Request<JSONValue>.post("/v1/sessions/\(sessions[session])/events", body: body))
            #expect(ack["item_id"]?.stringValue != nil, "message \(tick) got no item id")
            if tick % 10 == 0 { samples.append(Self.residentBytes()) }
            tick += 1
            await pace.next()
        }

        // Bounded wait for the last events to arrive everywhere: a wait on the tally's changes (every counted event
        // signals) under a 30 s deadline; what is still missing then is reported below.
        let posted = tick
        func expected(_ stream: Int) -> [Int] {
            stream < 40 ? Array(stride(from: stream % 10, to: posted, by: 10)) : Array(1...faultCount)
        }
        func missing() -> (lost: Int, duplicated: Int) {
            (0..<50).map { tally.check($0, expected: expected($0)) }.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        _ = await tally.changes.wait(upTo: .seconds(30)) { missing().lost == 0 }
        let (lost, duplicated) = missing()
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
