import CompanionCore
import CompanionVault
import Foundation

/// P5 taken apart: where the default pull's time goes, step by step, against the batch floor in the same round.
///
/// The default pull runs through `TimedSource` (the same HTTP source, every request's start and end noted) with an
/// observer on its traffic log (every object's verification and decryption noted), so each round gives:
/// - **walk**: from the start to the first blob request: the ref, the branch index, the head commit and the trees
///   level by level, one round trip after another, each answer decrypted and parsed before the next can go;
/// - **blobs**: from the first blob request to the last blob answer (the batch route, 4 in flight);
/// - **hand-over**: from the last answer to the last file decrypted and handed over (the last batch's work);
/// - **pack write**: from there to the pull's return (the pack's index, the cache state).
/// The batch floor (curl sending the same batches, nothing decoded) runs right after, with the server's CPU time
/// for both, so a slow round of the server shows on both sides.
enum VaultSteps {
    /// One request as the timed source saw it.
    struct Exchange: Sendable {
        let fileIDs: [String]
        let started: ContinuousClock.Instant
        let ended: ContinuousClock.Instant
    }

    /// The requests a timed source saw.
    final class ExchangeLog: Sendable {
        let items = Locked<[Exchange]>([])
    }

    /// The HTTP source with every request's time noted.
    struct TimedSource: VaultSource {
        let base: HTTPVaultSource
        let exchanges = ExchangeLog()

        init(base: HTTPVaultSource) { self.base = base }

        var label: String { base.label }
        var batchSize: Int { base.batchSize }

        func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
            let started = ContinuousClock.now
            let response = try await base.read(vaultID: vaultID, fileID: fileID)
            note([fileID], started)
            return response
        }

