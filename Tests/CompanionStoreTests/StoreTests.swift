import CompanionCore
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

@Suite("Offline store")
struct StoreTests {
    let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))

    func store(_ folder: TemporaryFolder, _ scope: AccountKey = testScope()) throws -> OfflineStore {
        try OfflineStore(scope: scope, location: .directory(folder.url), clock: clock)
    }

    @Test func cachedResourceKeepsBodyValidatorsAndFetchTimeAcrossReopen_PTEAM5() async throws {
        let folder = try TemporaryFolder()
        let key = CacheKey.make(path: "/v1/sessions?order=desc&limit=20")
        #expect(key == "GET /v1/sessions?limit=20&order=desc")
        try await store(folder).put(
            CachedResource(
                key: key, body: Data("[1]".utf8), mediaType: "application/json", etag: "\"v1\"",
                lastModified: "Sun, 29 Nov 2026 10:00:00 GMT", fetchedAt: clock.now()))
        clock.advance(by: 90)
        let reopened = try store(folder)
        let cached = try #require(try await reopened.resource(key))
        #expect(cached.body == Data("[1]".utf8))
        #expect(cached.etag == "\"v1\"")
        #expect(cached.age(at: clock.now()) == 90)
    }

    @Test func oneDatabasePerServerAndAccount_COFF4() async throws {
        let folder = try TemporaryFolder()
        let ada = try store(folder, testScope("ada"))
        try await ada.saveDraft("case:C-12", body: Data("ada's text".utf8))
        try await ada.put(CachedResource(key: "GET /x", body: Data("1".utf8), fetchedAt: clock.now()))
        let bo = try store(folder, testScope("bo"))
        let otherServer = try store(folder, testScope("ada", server: "https://other.example"))
        #expect(try await bo.draft("case:C-12") == nil)
        #expect(try await bo.resource("GET /x") == nil)
        #expect(try await otherServer.draft("case:C-12") == nil)
        #expect(ada.fileURL != bo.fileURL)
    }

    @Test func draftsSurviveSignOutAndSignInAsTheSameUser() async throws {
        let folder = try TemporaryFolder()
        let registry = StoreRegistry(location: .directory(folder.url), clock: clock)
        try await registry.store(for: testScope("ada")).saveDraft("case:C-12", body: Data("steps".utf8))
        // Sign-out drops the app's reference; the same user signs in again on the same server.
        let again = try OfflineStore(scope: testScope("ada"), location: .directory(folder.url), clock: clock)
        #expect(try await again.draft("case:C-12")?.body == Data("steps".utf8))
        #expect(try await registry.store(for: testScope("bo")).draft("case:C-12") == nil)
    }

    @Test func inMemoryDraftsLiveAsLongAsTheProcess() async throws {
        let registry = StoreRegistry(location: .memory, clock: clock)
        try await registry.store(for: testScope("ada")).saveDraft("case:C-1", body: Data("x".utf8))
        #expect(try await registry.store(for: testScope("ada")).draft("case:C-1")?.body == Data("x".utf8))
        #expect(try await registry.store(for: testScope("ada")).fileURL == nil)
        let fresh = StoreRegistry(location: .memory, clock: clock)
        #expect(try await fresh.store(for: testScope("ada")).draft("case:C-1") == nil)
    }

    @Test func wipeOnRevocationDeletesOnlyThatAccountsData_COFF5() async throws {
        let folder = try TemporaryFolder()
        let registry = StoreRegistry(location: .directory(folder.url), clock: clock)
        try await registry.store(for: testScope("ada")).saveDraft("d", body: Data("1".utf8))
        try await registry.store(for: testScope("bo")).saveDraft("d", body: Data("2".utf8))
        try await registry.wipe(testScope("ada"))
        #expect(try await registry.store(for: testScope("ada")).draft("d") == nil)
        #expect(try await registry.store(for: testScope("bo")).draft("d")?.body == Data("2".utf8))
    }

    @Test func aGroupIsReplacedWholeWithOneFetchTime_COVER2() async throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let first = clock.now()
        try await store.writeGroup(
            "overview", fetchedAt: first,
            members: [
                "accounts": CachedResource(key: "GET /api/accounts", body: Data("a1".utf8), fetchedAt: first),
                "budget": CachedResource(key: "GET /api/budget", body: Data("b1".utf8), fetchedAt: first),
                "old": CachedResource(key: "GET /api/old", body: Data("o1".utf8), fetchedAt: first),
            ])
        clock.advance(by: 60)
        let second = clock.now()
        try await store.writeGroup(
            "overview", fetchedAt: second,
            members: [
                "accounts": CachedResource(key: "GET /api/accounts", body: Data("a2".utf8), fetchedAt: first),
                "budget": CachedResource(key: "GET /api/budget", body: Data("b2".utf8), fetchedAt: first),
            ])
        let group = try #require(try await store.group("overview"))
        #expect(group.generation == 2)
        #expect(Set(group.members.keys) == ["accounts", "budget"])
        #expect(group.members.values.allSatisfy { $0.fetchedAt == second })
        #expect(group.members["budget"]?.body == Data("b2".utf8))
        #expect(try await store.resource("GET /api/old") == nil)
    }

    @Test func aFailedGroupWriteKeepsThePreviousGroup_COVER3() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        let first = clock.now()
        try await store.writeGroup(
            "overview", fetchedAt: first,
            members: ["a": CachedResource(key: "GET /a", body: Data("1".utf8), fetchedAt: first)])
        await #expect(throws: StoreError.self) {
            try await store.write { transaction throws(StoreError) in
                try transaction.writeGroup(
                    "overview", fetchedAt: first.addingTimeInterval(5),
                    members: ["a": CachedResource(key: "GET /a", body: Data("2".utf8), fetchedAt: first)])
                throw StoreError.invalidArgument("the fetch failed halfway")
            }
        }
        let group = try #require(try await store.group("overview"))
        #expect(group.fetchedAt == first)
        #expect(group.members["a"]?.body == Data("1".utf8))
    }

    @Test func pagesAppendInOrderWithoutDuplicateIds_CTXN4() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        @Sendable func page(_ ids: [String], next: String?) -> ListPage {
            ListPage(items: ids.map { ($0, Data($0.utf8)) }, nextCursor: next, revision: "r1")
        }
        try await store.write { transaction throws(StoreError) in
            try transaction.storePage(page(["a", "b", "c"], next: "c"), list: "cases", replacing: true)
            let added = try transaction.storePage(page(["c", "d", "e"], next: "e"), list: "cases", replacing: false)
            #expect(added == 2)
            try transaction.storePage(page(["f"], next: nil), list: "cases", replacing: false)
        }
        let (state, items) = try #require(try await store.list("cases"))
        #expect(items.map(\.id) == ["a", "b", "c", "d", "e", "f"])
        #expect(items.map(\.page) == [0, 0, 0, 1, 1, 2])
        #expect(state.isComplete && state.nextCursor == nil && state.pageCount == 3 && state.itemCount == 6)
        let second = try await store.read { transaction throws(StoreError) in
            try transaction.items("cases", offset: 2, limit: 2)
        }
        #expect(second.map(\.id) == ["c", "d"])
        let replaced = try await store.write { transaction throws(StoreError) in
            try transaction.storePage(page(["z"], next: "z"), list: "cases", replacing: true)
        }
        #expect(replaced == 1)
        #expect(try await store.list("cases")?.1.map(\.id) == ["z"])
    }

    @Test func recentListsKeepTheListsLeftMostRecently() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        var evicted: [String] = []
        for index in 0..<41 {
            clock.advance(by: 1)
            let key = "list-\(index)"
            evicted += try await store.write { transaction throws(StoreError) in
                try transaction.storePage(ListPage(items: [("x", Data())], nextCursor: nil), list: key, replacing: true)
                return try transaction.leaveList(key, capacity: 40)
            }
        }
        #expect(evicted == ["list-0"])
        #expect(try await store.list("list-0") == nil)
        let recent = try await store.read { transaction throws(StoreError) in try transaction.recentLists() }
        #expect(recent.count == 40)
        #expect(recent.first == "list-40")
    }

    @Test func outboxRowIsWrittenInTheSameTransactionAsTheLocalChange() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        let write = OutboxWrite(method: "PATCH", path: "/v1/sessions/1", body: Data("{}".utf8), idempotencyKey: "k1")
        await #expect(throws: StoreError.self) {
            try await store.write { transaction throws(StoreError) in
                try transaction.put(
                    CachedResource(key: "GET /v1/sessions/1", body: Data("new".utf8), fetchedAt: transaction.now))
                try transaction.enqueue(write)
                try transaction.enqueue(write)  // the same key twice: refused, so nothing is kept
            }
        }
        #expect(try await store.outbox().isEmpty)
        #expect(try await store.resource("GET /v1/sessions/1") == nil)
    }

    @Test func pendingCountIsObservable() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        let counts = try await store.pendingCounts()
        var iterator = counts.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        let sequence = try await store.write { transaction throws(StoreError) in
            try transaction.enqueue(OutboxWrite(method: "POST", path: "/w", idempotencyKey: "a"))
        }
        #expect(await iterator.next() == 1)
        try await store.write { transaction throws(StoreError) in
            try transaction.recordFailure(sequence, sentence: "No.", serverCode: "bad", permanent: true)
        }
        #expect(await iterator.next() == 0)
        let entry = try #require(try await store.outbox().first)
        #expect(entry.state == .failed && entry.lastError == "No." && entry.attempts == 1)
    }

    @Test func storageReportListsFilesRowsAndAges_PDEBUG5() async throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        try await store.put(CachedResource(key: "GET /a", body: Data(count: 100), fetchedAt: clock.now()))
        try await store.saveDraft("d", body: Data("x".utf8))
        clock.advance(by: 30)
        let report = try await store.report()
        #expect(report.files.map(\.name).contains(store.scope.storageName + ".sqlite"))
        #expect(report.totalBytes > 0)
        #expect(report.rowCounts["resources"] == 1 && report.rowCounts["drafts"] == 1)
        #expect(report.entries.first?.bytes == 100 && report.entries.first?.age == 30)
        #expect(report.schemaVersion == 1)
        try await store.clearCache()
        #expect(try await store.report().rowCounts["resources"] == 0)
        #expect(try await store.draft("d") != nil)
    }

    @Test func aStatementInAnErrorIsOneLineWithoutItsIndentation() {
        let sql = "\n    SELECT item_id\n\t  FROM list_items  \r\n      WHERE list_key = ?   \n"
        let error = StoreError.sqlite(code: 1, message: "no such table: list_items", sql: sql)
        #expect(
            error.description
                == "The offline store refused a statement (SQLite 1: no such table: list_items) in: "
                + "SELECT item_id FROM list_items WHERE list_key = ?")
        let long = StoreError.busy(sql: String(repeating: "x ", count: 100)).description
        #expect(long.hasSuffix("..."))
    }

    @Test func changesArePublishedAfterCommit() async throws {
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        var changes = store.changes().makeAsyncIterator()
        try await store.saveDraft("s", body: Data())
        #expect(await changes.next() == .draft("s"))
    }
}
