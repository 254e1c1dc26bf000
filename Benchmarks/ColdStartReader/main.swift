import CompanionCore
import CompanionStore

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
// It is its own small executable because that is what a tool or an app that reads the cache links: the store
// and the core, not the HTTP stack. The `Benchmarks` binary links FoundationNetworking, whose libcurl pulls
// about thirty shared libraries into every start (see the P3 section of docs/benchmarks.md), and it uses
// FoundationEssentials where the platform has it, so no ICU tables are linked or loaded.

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

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    fail("usage: ColdStartReader <store-folder> | --start-only   (a folder the p3cold benchmark filled)", code: 2)
}
// Started with nothing to do: the floor of this binary (its loading, the runtime's start and the exit).
if arguments[1] == "--start-only" { exit(0) }
let start = ContinuousClock.now
do {
    let store = try OfflineStore(
        scope: AccountKey(serverKey: "bench", userID: "local"), location: .directory(URL(fileURLWithPath: arguments[1]))
    )
    let first = try await store.read { transaction throws(StoreError) in try transaction.items("sessions", limit: 50) }
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
} catch {
    fail("ColdStartReader: \(error)", code: 1)
}