        func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
            let started = ContinuousClock.now
            let names = try await base.list(vaultID: vaultID, prefix: prefix)
            note(["list " + prefix], started)
            return names
        }

        func readBatch(vaultID: String, fileIDs: [String]) async throws(VaultError) -> [String: VaultResponse] {
            let started = ContinuousClock.now
            let responses = try await base.readBatch(vaultID: vaultID, fileIDs: fileIDs)
            note(fileIDs, started)
            return responses
        }

        private func note(_ fileIDs: [String], _ started: ContinuousClock.Instant) {
            let exchange = Exchange(fileIDs: fileIDs, started: started, ended: .now)
            exchanges.items.withLock { $0.append(exchange) }
        }
    }

    /// One round's steps, in seconds.
    struct Round {
        var total = 0.0
        var walk = 0.0
        var walkRequests = 0
        var walkWaiting = 0.0
        var blobs = 0.0
        var handOver = 0.0
        var packWrite = 0.0
        var serverCPU = 0.0
        var clientCPU = 0.0
        var floor = 0.0
        var floorServerCPU = 0.0
    }

    /// Pulls the vault once by default into `cache`, timed step by step; the files and bytes handed over are checked.
    static func timedPull(server: URL, key: VaultKey, cache: URL, serverGroup: Int32?) async throws -> Round {
        let source = TimedSource(base: HTTPVaultSource(server: server, policy: .allowingInsecureLoopback))
        let log = VaultTrafficLog(capacity: 10)
        let lastWork = Locked<Date?>(nil)
        log.observe { event in
            if event.kind == .decrypt || event.kind == .verify {
                lastWork.withLock { $0 = max($0 ?? event.at, event.at) }
            }
        }
        let vault = try SGitVault(key: key, source: source, cache: cache, log: log)
        let handed = Locked(0)
        let handedAt = Locked<ContinuousClock.Instant?>(nil)
        var round = Round()
        let serverCPU0 = serverGroup.map(ProcessCPU.group) ?? 0
        let clientCPU0 = ProcessCPU.current()
        let started = ContinuousClock.now
        let startedDate = Date()
        try await vault.pull { _, _ in
            let now = ContinuousClock.now
            handed.withLock { $0 += 1 }
            handedAt.withLock { $0 = max($0 ?? now, now) }
        }
        let ended = ContinuousClock.now
        round.total = (ended - started).seconds
        round.serverCPU = (serverGroup.map(ProcessCPU.group) ?? 0) - serverCPU0
        round.clientCPU = ProcessCPU.current() - clientCPU0
        let files = try await vault.files()
        let blobIDs = Set(files.map { "bare/data/" + $0.blobID })
        guard handed.withLock({ $0 }) == files.count else {
            throw BenchmarkError("the timed pull handed over \(handed.withLock { $0 }) of \(files.count) files")
        }
        let exchanges = source.exchanges.items.withLock { $0 }.sorted { $0.started < $1.started }
        let blobExchanges = exchanges.filter { $0.fileIDs.contains(where: blobIDs.contains) }
        guard let firstBlob = blobExchanges.first?.started, let lastBlob = blobExchanges.map(\.ended).max() else {
            throw BenchmarkError("the timed pull sent no blob request")
        }
        let walk = exchanges.filter { $0.started < firstBlob }
        if ProcessInfo.processInfo.environment["BENCH_P5_WALK"] != nil {
            for exchange in walk {
                print(
                    String(
                        format: "    walk request at %.1f ms for %.1f ms: %d ids, first %@",
                        (exchange.started - started).seconds * 1000, (exchange.ended - exchange.started).seconds * 1000,
                        exchange.fileIDs.count, exchange.fileIDs.first ?? ""))
            }
        }
        round.walk = (firstBlob - started).seconds
        round.walkRequests = walk.count
        round.walkWaiting = walk.reduce(0) { $0 + ($1.ended - $1.started).seconds }
        round.blobs = (lastBlob - firstBlob).seconds
        let lastHandOver = handedAt.withLock { $0 } ?? lastBlob
        // The log's dates are wall-clock; the last verification or decryption, as an offset from the start.
        let lastLogged = lastWork.withLock { $0 }.map { started + .seconds($0.timeIntervalSince(startedDate)) }
        let workEnd = max(lastHandOver, lastLogged ?? lastHandOver)
        round.handOver = max(0, (workEnd - lastBlob).seconds)
        round.packWrite = max(0, (ended - max(workEnd, lastBlob)).seconds)
        return round
    }

    /// `rounds` rounds of the timed default pull, each followed by the batch floor; prints each round and records
    /// the medians (id `p5s`, against the batch floor).
    static func run(server: URL, key: VaultKey, serverGroup: Int32?, rounds: Int, scratch: URL) async throws {
        var all: [Round] = []
        for index in 0..<rounds {
            var round = try await timedPull(
                server: server, key: key, cache: scratch.appendingPathComponent("steps-\(index)"),
                serverGroup: serverGroup)
            let cached = try SGitVault(
                key: key, source: HTTPVaultSource(server: server, policy: .allowingInsecureLoopback),
                cache: scratch.appendingPathComponent("steps-\(index)"), log: VaultTrafficLog())
            let config = try VaultBenchmark.batchFloorConfig(
                names: cached.cachedObjectIDs().sorted(), server: server, key: key, scratch: scratch)
            let serverCPU0 = serverGroup.map(ProcessCPU.group) ?? 0
            round.floor = try VaultBenchmark.batchFloor(config)
            round.floorServerCPU = (serverGroup.map(ProcessCPU.group) ?? 0) - serverCPU0
            all.append(round)
            print(
                String(
                    format:
                        "  steps round %d: default %.3f s = walk %.3f s (%d requests, %.3f s waiting for them) + blobs "
                        + "%.3f s + hand-over %.3f s + pack write %.3f s; cpu %.3f s, server cpu %.3f s; batch floor "
                        + "%.3f s (server cpu %.3f s)",
                    index, round.total, round.walk, round.walkRequests, round.walkWaiting, round.blobs, round.handOver,
                    round.packWrite, round.clientCPU, round.serverCPU, round.floor, round.floorServerCPU))
        }
        func middle(_ value: (Round) -> Double) -> Double { median(all.map(value)) }
        let floor = middle(\.floor)
        let walkRequests = all.map(\.walkRequests).max() ?? 0
        Report.table(
            id: "p5s",
            title: "P5 steps: the default pull step by step against the batch floor, median of \(rounds) rounds",
            rows: [
                ("default pull, whole", middle(\.total), 1),
                ("  walk: \(walkRequests) requests before the first blob", middle(\.walk), walkRequests),
                ("  blobs: first blob request to last answer", middle(\.blobs), 1),
                ("  hand-over: last answer to last file handed over", middle(\.handOver), 1),
                ("  pack write: to the pull's return", middle(\.packWrite), 1),
                ("batch floor (curl, same batches, nothing decoded)", floor, 1),
                ("server CPU during the default pull", middle(\.serverCPU), 1),
                ("server CPU during the batch floor", middle(\.floorServerCPU), 1),
            ], baseline: floor, baselineName: "batch floor")
    }
}
