import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation
import MainworthyCore

/// mw: the time from posting a pipeline report to its `change` event reaching the Mainworthy core
/// through the project's stream (`ProjectEvents`), median of 100, side by side with the same server's
/// reply time to a plain `GET /api/version` and to the report's own POST. Needs the reference server
/// with its control endpoints (`scripts/bench mw` starts it).
enum MainworthyEvents {
    @MainActor
    static func run(url: URL, samples: Int = 100) async throws {
        let control = Client(
            baseURL: url,
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
        _ = try await control.send(
            Request<JSONValue>.post("/_control/reset", body: ["fixture": "default"] as JSONValue))
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        let password = fixture["passwords"]?["ada"]?.stringValue ?? ""
        let token = fixture["pipeline_token"]?.stringValue ?? ""
        let environment = AppEnvironment(
            transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .memory),
            secrets: InMemorySecretStore())
        let build = MainworthyBuild(server: url, version: "bench")
        let signIn = try MainworthySignIn.model(build: build, environment: environment)
        await signIn.submitPassword(username: "ada", password: password)
        guard case .signedIn(let account) = signIn.state else {
            throw MainworthyError.other("ada could not sign in: \(signIn.state)")
        }
        let connection = try await MainworthyServer.open(build: build, account: account, environment: environment)
        let workspace = MainworthyWorkspace(server: connection)
        await workspace.load(preferred: "shop")
        let events = ProjectEvents(workspace: workspace, project: "shop")
        let list = ChangesModel(workspace: workspace, project: "shop", events: events)
        await list.refresh()
        defer { events.stop() }

        final class Arrivals {
            var waiting: (head: String, continuation: CheckedContinuation<Void, Never>)?
        }
        let arrivals = Arrivals()
        events.subscribe(arrivals) { event in
            guard let change = event.change(decodedBy: connection.bundle.client), let waiting = arrivals.waiting,
                change.head == waiting.head
            else { return }
            arrivals.waiting = nil
            waiting.continuation.resume()
        }
        let reporter = Client(
            baseURL: url,
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
        func report(_ n: Int) -> Request<ReportReply> {
            let body = PipelineReport(
                commit: String(format: "b%06x", n), branch: "bench/\(n % 5)",
                results: [.init(test: "bench › smoke", outcome: "pass")])
            return MainworthyAPI.report("shop", token: token, body).idempotencyKey("bench-\(n)-\(UUID().uuidString)")
        }

        var toEvent: [Double] = []
        var toReply: [Double] = []
        var plainGet: [Double] = []
        let clock = ContinuousClock()
        // One warm-up of each path.
        _ = try await connection.bundle.client.send(MainworthyAPI.version())
        for n in 0...samples {
            let head = String(format: "b%06x", n)
            let start = clock.now
            var replied = Duration.zero
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                arrivals.waiting = (head, continuation)
                Task { @MainActor in
                    _ = try? await reporter.send(report(n))
                    replied = clock.now - start
                }
            }
            let arrived = clock.now - start
            let getStart = clock.now
            _ = try await connection.bundle.client.send(MainworthyAPI.version())
            let got = clock.now - getStart
            guard n > 0 else { continue }
            toEvent.append(arrived.msValue)
            if replied > .zero { toReply.append(replied.msValue) }
            plainGet.append(got.msValue)
        }
        let eventMedian = median(toEvent)
        let getMedian = median(plainGet)
        let replyMedian = median(toReply)
        Report.table(
            id: "mw", title: "mw: report → event in the app core (median of \(samples), ms per operation)",
            rows: [
                ("report posted → change event in ProjectEvents", eventMedian / 1000, 1),
                ("POST P/reports → its 202 reply", replyMedian / 1000, 1),
                ("GET /api/version (plain GET)", getMedian / 1000, 1),
            ], baseline: getMedian / 1000, baselineName: "plain GET")
        print(
            String(
                format: "median report→event %.2f ms (p90 %.2f ms), plain GET %.2f ms; goal < 50 ms", eventMedian,
                percentile(toEvent, 0.9), getMedian))
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }
}

extension Duration {
    fileprivate var msValue: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
