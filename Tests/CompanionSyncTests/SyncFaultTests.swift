import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

/// The sync layer against the real fault server (writes counted per Idempotency-Key, SSE drops).
@Suite("Sync against the fault server")
struct SyncFaultTests {
    struct Stats: Decodable, Sendable {
        var attempts: Int
        var effects: Int
    }

    func client(_ url: URL? = nil, retry: RetryPolicy = .never) throws -> Client {
        TestClients.loopback(try url ?? TestServers.fault(), retry: retry)
    }

    func stats(_ key: String) async throws -> Stats {
        try await client().send(Request<Stats>.get("/_stats", query: ["key": key]))
    }

    func memoryStore() throws -> OfflineStore {
        try OfflineStore(scope: testScope(), location: .memory)
    }

    @Test func aLostReplyIsReplayedWithTheSameKeyAndAppliedOnce_MDRAFT5_MNET3() async throws {
        let store = try memoryStore()
        let sender = OutboxSender(store: store)
        let key = sender.makeKey()
        // The server applies the write, then resets the connection before replying (the reply is lost).
        try await sender.enqueue(
            OutboxWrite(
                method: "POST", path: "/write?fail_first=1&mode=reset", body: Data("{}".utf8), idempotencyKey: key)
        ) { transaction throws(StoreError) in
            try transaction.put(
                CachedResource(key: "local/w", body: Data("optimistic".utf8), fetchedAt: transaction.now))
        }
        let first = await sender.replay(through: try client())
        #expect(first.stoppedBy?.isConnectivity == true)
        #expect(first.pending == 1)
        #expect(try await store.outbox().first?.attempts == 1)
        // A restart: a new sender over the same store replays the same row.
        let second = await OutboxSender(store: store).replay(through: try client())
        #expect(second.sent == [key])
        #expect(second.pending == 0)
        let counted = try await stats(key)
        #expect(counted.attempts == 2)
        #expect(counted.effects == 1)
        #expect(try await store.resource("local/w")?.body == Data("optimistic".utf8))
    }

    @Test func aPermanentFailureKeepsTheInputAndTheServersSentence() async throws {
        let store = try memoryStore()
        let sender = OutboxSender(store: store)
        try await sender.enqueue(
            OutboxWrite(
                method: "POST", path: "/status/422?envelope=omnigent", body: Data("typed text".utf8),
                idempotencyKey: sender.makeKey()))
        try await sender.enqueue(
            OutboxWrite(method: "POST", path: "/write", body: Data("{}".utf8), idempotencyKey: sender.makeKey()))
        let report = await sender.replay(through: try client())
        #expect(report.refused.count == 1)
        #expect(report.sent.count == 1)
        let entry = try #require(try await store.outbox().first)
        #expect(entry.state == .failed)
        #expect(entry.body == Data("typed text".utf8))
        #expect(entry.lastError?.contains("The fault server answered 422") == true)
        #expect(entry.serverCode == "validation_error")
        #expect(report.pending == 0)
    }

    @Test func aTransientFailureKeepsTheRowAndTheOrder() async throws {
        let store = try memoryStore()
        let sender = OutboxSender(store: store)
        let firstKey = sender.makeKey()
        try await sender.enqueue(OutboxWrite(method: "POST", path: "/status/503", idempotencyKey: firstKey))
        try await sender.enqueue(OutboxWrite(method: "POST", path: "/write", idempotencyKey: sender.makeKey()))
        let report = await sender.replay(through: try client())
        #expect(report.stoppedBy?.statusCode == 503)
        #expect(report.sent.isEmpty)
        #expect(try await store.outbox().map(\.state) == [.pending, .pending])
        #expect(try await store.outbox().first?.idempotencyKey == firstKey)
    }

    @Test func aConflictIsATypedOutcomeWithBothValues_MQUEUE12_MUNDO3() async throws {
        let outcome = try await OptimisticWrite.send(
            Request<JSONValue>(method: .post, path: "/status/409?envelope=omnigent", body: Data("{}".utf8)),
            basedOn: "decision-1", through: try client())
        guard case .changedMeanwhile(let conflict) = outcome else {
            Issue.record("expected changed meanwhile")
            return
        }
        #expect(conflict.basedOn == "decision-1")
        #expect(conflict.serverCode == "conflict")
        #expect(conflict.serverSentence?.contains("409") == true)
        let applied = try await OptimisticWrite.send(
            Request<JSONValue>(method: .post, path: "/write", body: Data("{}".utf8)).idempotencyKey("ow-1"),
            basedOn: "decision-1", through: try client())
        guard case .applied(let reply) = applied else {
            Issue.record("expected applied")
            return
        }
        #expect(reply["effect"]?.intValue == 1)
    }

