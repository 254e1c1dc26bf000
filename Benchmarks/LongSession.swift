import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation
import MainworthyCore
import OmnigentCore

#if canImport(Glibc)
    import Glibc
#endif

/// P10: the memory of a long session. Two child processes follow a live stream for `minutes` while this process
/// feeds each stream 10 events a second and reads the children's resident memory (VmRSS) every 5 s:
/// - the Mainworthy core: signed in, the project open with its queue and changes screens following the
///   project's stream (`ProjectEvents`), as the app runs them; the events are real pipeline reports, each one a
///   `change` event the changes screen puts at the top of its list (kept to 500 rows by the core, O-20);
/// - the Omnigent watch client (`WatchClient`): a session open, its live stream followed (`live(_:)`), every
///   finished item decoded and the newest 8 chat messages kept, as the watch shows them; the events are assistant
///   messages posted to the session.
/// The figure is each child's RSS growth from the end of the warm-up (`warmup` seconds) to the end, and the
/// highest RSS after the warm-up; the goal is under 5 %. `scripts/bench p10` runs 10 minutes; `--minutes` and
/// `--warmup` shorten it for a check.
enum LongSession {
    static let rate = 10
    static let samplePeriod = Duration.seconds(5)

    /// One child's RSS samples (KiB, by seconds since the start) and the events it says it received.
    final class Child: Sendable {
        let name: String
        let process: Process
        private let state = Locked<(samples: [(Double, Int)], received: Int, ready: Bool, ended: String?)>(
            ([], 0, false, nil))

        init(name: String, process: Process) {
            self.name = name
            self.process = process
        }

        var ready: Bool { state.withLock { $0.ready } }
        var received: Int { state.withLock { $0.received } }
        var samples: [(Double, Int)] { state.withLock { $0.samples } }
        /// Why the child's stream ended, when it said so (`ended <sentence>`).
        var ended: String? { state.withLock { $0.ended } }

        func sample(at seconds: Double) {
            guard let kib = LongSession.residentKiB(of: process.processIdentifier) else { return }
            state.withLock { $0.samples.append((seconds, kib)) }
        }

