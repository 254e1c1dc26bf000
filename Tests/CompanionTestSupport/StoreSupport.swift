import CompanionCore
import CompanionStore
import Foundation

/// A store scope for tests.
public func testScope(_ account: String = "local", server: String = "http://127.0.0.1:1") -> AccountKey {
    AccountKey(serverKey: server, userID: account)
}

/// Waits for `condition` to hold, checking it now and after every change the store commits: an
/// event-driven wait, no sleeping. Tests using it carry a `.timeLimit`, which bounds the wait.
public func waitForStore(_ store: OfflineStore, until condition: @Sendable () async throws -> Bool) async throws
    -> Bool
{
    let changes = store.changes()  // subscribe first, so no change between the check and the wait is missed
    if try await condition() { return true }
    for await _ in changes {
        if try await condition() { return true }
    }
    return try await condition()
}

/// JSON bytes of a literal object.
public func json(_ object: [String: Any]) -> Data {
    (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
}