    @Test func theCurrentValueIsReadFromTheConflictReply() async throws {
        // Mainworthy's 409 names the current decision; the fault server cannot send that body.
        let transport = ScriptedTransport([
            .respond(
                status: 409, headers: ["Content-Type": "application/json"],
                body: #"{"error":{"code":"decision_changed","message":"Decided meanwhile.","current":"decision-2"}}"#)
        ])
        let client = TestClients.loopback(try #require(URL(string: "http://127.0.0.1:9")), transport: transport)
        let outcome = try await OptimisticWrite.send(
            Request<JSONValue>(method: .post, path: "/q/1/decisions", body: Data("{}".utf8)), basedOn: "decision-1",
            through: client
        ) { envelope in envelope.details?["current"]?.stringValue }
        guard case .changedMeanwhile(let conflict) = outcome else {
            Issue.record("expected changed meanwhile")
            return
        }
        #expect(conflict.current == "decision-2" && conflict.basedOn == "decision-1")
        #expect(conflict.serverSentence == "Decided meanwhile.")
    }

    @Test func networkFailureFallsBackToTheCacheWithItsAge_PTEAM6() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let folder = try TemporaryFolder()
        let store = try OfflineStore(scope: testScope(), location: .directory(folder.url), clock: clock)
        let fetcher = CachedFetcher(client: try client(), store: store)
        let request = Request<Data>.raw(.get, "/ok")
        let fresh = try await fetcher.loadLatest(request, policy: .networkElseCache)
        #expect(fresh.origin == .network)
        clock.advance(by: 700)
        // After a relaunch with the server unreachable, the cached body is still readable.
        let relaunched = try OfflineStore(scope: testScope(), location: .directory(folder.url), clock: clock)
        let offline = CachedFetcher(
            client: try client(URL(string: "http://127.0.0.1:1")), store: relaunched)
        let stale = try await offline.loadLatest(request, policy: .networkElseCache)
        #expect(stale.origin == .cache && stale.isStale)
        #expect(stale.age == 700)
        #expect(stale.failure?.isConnectivity == true)
        #expect(stale.value == fresh.value)
        await #expect {
            _ = try await offline.loadLatest(Request<Data>.raw(.get, "/never-read"), policy: .networkElseCache)
        } throws: { error in
            guard case .offlineWithoutCache = error as? SyncError else { return false }
            return true
        }
    }

    @Test func aReplyThatDoesNotDecodeKeepsTheLastGoodCopy_PTEAM7() async throws {
        let store = try memoryStore()
        let key = "GET /feed"
        try await store.put(CachedResource(key: key, body: Data(#"{"ok":true}"#.utf8), fetchedAt: Date()))
        let fetcher = CachedFetcher(client: try client(), store: store)
        await #expect {
            _ = try await fetcher.loadLatest(Request<JSONValue>.get("/not-json"), key: key, policy: .fresh)
        } throws: { error in
            guard case .undecodable = error as? SyncError else { return false }
            return true
        }
        #expect(try await store.resource(key)?.body == Data(#"{"ok":true}"#.utf8))
    }

    @Test func offlinePolicyWithNothingCachedIsAnErrorNotAnEmptySuccess_COFF3() async throws {
        let fetcher = CachedFetcher(client: try client(), store: try memoryStore())
        await #expect(throws: SyncError.notCached(key: "GET /ok")) {
            _ = try await fetcher.loadLatest(Request<Data>.raw(.get, "/ok"), policy: .offline)
        }
    }

    @Test func staleWhileRevalidatePublishesCachedThenFresh() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        let fetcher = CachedFetcher(client: try client(), store: store)
        let request = Request<Data>.raw(.get, "/ok")
        _ = try await fetcher.loadLatest(request, policy: .fresh)
        clock.advance(by: 42)
        var origins: [Loaded<Data>.Origin] = []
        var ages: [TimeInterval] = []
        for try await loaded in fetcher.load(request, policy: .staleWhileRevalidate) {
            origins.append(loaded.origin)
            ages.append(loaded.age)
        }
        #expect(origins == [.cache, .network])
        #expect(ages == [42, 0])
        var cacheFirst: [Loaded<Data>.Origin] = []
        for try await loaded in fetcher.load(request, policy: .cacheElseNetwork) {
            cacheFirst.append(loaded.origin)
        }
        #expect(cacheFirst == [.cache])
    }

    @Test func validatorsAreSentBackAndA304ConfirmsTheCopy() async throws {
        // The fault server and Omnigent send no validators, so the exchange is scripted.
        let transport = ScriptedTransport([
            .respond(
                status: 200,
                headers: [
                    "Content-Type": "application/json", "ETag": "\"v7\"",
                    "Last-Modified": "Sun, 29 Nov 2026 10:00:00 GMT",
                ], body: "[1,2]"),
            .respond(status: 304),
        ])
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let store = try OfflineStore(scope: testScope(), location: .memory, clock: clock)
        let client = TestClients.loopback(try #require(URL(string: "http://127.0.0.1:9")), transport: transport)
        let fetcher = CachedFetcher(client: client, store: store)
        let request = Request<Data>.raw(.get, "/list")
        _ = try await fetcher.loadLatest(request, policy: .staleWhileRevalidate)
        clock.advance(by: 300)
        let confirmed = try await fetcher.loadLatest(request, policy: .networkElseCache)
        #expect(confirmed.origin == .notModified)
        #expect(confirmed.value == Data("[1,2]".utf8))
        #expect(confirmed.age == 0)
        let second = try #require(transport.requests.last)
        #expect(second.headers["If-None-Match"] == "\"v7\"")
        #expect(second.headers["If-Modified-Since"] == "Sun, 29 Nov 2026 10:00:00 GMT")
        #expect(try await store.resource("GET /list")?.fetchedAt == clock.now())
        let fresh = Request<Data>.raw(.get, "/list")
        _ = try? await fetcher.loadLatest(fresh, policy: .fresh)
        #expect(transport.requests.last?.headers["If-None-Match"] == nil)
    }
}
