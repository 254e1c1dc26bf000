import CompanionCore
import CompanionStore
import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

// P3 cold's measured process: opens the offline store in the folder given as its argument with the kit's
// `OfflineStore`, reads the first 50 items of the `sessions` list, decodes each and prints its id and title,
// one per line, then `#` and the seconds it spent inside main. With `--start-only` it exits at once.
//
// It is its own small executable because that is what a tool or an app that only reads the cache links: the
// store and the core, not the HTTP stack. The `Benchmarks` binary links FoundationNetworking, whose libcurl
// loads about thirty shared libraries at every start; the P3 section of docs/benchmarks.md has the figures.

/// A stored item as the p3cold benchmark wrote it (the size of a sessions-list row).
struct Item: Decodable {
    var id: String
    var title: String
    var status: String
    var createdAt: Int
    var text: String
}

/// Writes a sentence to standard error and exits with `code`.
func fail(_ message: String, code: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

/// Opens the store, reads and decodes the first 50 items and prints them with the time spent; then exits.
func read(_ path: String) async -> Never {
    let start = ContinuousClock.now
    do {
        let store = try OfflineStore(
            scope: AccountKey(serverKey: "bench", userID: "local"), location: .directory(URL(fileURLWithPath: path)))
        let first = try await store.read { transaction throws(StoreError) in
            try transaction.items("sessions", limit: 50)
        }
        let decoder = JSONDecoder()
        var text = ""
        for item in first {
            let decoded = try decoder.decode(Item.self, from: item.body)
            text += decoded.id + " " + decoded.title + "\n"
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // The time spent inside main, for the breakdown (the rest of the process's time is its start and exit).
        print(text + "#\(seconds)")
        exit(0)
    } catch {
        fail("ColdStartReader: \(error)", code: 1)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    fail("usage: ColdStartReader <store-folder> | --start-only   (a folder the p3cold benchmark filled)", code: 2)
}
// Started with nothing to do: the floor of this binary (its loading, the runtime's start and the exit).
if arguments[1] == "--start-only" { exit(0) }
// Not an async top-level: its main thread would end in `dispatch_main()`, whose `pthread_exit` unwinds the
// main thread's stack. The work runs on the global executor while the main thread waits, and `exit` ends both.
let path = arguments[1]
Task.detached { await read(path) }
DispatchSemaphore(value: 0).wait()
