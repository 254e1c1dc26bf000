import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation
import OmnigentCore

#if canImport(Glibc)
    import Glibc
#endif

/// P2 and P6 against the real Omnigent 0.19.1 server, side by side with Python clients on the same
/// server in the same run.
///
/// - P2: page through 1,000 sessions and decode them; CPU time (user + sys, `getrusage`) of a child process
///   running the `Client` against a child running the Python `omnigent-client` doing the same walk.
/// - P6 latency: one `external_assistant_message` posted at a time; the time from just before the POST to the
///   moment a listener's loop holds the decoded event, for the kit's `Client.events` and for Python httpx + httpx-sse
///   listening to the same session's stream at the same time.
///
///     Benchmarks p2 <omnigent-url>      (BENCH_OMNIGENT_PYTHON: the venv python with omnigent-client)
///     Benchmarks p6 <omnigent-url>      (BENCH_PYTHON: a python with httpx and httpx-sse)
enum OmnigentBenchmarks {
    static let sessionCount = 1_000
    static let pageSize = 100

    // MARK: - The connection

    static func client(_ url: URL) async throws -> Client {
        let environment = AppEnvironment(
            transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .memory),
            secrets: InMemorySecretStore())
        let address = try environment.address(url.absoluteString)
        let connection = try await OmnigentConnector.connect(address, environment: environment)
        return environment.client(for: connection.apiBase, profile: OmnigentServer.profile)
    }

    static func agentID(_ client: Client) async throws -> String {
        let agents = try await client.send(OmnigentAPI.agents())
        guard let agent = agents.data.first(where: { $0.name == "debby" }) ?? agents.data.first else {
            throw BenchmarkError("the Omnigent server lists no agent to create sessions for")
        }
        return agent.id
    }

    /// Makes sure the server holds at least `sessionCount` sessions, creating the missing ones 8 at a time.
    static func seed(_ client: Client) async throws -> (existing: Int, created: Int, seconds: Double) {
        var existing = 0
        var after: String?
        while true {
            let page = try await client.send(OmnigentAPI.sessions(limit: 1_000, after: after))
            existing += page.data.count
            guard page.hasMore, let last = page.lastID, existing < sessionCount else { break }
            after = last
        }
        let missing = max(0, sessionCount - existing)
        guard missing > 0 else { return (existing, 0, 0) }
        let agent = try await agentID(client)
        let seconds = try await time {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func add() throws {
                    let index = next
                    next += 1
                    let request = try OmnigentAPI.createSession(agentID: agent, title: "Bench session \(index)")
                    group.addTask { _ = try await client.send(request) }
                }
                for _ in 0..<min(8, missing) { try add() }
                while try await group.next() != nil {
                    if next < missing { try add() }
                }
            }
        }
        return (existing, missing, seconds)
    }

    // MARK: - P2

    static func p2(url: URL, rounds: Int = 5, passes: Int = 3) async throws {
        let client = try await client(url)
        let seeded = try await seed(client)
        if seeded.created > 0 {
            print(String(format: "P2: seeded %d sessions through the API in %.1f s", seeded.created, seeded.seconds))
        }
        guard let python = ProcessInfo.processInfo.environment["BENCH_OMNIGENT_PYTHON"], !python.isEmpty else {
            throw BenchmarkError("BENCH_OMNIGENT_PYTHON (the Omnigent venv's python, with omnigent-client) is unset")
        }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("p2-\(UUID().uuidString).py")
        try Data(p2Python.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let arguments = [url.absoluteString, "\(sessionCount)", "\(pageSize)", "\(passes)"]
        var kit: [Figures] = []
        var peer: [Figures] = []
        for _ in 0..<rounds {
            kit.append(try child(CommandLine.arguments[0], ["p2-child"] + arguments))
            peer.append(try child(python, [script.path] + arguments))
        }
        for figures in kit + peer where figures.sessions != sessionCount {
            throw BenchmarkError("a P2 walk decoded \(figures.sessions) sessions, not \(sessionCount)")
        }
        let baseline = median(peer.map(\.loop))
        let title =
            "P2: page through \(sessionCount) sessions (\(pageSize) a page) and decode, CPU s, median of \(rounds)"
        Report.table(
            id: "p2", title: title,
            rows: [
                ("Python omnigent-client, CPU of the walk", baseline, sessionCount),
                ("CompanionKit Client, CPU of the walk", median(kit.map(\.loop)), sessionCount),
            ], baseline: baseline, baselineName: "Python CPU")
        let wholeBaseline = median(peer.map(\.total))
        Report.table(
            id: "p2p",
            title: "P2 whole process: start-up + \(passes + 1) walks, CPU s, median of \(rounds)",
            rows: [
                ("Python omnigent-client, process CPU", wholeBaseline, (passes + 1) * sessionCount),
                ("CompanionKit Client, process CPU", median(kit.map(\.total)), (passes + 1) * sessionCount),
            ], baseline: wholeBaseline, baselineName: "Python CPU")
        print(
            String(
                format: "  wall time of one walk: CompanionKit %.3f s, Python %.3f s (the server's time is in both)",
                median(kit.map(\.wall)), median(peer.map(\.wall))))
    }

    /// What a P2 child reports: CPU seconds of one walk (mean of the passes after a warm-up walk), wall
    /// seconds of one walk, CPU seconds of the whole process at its end, and sessions decoded in a walk.
    struct Figures: Decodable {
        var loop: Double
        var wall: Double
        var total: Double
        var sessions: Int
    }

    static func child(_ executable: String, _ arguments: [String]) throws -> Figures {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = data.split(separator: 0x0A).last else {
            throw BenchmarkError("\(executable) \(arguments.first ?? "") exited with \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(Figures.self, from: Data(line))
    }

    /// The child process of P2: one warm-up walk, then `passes` walks timed by CPU.
    static func p2Child(_ arguments: [String]) async throws {
        guard arguments.count == 4, let url = URL(string: arguments[0]), let total = Int(arguments[1]),
            let page = Int(arguments[2]), let passes = Int(arguments[3])
        else { throw BenchmarkError("usage: Benchmarks p2-child URL TOTAL PAGE PASSES") }
        let client = try await client(url)
        func walk() async throws -> Int {
            var seen = 0
            var after: String?
            while seen < total {
                let next = try await client.send(
                    OmnigentAPI.sessions(limit: min(page, total - seen), after: after))
                seen += next.data.count
                guard next.hasMore, let last = next.lastID else { break }
                after = last
            }
            return seen
        }
        _ = try await walk()
        let cpu0 = ProcessCPU.current()
        let wall0 = ContinuousClock.now
        var seen = 0
        for _ in 0..<passes { seen = try await walk() }
        let loop = (ProcessCPU.current() - cpu0) / Double(passes)
        let wall = (ContinuousClock.now - wall0).seconds / Double(passes)
        print("{\"loop\": \(loop), \"wall\": \(wall), \"total\": \(ProcessCPU.current()), \"sessions\": \(seen)}")
    }

    static let p2Python = """
        import asyncio, json, resource, sys, time
        from omnigent_client import OmnigentClient

        def cpu():
            r = resource.getrusage(resource.RUSAGE_SELF)
            return r.ru_utime + r.ru_stime

        async def walk(client, total, page):
            seen, after = 0, None
            while seen < total:
                items = await client.sessions.list(limit=min(page, total - seen), after=after, sort_by="updated_at")
                if not items:
                    break
                seen += len(items)
                after = items[-1].id
            return seen

        async def main():
            url, total, page, passes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            async with OmnigentClient(base_url=url) as client:
                await walk(client, total, page)
                c0, t0 = cpu(), time.perf_counter()
                for _ in range(passes):
                    seen = await walk(client, total, page)
                c1, t1 = cpu(), time.perf_counter()
            print(json.dumps({"loop": (c1 - c0) / passes, "wall": (t1 - t0) / passes, "total": cpu(), "sessions": seen}))

        asyncio.run(main())
        """

    // MARK: - P6 latency

    /// CLOCK_MONOTONIC in nanoseconds: the same clock Python's `time.clock_gettime_ns(CLOCK_MONOTONIC)` reads.
    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    struct ItemDone: Decodable {
        struct Item: Decodable {
            struct Content: Decodable { var text: String? }
            var content: [Content]?
        }
        var item: Item
    }

    /// Receipt times of the markers, written by the listener task and read by the poster.
    final class Receipts: Sendable {
        private let state = Locked<(opened: Bool, times: [String: Int64])>((false, [:]))
        func open() { state.withLock { $0.opened = true } }
        func record(_ marker: String, at nanoseconds: Int64) { state.withLock { $0.times[marker] = nanoseconds } }
        var opened: Bool { state.withLock { $0.opened } }
        func time(of marker: String) -> Int64? { state.withLock { $0.times[marker] } }
    }

    static func p6Latency(url: URL, events: Int = 200) async throws {
        guard let python = ProcessInfo.processInfo.environment["BENCH_PYTHON"], !python.isEmpty else {
            throw BenchmarkError("BENCH_PYTHON (a python with httpx and httpx-sse) is unset")
        }
        let client = try await client(url)
        let agent = try await agentID(client)
        let session = try await client.send(try OmnigentAPI.createSession(agentID: agent, title: "P6 latency"))
        let streamURL = client.baseURL.appendingPathComponent("v1/sessions/\(session.id)/stream")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("p6-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let script = work.appendingPathComponent("listen.py")
        try Data(p6Python.utf8).write(to: script)
        let ready = work.appendingPathComponent("ready")

        // The Python listener, in its own process: it writes `ready` once its stream is open.
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: python)
        listener.arguments = [script.path, streamURL.absoluteString, ready.path]
        let output = Pipe()
        listener.standardOutput = output
        try listener.run()
        defer { if listener.isRunning { listener.terminate() } }

        // The kit's listener: the `Client`'s event source, decoding each finished item.
        let receipts = Receipts()
        let follower = Task {
            let decoder = JSONDecoder()
            for try await event in client.events(OmnigentAPI.stream(session.id)) {
                receipts.open()
                guard event.event == "response.output_item.done" else { continue }
                let done = try decoder.decode(ItemDone.self, from: Data(event.data.utf8))
                guard let text = done.item.content?.first?.text else { continue }
                let now = monotonicNanoseconds()
                receipts.record(text, at: now)
                if text == "p6-end" { return }
            }
        }
        defer { follower.cancel() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !(receipts.opened && FileManager.default.fileExists(atPath: ready.path)) {
            guard ContinuousClock.now < deadline else { throw BenchmarkError("the P6 listeners did not open in 30 s") }
            try await Task.sleep(for: .milliseconds(10))
        }

        var sent: [String: Int64] = [:]
        for index in 0..<events {
            let marker = "p6-\(index)"
            let request = try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: marker)
            sent[marker] = monotonicNanoseconds()
            _ = try await client.send(request)
            // One event at a time: the next is posted once the kit's listener saw this one (bounded), and a
            // short pause lets the Python listener finish its own.
            let until = ContinuousClock.now + .seconds(5)
            while receipts.time(of: marker) == nil, ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        _ = try await client.send(try OmnigentAPI.appendAssistantMessage(session.id, agent: "debby", text: "p6-end"))
        let data = output.fileHandleForReading.readDataToEndOfFile()
        listener.waitUntilExit()
        _ = try? await follower.value
        var pythonReceipts: [String: Int64] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let nanoseconds = Int64(parts[1]) { pythonReceipts[String(parts[0])] = nanoseconds }
        }
        func latencies(_ received: (String) -> Int64?) -> [Double] {
            sent.compactMap { marker, start in received(marker).map { Double($0 - start) / 1e6 } }.sorted()
        }
        let kit = latencies { receipts.time(of: $0) }
        let peer = latencies { pythonReceipts[$0] }
        guard kit.count == events, peer.count == events else {
            throw BenchmarkError("P6: the kit received \(kit.count), Python \(peer.count) of \(events) events")
        }
        let title = "P6: post to decoded event through the real stream, \(events) events, ms"
        print("\n\(title)")
        print(String(repeating: "-", count: 96))
        print(Report.pad("listener", 44) + Report.pad("p50 ms", 12) + Report.pad("p99 ms", 12) + "p50 ratio vs Python")
        let peerP50 = percentile(peer, 0.5)
        let peerP99 = percentile(peer, 0.99)
        for (name, values) in [("Python httpx + httpx-sse", peer), ("CompanionKit Client.events", kit)] {
            let p50: Double = percentile(values, 0.5)
            let p99: Double = percentile(values, 0.99)
            print(
                Report.pad(name, 44) + Report.pad(String(format: "%.3f", p50), 12)
                    + Report.pad(String(format: "%.3f", p99), 12) + String(format: "%.3fx", p50 / peerP50))
            Report.record(
                id: "p6l", title: title + " (p50)", name: name + ", p50", seconds: p50 / 1000, operations: 1,
                baseline: peerP50 / 1000)
            Report.record(
                id: "p6l", title: title + " (p99)", name: name + ", p99", seconds: p99 / 1000, operations: 1,
                baseline: peerP99 / 1000)
        }
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
        return sorted[index]
    }

    static let p6Python = """
        import json, pathlib, sys, time
        import httpx, httpx_sse

        url, ready = sys.argv[1], pathlib.Path(sys.argv[2])
        with httpx.Client(timeout=httpx.Timeout(60.0)) as client:
            with httpx_sse.connect_sse(client, "GET", url) as source:
                for event in source.iter_sse():
                    if not ready.exists():
                        ready.touch()
                    if event.event != "response.output_item.done":
                        continue
                    text = json.loads(event.data)["item"]["content"][0]["text"]
                    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                    print(text, now, flush=True)
                    if text == "p6-end":
                        break
        """
}

/// CPU seconds (user + system) of this process, or of a process group read from /proc (Linux).
enum ProcessCPU {
    /// The CPU seconds of this process so far.
    static func current() -> Double { usage(of: selfWho) }

    /// The CPU seconds of this process's children that have ended and were waited for.
    static func reapedChildren() -> Double { usage(of: childrenWho) }

    #if os(Linux)
        private static let selfWho = Int32(RUSAGE_SELF.rawValue)
        private static let childrenWho = Int32(RUSAGE_CHILDREN.rawValue)
    #else
        private static let selfWho = RUSAGE_SELF
        private static let childrenWho = RUSAGE_CHILDREN
    #endif

    /// User + system CPU seconds from `getrusage`.
    private static func usage(of who: Int32) -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(who), &usage)
        #else
            getrusage(who, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The CPU seconds of every live process in group `group`, from /proc/<pid>/stat (fields 14 and 15,
    /// in clock ticks). 0 where /proc is missing.
    static func group(_ group: Int32) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var total = 0.0
        for name in names where name.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command's closing parenthesis: state, ppid, pgrp, … utime is the 12th, stime the 13th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, Int32(fields[2]) == group, let user = Double(fields[11]),
                let system = Double(fields[12])
            else { continue }
            total += (user + system) / ticks
        }
        return total
    }
}
