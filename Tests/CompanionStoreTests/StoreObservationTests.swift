import CompanionCore
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

/// A reader observes its region of the store: it hears every committed write of its data and every
/// invalidation of its keys, and nothing else.
@Suite("Store observation by region", .timeLimit(.minutes(1)))
struct StoreObservationTests {
    static func page(_ ids: [String], next: String?) -> ListPage {
        ListPage(items: ids.map { ($0, Data(#"{"id":"\#($0)"}"#.utf8)) }, nextCursor: next)
    }

    @Test("a list's observer hears its writes and invalidations in order, never another key's")
    func observerHearsItsRegionOnly() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: ManualWallClock())
        var events = store.observe(.list("runs")).makeAsyncIterator()
        _ = try await store.write { transaction throws(StoreError) in
            try transaction.storePage(Self.page(["other"], next: nil), list: "decided", replacing: true)
            transaction.invalidate("decided")
        }
        _ = try await store.write { transaction throws(StoreError) in
            try transaction.storePage(Self.page(["r1", "r2"], next: "c"), list: "runs", replacing: true)
        }
        try await store.write { transaction throws(StoreError) in transaction.invalidate("runs") }
        #expect(await events.next() == .written)
        #expect(await events.next() == .invalidated)
    }

    @Test("an item removed from a list leaves it, the others keep their order, and its observers hear it")
    func removeItemKeepsOrder() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: ManualWallClock())
        _ = try await store.write { transaction throws(StoreError) in
            try transaction.storePage(Self.page(["a", "b", "c"], next: nil), list: "queue", replacing: true)
        }
        var events = store.observe(.list("queue")).makeAsyncIterator()
        let removed = try await store.write { transaction throws(StoreError) in
            try transaction.removeItem("b", from: "queue")
        }
        let again = try await store.write { transaction throws(StoreError) in
            try transaction.removeItem("b", from: "queue")
        }
        #expect(removed && !again)
        #expect(try await store.list("queue")?.1.map(\.id) == ["a", "c"])
        #expect(await events.next() == .written)
    }

    @Test("regions: a write of a key, a cleared store and an invalidation touch only the keys they name")
    func regionsMatchTheirKeys() {
        let region = StoreRegion(resources: ["r"], groups: ["g"], lists: ["l"])
        #expect(region.isWritten(by: .resource("r")) && region.isWritten(by: .group("g")))
        #expect(region.isWritten(by: .list("l")) && region.isWritten(by: .cleared))
        #expect(!region.isWritten(by: .list("r")) && !region.isWritten(by: .resource("l")))
        #expect(!region.isWritten(by: .draft("r")) && !region.isWritten(by: .invalidated("r")))
        #expect(region.isInvalidated(by: .invalidated("l")) && !region.isInvalidated(by: .invalidated("x")))
        #expect(!region.isInvalidated(by: .list("l")))
    }
}
