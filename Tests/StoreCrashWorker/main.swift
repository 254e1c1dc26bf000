import CompanionCore
import CompanionStore
import Foundation

/// The crash test's child: writes snapshot groups and outbox rows (each with its local change)
/// as fast as it can until it is killed. Usage: StoreCrashWorker <folder> <seed>
///
/// Every group write stamps all members with one fetch time and puts that time in each body, and
/// every outbox row is queued with a resource named after it, so the parent can check after a
/// SIGKILL that each group is whole and each outbox row has its local change.
///
/// Progress goes to standard output, one line each, so the parent can kill at a chosen point instead of after a
/// random sleep: `START` before the store opens, `OPEN` once it is open, `WRITE <n>` before the n-th round of
/// writes begins.
let arguments = CommandLine.arguments
guard arguments.count == 3, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: StoreCrashWorker <folder> <seed>\n".utf8))
    exit(2)
}
let random = SeededRandomSource(seed: seed)
let folder = URL(fileURLWithPath: arguments[1], isDirectory: true)
let scope = AccountKey(serverKey: "crash-test", userID: "worker")

FileHandle.standardOutput.write(Data("START\n".utf8))
do {
    let store = try OfflineStore(scope: scope, location: .directory(folder))
    FileHandle.standardOutput.write(Data("OPEN\n".utf8))
    var step = 0
    while true {
        step += 1
        FileHandle.standardOutput.write(Data("WRITE \(step)\n".utf8))
        let stamp = Date(timeIntervalSince1970: Double(seed) * 1_000_000 + Double(step))
        let name = "group-\(random.next() % 4)"
        let count = Int(random.next() % 6) + 2
        var members: [String: CachedResource] = [:]
        for index in 0..<count {
            let padding = String(repeating: "x", count: Int(random.next() % 4_000))
            members["m\(index)"] = CachedResource(
                key: "GET /\(name)/m\(index)", body: Data("\(stamp.timeIntervalSince1970)|\(padding)".utf8),
                fetchedAt: stamp)
        }
        try await store.writeGroup(name, fetchedAt: stamp, members: members)
        let key = "\(seed)-\(step)"
        try await store.write { transaction throws(StoreError) in
            try transaction.put(CachedResource(key: "local/\(key)", body: Data(key.utf8), fetchedAt: stamp))
            try transaction.enqueue(
                OutboxWrite(
                    method: "PATCH", path: "/v1/x/\(key)", body: Data(key.utf8), subject: "local/\(key)",
                    idempotencyKey: key))
        }
        if step % 50 == 0 {
            // Sent writes leave the outbox with their local change, as a replay would.
            try await store.write { transaction throws(StoreError) in
                for entry in try transaction.outbox().prefix(40) {
                    try transaction.removeFromOutbox(entry.sequence)
                    if let subject = entry.subject { try transaction.removeResource(subject) }
                }
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("worker failed: \(error)\n".utf8))
    exit(1)
}
