import CompanionCore
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

/// A child process writing snapshot groups and outbox rows is SIGKILLed at random moments; after
/// each kill the store must open, pass `PRAGMA integrity_check`, hold every group whole, and hold
/// every outbox row together with its local change.
///
/// `STORE_CRASH_KILLS` sets the number of kills (25 by default; the full run is 200).
@Suite("Crash safety", .serialized)
struct CrashTests {
    static var kills: Int {
        Int(ProcessInfo.processInfo.environment["STORE_CRASH_KILLS"] ?? "") ?? 25
    }

    static func workerURL() throws -> URL {
        // The worker is built next to the test bundle (same products folder).
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        for folder in [products, Bundle.main.bundleURL, packageRoot.appendingPathComponent(".build/debug")] {
            let candidate = folder.appendingPathComponent("StoreCrashWorker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw OwnServerError(description: "StoreCrashWorker is not built; run `swift build --build-tests` first")
    }

    @Test func everyGroupIsWholeAfterRandomKills() async throws {
        let folder = try TemporaryFolder()
        let worker = try Self.workerURL()
        let random = SeededRandomSource(seed: 20_261_129)
        var checkedGroups = 0
        var checkedOutbox = 0
        for round in 0..<Self.kills {
            let process = try ChildProcess.spawn(worker.path, [folder.url.path, "\(round + 1)"], errors: .discard)
            // Kill at a random point, chosen by the seeded source and reached by reading the worker's progress
            // lines (no sleeping): half the time as the store opens (opening, migrating), otherwise some rounds
            // into the writing, while the next round's writes are under way.
            let line: String
            if random.next() % 2 == 0 {
                line = "WRITE \(random.next() % 60 + 1)"
            } else {
                line = "START"
            }
            _ = process.readOutput(through: line)
            process.kill()
            let status = process.wait()
            #expect(status == .signaled(SIGKILL) || status == .exited(0), "round \(round): \(status)")

            let store = try OfflineStore(
                scope: AccountKey(serverKey: "crash-test", userID: "worker"), location: .directory(folder.url))
            #expect(try await store.integrityCheck() == "ok", "round \(round)")
            let problems = try await store.read { transaction throws(StoreError) in
                var problems: [String] = []
                var groups = 0
                for name in try transaction.groupNames() {
                    guard let group = try transaction.group(name) else { continue }
                    groups += 1
                    let head = try transaction.connection.first(
                        "SELECT member_count FROM snapshot_groups WHERE name = ?", [.text(name)])?.int("member_count")
                    if head != group.members.count {
                        problems.append("\(name): \(group.members.count) of \(head ?? -1)")
                    }
                    let stamp = "\(group.fetchedAt.timeIntervalSince1970)|"
                    for (member, resource) in group.members
                    where resource.fetchedAt != group.fetchedAt || !resource.body.starts(with: Data(stamp.utf8)) {
                        problems.append("\(name).\(member) is from another write")
                    }
                }
                var outbox = 0
                for entry in try transaction.outbox() {
                    outbox += 1
                    if let subject = entry.subject, try transaction.resource(subject) == nil {
                        problems.append("outbox \(entry.idempotencyKey) lost its local change")
                    }
                }
                let orphans =
                    try transaction.connection.first(
                        """
                        SELECT count(*) AS n FROM resources r WHERE r.key LIKE 'local/%'
                        AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.subject = r.key)
                        """)?.int("n") ?? 0
                if orphans > 0 { problems.append("\(orphans) local changes without their outbox row") }
                return (problems, groups, outbox)
            }
            #expect(problems.0.isEmpty, "round \(round): \(problems.0.prefix(3))")
            checkedGroups += problems.1
            checkedOutbox += problems.2
        }
        #expect(checkedGroups > 0)
        #expect(checkedOutbox > 0)
    }
}
