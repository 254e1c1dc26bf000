import CompanionCore
import CompanionStore
import Foundation
import Testing

/// A fresh temporary folder per test, removed when the value goes away.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A scope for tests.
func testScope(_ account: String = "local", server: String = "http://127.0.0.1:1") -> StoreScope {
    StoreScope(serverKey: server, accountID: account)
}

/// Waits for `condition` to hold, checking it now and after every change the store commits: an
/// event-driven wait, no sleeping. Tests using it carry a `.timeLimit`, which bounds the wait.
func waitForStore(_ store: OfflineStore, until condition: @Sendable () async throws -> Bool) async throws -> Bool {
    let changes = store.changes()  // subscribe first, so no change between the check and the wait is missed
    if try await condition() { return true }
    for await _ in changes {
        if try await condition() { return true }
    }
    return try await condition()
}

/// JSON bytes of a literal object.
func json(_ object: [String: Any]) -> Data {
    (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
}

/// The package's root folder (for scripts and executables).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
