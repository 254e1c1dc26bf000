import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

/// One set of date rules: the same reply decodes to the same dates through `Client.send`, the cached
/// fetcher (fresh and from the store) and a fetch group, because every path uses the client's decoder.
@Suite("Typed requests decode dates the same on every path")
struct DateRulesTests {
    /// The fault server's `/echo` returns the query it was sent; the dates are ISO 8601 in four forms.
    struct Echo: Decodable, Sendable, Equatable {
        struct Dates: Decodable, Sendable, Equatable {
            var iso: Date
            var frac: Date
            var offset: Date
            var zoneless: Date
        }
        var query: Dates
    }

    /// `/items` sends `created_at` as Unix seconds.
    struct Items: Decodable, Sendable, Equatable {
        struct Item: Decodable, Sendable, Equatable {
            var id: String
            var createdAt: Date
            enum CodingKeys: String, CodingKey {
                case id
                case createdAt = "created_at"
            }
        }
        var data: [Item]
    }

    let echo = Request<Echo>.get(
        "/echo",
        query: [
            "iso": "2026-11-30T10:00:00Z", "frac": "2026-11-30T10:00:00.123456Z",
            "offset": "2026-11-30T11:00:00+01:00", "zoneless": "2026-11-30T10:00:00",
        ])
    let items = Request<Items>.get("/items", query: ["total": "3", "limit": "3"])

    @Test func oneReplyThroughSendCachedFetcherAndAGroup() async throws {
        let client = try TestClients.fault()
        let store = try OfflineStore(scope: testScope(), location: .memory)
        let fetcher = CachedFetcher(client: client, store: store)

        let sent = try await client.send(echo)
        let fresh = try await fetcher.loadLatest(echo, policy: .fresh)
        let cached = try await fetcher.loadLatest(echo, policy: .offline)
        let group = try await client.fetchGroup(["echo": echo, "items": items])
        let grouped = try group.value(echo, "echo")

        let noon = Date(timeIntervalSince1970: 1_796_032_800)  // 2026-11-30T10:00:00Z
        #expect(sent.query.iso == noon)
        #expect(sent.query.offset == noon)
        #expect(sent.query.zoneless == noon)  // a stamp without a zone is UTC
        #expect(abs(sent.query.frac.timeIntervalSince(noon) - 0.123456) < 0.000_001)
        #expect(fresh.origin == .network && cached.origin == .cache)
        #expect(fresh.value == sent)
        #expect(cached.value == sent)
        #expect(grouped == sent)

        let sentItems = try await client.send(items)
        let cachedItems = try await fetcher.loadLatest(items, policy: .fresh)
        #expect(sentItems.data.first?.createdAt == Date(timeIntervalSince1970: 1_764_400_001))
        #expect(cachedItems.value == sentItems)
        #expect(try group.value(items, "items") == sentItems)
        #expect(try group.decode(Items.self, "items") == sentItems)
    }

    @Test func aGroupMemberThatDoesNotDecodeFailsTheWholeGroup() async throws {
        let client = try TestClients.fault()
        let store = try OfflineStore(scope: testScope(), location: .memory)
        let sync = SnapshotSync(client: client, store: store)
        let first = try await sync.refresh("overview", ["echo": echo, "items": items])
        #expect(first.members.count == 2)
        await #expect(throws: SyncError.self) {
            // `/items` is not an `Echo`: nothing of the group is written.
            _ = try await sync.refresh("overview", ["echo": echo, "wrong": Request<Echo>.get("/items")])
        }
        #expect(try await sync.stored("overview")?.fetchedAt == first.fetchedAt)
    }
}