        /// Reads the child's `ready` and `received N` lines.
        func listen(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                var buffer = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return }
                    buffer.append(chunk)
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                        buffer.removeSubrange(buffer.startIndex...newline)
                        state.withLock { state in
                            if line == "ready" { state.ready = true }
                            if line.hasPrefix("received "), let count = Int(line.dropFirst(9)) {
                                state.received = count
                            }
                            if line.hasPrefix("ended ") { state.ended = String(line.dropFirst(6)) }
                        }
                    }
                }
            }
        }
    }

    static func run(arguments: [String]) async throws {
        var options: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            options[arguments[index]] = arguments[index + 1]
            index += 2
        }
        let minutes = Double(options["--minutes"] ?? "") ?? 10
        let warmup = Double(options["--warmup"] ?? "") ?? 60
        let environment = ProcessInfo.processInfo.environment
        guard let mainworthyURL = environment["MAINWORTHY_URL"].flatMap(URL.init(string:)),
            let omnigentURL = environment["OMNIGENT_URL"].flatMap(URL.init(string:))
        else { throw BenchmarkError("p10: MAINWORTHY_URL and OMNIGENT_URL must be set (scripts/bench p10)") }

        // Mainworthy: a fresh fixture; the reports are posted with the pipeline token.
        let control = Client(
            baseURL: mainworthyURL,
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
        _ = try await control.send(
            Request<JSONValue>.post("/_control/reset", body: ["fixture": "default"] as JSONValue))
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        let token = fixture["pipeline_token"]?.stringValue ?? ""
        // Omnigent: a session of its own to post to.
        let omnigent = try await OmnigentBenchmarks.client(omnigentURL)
        let agent = try await OmnigentBenchmarks.agentID(omnigent)
        let session = try await omnigent.send(try OmnigentAPI.createSession(agentID: agent, title: "P10 long session"))

        let children = [
            try spawn("mainworthy", [mainworthyURL.absoluteString]),
            try spawn("omnigent", [omnigent.baseURL.absoluteString, session.id]),
        ]
        defer { for child in children where child.process.isRunning { child.process.terminate() } }
        let openBy = ContinuousClock.now + .seconds(60)
        while !children.allSatisfy(\.ready) {
            guard ContinuousClock.now < openBy else { throw BenchmarkError("p10: the children did not open in 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }

        let started = ContinuousClock.now
        let end = started + .milliseconds(Int64(minutes * 60_000))
        var nextSample = started
        var tick = 0
        var posted = 0
        while ContinuousClock.now < end {
            let due = started + .milliseconds(Int64(tick * 1000 / rate))
            if ContinuousClock.now < due { try await Task.sleep(until: due, clock: .continuous) }
            if ContinuousClock.now >= nextSample {
                let seconds = (ContinuousClock.now - started).seconds
                for child in children { child.sample(at: seconds) }
                nextSample = nextSample + samplePeriod
            }
            // One event on each stream; a slow answer delays the next tick, not the count.
            let current = tick
            async let report: Void = postReport(control, token: token, index: current)
            async let message: Void = postMessage(omnigent, session: session.id, index: current)
            _ = try await (report, message)
            posted += 1
            tick += 1
        }
        for child in children { child.sample(at: (ContinuousClock.now - started).seconds) }
        try await Task.sleep(for: .seconds(2))
        let title =
            "P10: RSS of a long session, \(posted) events at \(rate)/s over \(minutes) min, after \(Int(warmup)) s warm-up"
        print("\n\(title)")
        print(String(repeating: "-", count: 110))
        print(
            Report.pad("child", 36) + Report.pad("events seen", 13) + Report.pad("RSS at warm-up", 16)
                + Report.pad("RSS at end", 12) + Report.pad("highest after", 15) + "growth")
        for child in children {
            let after = child.samples.filter { $0.0 >= warmup }
            guard let first = after.first?.1, let last = after.last?.1, let highest = after.map(\.1).max() else {
                print("  \(child.name): not enough samples after the warm-up")
                continue
            }
            let growth = Double(last - first) / Double(first)
            let peakGrowth = Double(highest - first) / Double(first)
            print(
                Report.pad(child.name, 36) + Report.pad("\(child.received)", 13)
                    + Report.pad(String(format: "%.1f MiB", Double(first) / 1024), 16)
                    + Report.pad(String(format: "%.1f MiB", Double(last) / 1024), 12)
                    + Report.pad(String(format: "%.1f MiB", Double(highest) / 1024), 15)
                    + String(format: "%+.1f %% (highest %+.1f %%)", growth * 100, peakGrowth * 100))
            guard child.received >= posted * 9 / 10 else {
                let why = child.ended.map { "; its stream ended: \($0)" } ?? ""
                throw BenchmarkError("p10: \(child.name) saw \(child.received) of \(posted) events\(why)")
            }
            Report.record(
                id: "p10", title: title, name: "\(child.name): RSS after the warm-up", seconds: Double(first) / 1024,
                operations: 1, baseline: Double(first) / 1024, unit: "MiB")
            Report.record(
                id: "p10", title: title, name: "\(child.name): RSS at the end", seconds: Double(last) / 1024,
                operations: 1, baseline: Double(first) / 1024, unit: "MiB")
            Report.record(
                id: "p10", title: title, name: "\(child.name): highest RSS after the warm-up",
                seconds: Double(highest) / 1024, operations: 1, baseline: Double(first) / 1024, unit: "MiB")
        }
    }

    static func postReport(_ client: Client, token: String, index: Int) async throws {
        let body = PipelineReport(
            commit: String(format: "c%06x", index), branch: "p10/\(index % 5)",
            results: [.init(test: "p10 › smoke", outcome: "pass")])
        _ = try await client.send(
            MainworthyAPI.report("shop", token: token, body).idempotencyKey("p10-\(index)-\(UUID().uuidString)"))
    }

    static func postMessage(_ client: Client, session: String, index: Int) async throws {
        _ = try await client.send(try OmnigentAPI.appendAssistantMessage(session, agent: "debby", text: "p10-\(index)"))
    }

    static func spawn(_ name: String, _ arguments: [String]) throws -> Child {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["p10-child", name] + arguments
        let output = Pipe()
        process.standardOutput = output
        let child = Child(
            name: name == "mainworthy" ? "Mainworthy core, project stream" : "Omnigent watch client",
            process: process)
        child.listen(output)
        try process.run()
        return child
    }

    /// VmRSS of `pid` in KiB, from /proc.
    static func residentKiB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }

    // MARK: The children

    /// One line to the parent, unbuffered.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// `p10-child mainworthy <url>` or `p10-child omnigent <url> <session>`: follows the stream until killed,
    /// printing `ready` once it follows and `received N` every second.
    @MainActor
    static func child(_ arguments: [String]) async throws {
        guard let kind = arguments.first, arguments.count >= 2, let url = URL(string: arguments[1]) else {
            throw BenchmarkError("usage: p10-child mainworthy <url> | omnigent <url> <session>")
        }
        final class Received: Sendable {
            let count = Locked(0)
        }
        let received = Received()
        Task.detached {
            while true {
                try? await Task.sleep(for: .seconds(1))
                say("received \(received.count.withLock { $0 })")
            }
        }
        switch kind {
        case "mainworthy":
            let control = Client(
                baseURL: url,
                configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
            let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
            let environment = AppEnvironment(
                transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .memory),
                secrets: InMemorySecretStore())
            let build = MainworthyBuild(server: url, version: "bench")
            let signIn = try MainworthySignIn.model(build: build, environment: environment)
            await signIn.submitPassword(
                username: "ada", password: fixture["passwords"]?["ada"]?.stringValue ?? "")
            guard let server = try await MainworthyServer.stored(build: build, environment: environment) else {
                throw BenchmarkError("ada's sign-in stored no session: \(signIn.state)")
            }
            let workspace = MainworthyWorkspace(server: server)
            await workspace.load(preferred: "shop")
            let events = ProjectEvents(workspace: workspace, project: "shop")
            let changes = ChangesModel(workspace: workspace, project: "shop", events: events)
            await workspace.queue?.refresh()
            await changes.refresh()
            final class Counter {}
            let counter = Counter()
            events.subscribe(counter) { _ in received.count.withLock { $0 += 1 } }
            say("ready")
            // Follow until killed; the screens keep the core's state alive. A stream that ends for good (the
            // session gone, as when the stand-in is reset under the run) is said once, so the parent can say why
            // events stopped instead of only counting them.
            var saidEnd = false
            while true {
                try await Task.sleep(for: .seconds(1))
                _ = (changes, counter)
                if !saidEnd, case .failed(let sentence) = events.status {
                    saidEnd = true
                    say("ended \(sentence)\(workspace.signedOut ? " (signed out)" : "")")
                }
            }
        case "omnigent":
            guard arguments.count == 3 else { throw BenchmarkError("p10-child omnigent needs a session id") }
            let cookies = WatchCookieKeeper(
                WatchCookieSync(serverURL: url, cookieHeader: "omnigent_session=header-mode", syncedAt: Date()))
            let watch = WatchClient(
                apiBase: url, cookies: cookies,
                environment: AppEnvironment(
                    transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .memory),
                    secrets: InMemorySecretStore()))
            await watch.open(arguments[2])
            guard watch.detail != nil else { throw BenchmarkError("the watch client could not open the session") }
            let decoder = JSONDecoder()
            var newest: [String] = []
            let stream = watch.live(arguments[2])
            say("ready")
            for try await event in stream {
                guard event.event == "response.output_item.done",
                    let done = try? decoder.decode(OmnigentBenchmarks.ItemDone.self, from: Data(event.data.utf8)),
                    let text = done.item.content?.first?.text
                else { continue }
                // The watch shows the newest 8 messages.
                newest.append(text)
                if newest.count > 8 { newest.removeFirst(newest.count - 8) }
                received.count.withLock { $0 += 1 }
            }
        default:
            throw BenchmarkError("unknown p10 child \(kind)")
        }
    }
}
