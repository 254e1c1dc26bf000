import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

/// A snapshot group's members are stored apart from the same requests read on their own, so a screen that
/// reads one member alone never breaks the group's offline copy (against the fault server).
@Suite("Snapshot members and standalone reads of the same request")
struct SnapshotMemberKeyTests {
    @Test("reading a member's request alone keeps the stored group whole, and the group keeps the standalone copy")
    func aStandaloneReadLeavesTheGroupWhole() async throws {
        let client = try TestClients.fault()
        let store = try OfflineStore(
            scope: AccountKey(serverKey: "fault", userID: "keys"), location: .memory, clock: ManualWallClock())
        let sync = SnapshotSync(client: client, store: store)
        let fetcher = CachedFetcher(client: client, store: store)
        let items = Request<JSONValue>.get("/items", query: ["limit": "1"])
        let json = Request<JSONValue>.get("/json")
        let pair = Snapshot<[JSONValue]>("pair", members: ["items": items, "json": json]) {
            members throws(HTTPError) in
            [try members.value(items), try members.value(json)]
        }
        let grouped = try await sync.refresh(pair.name, pair.members)
        // The same request read alone, after the group and before it again.
        let alone = try await fetcher.loadLatest(items, policy: .fresh)
        let stored = try #require(try await sync.stored(pair))
        #expect(stored.fetchedAt == grouped.fetchedAt)
        #expect(stored.value.first == alone.value)
        _ = try await sync.refresh(pair.name, pair.members)
        let cached = try #require(try await store.resource(CachedFetcher.key(for: items)))
        #expect(cached.group == nil)
        #expect(cached.fetchedAt == alone.fetchedAt)
    }
}
