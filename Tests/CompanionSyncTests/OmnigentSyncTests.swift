import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

/// The store and sync layers against the real Omnigent 0.19.1 server.
@Suite("Store against a real Omnigent server", .serialized)
struct OmnigentStoreTests {
    typealias Page = TestListPage<JSONValue>

    static func client(_ url: URL, retry: RetryPolicy = .never) -> Client {
        TestClients.loopback(url, retry: retry, timeout: .seconds(5))
    }

    static func createSession(_ client: Client, title: String) async throws -> String {
        let agents = try await client.send(Request<Page>.get("/v1/agents"))
        let agent = try #require(
            agents.data.first(where: { $0["name"]?.stringValue == "debby" })?["id"]?.stringValue
                ?? agents.data.first?["id"]?.stringValue)
        let body = json(["agent_id": agent, "title": title])
        let session = try await client.send(Request<JSONValue>(method: .post, path: "/v1/sessions", body: body))
        return try #require(session["id"]?.stringValue)
    }

    @Test func sessionsStayReadableAndATitleChangeWaitsInTheOutboxWhileTheServerIsDown() async throws {
        let server = try OwnOmnigent()
        var url = try await server.start()
        var client = Self.client(url)
        let session = try await Self.createSession(client, title: "before")
        let folder = try TemporaryFolder()
        let scope = AccountKey(serverKey: "own-omnigent", userID: "local")
        let store = try OfflineStore(scope: scope, location: .directory(folder.url))
        let sessions = Request<Page>.get("/v1/sessions", query: ["limit": "20", "order": "desc"])

        // Online: stale-while-revalidate publishes the network's list (nothing cached yet), then cached + fresh.
        var origins: [Loaded<Page>.Origin] = []
        for try await loaded in CachedFetcher(client: client, store: store).load(
            sessions, policy: .staleWhileRevalidate)
        {
            origins.append(loaded.origin)
        }
        #expect(origins == [.network])
        origins = []
        for try await loaded in CachedFetcher(client: client, store: store).load(
            sessions, policy: .staleWhileRevalidate)
        {
            origins.append(loaded.origin)
            #expect(loaded.value.data.contains { $0["id"]?.stringValue == session })
        }
        #expect(origins == [.cache, .network])

        // The server goes away.
        server.kill()
        var offlineValues: [Loaded<Page>] = []
        await #expect {
            for try await loaded in CachedFetcher(client: client, store: store).load(
                sessions, policy: .staleWhileRevalidate)
            {
                offlineValues.append(loaded)
            }
        } throws: { error in
            guard case .http(let cause) = error as? SyncError else { return false }
            return cause.isConnectivity
        }
        #expect(offlineValues.count == 1)
        #expect(offlineValues.first?.origin == .cache)
        #expect(offlineValues.first?.value.data.contains { $0["id"]?.stringValue == session } == true)
        let reopened = try OfflineStore(scope: scope, location: .directory(folder.url))
        let offline = try await CachedFetcher(client: client, store: reopened).loadLatest(
            sessions, policy: .offline)
        #expect(offline.origin == .cache)

        // A title change while the server is down: applied locally and queued in one transaction.
        let sender = OutboxSender(store: reopened)
        let key = sender.makeKey()
        try await sender.enqueue(
            OutboxWrite(
                method: "PATCH", path: "/v1/sessions/\(session)", body: json(["title": "after"]),
                subject: "session:\(session)", idempotencyKey: key)
        ) { transaction throws(StoreError) in
            try transaction.saveDraft("session:\(session)/title", body: Data("after".utf8))
        }
        let down = await sender.replay(through: client)
        #expect(down.stoppedBy?.isConnectivity == true)
        #expect(try await reopened.outbox().count == 1)

        // The server is back (same data, new port): the write goes through once.
        url = try await server.start()
        client = Self.client(url)
        let back = await sender.replay(through: client) { _, _, transaction throws(StoreError) in
            try transaction.discardDraft("session:\(session)/title")
        }
        #expect(back.sent == [key])
        #expect(back.pending == 0)
        let again = await sender.replay(through: client)
        #expect(again.sent.isEmpty)
        let onServer = try await client.send(Request<JSONValue>.get("/v1/sessions/\(session)"))
        #expect(onServer["title"]?.stringValue == "after")
        #expect(try await reopened.draft("session:\(session)/title") == nil)
        server.kill()
    }
}
