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

    static func post(_ client: Client, session: String, text: String) async throws {
        let body = json(["type": "external_assistant_message", "data": ["agent": "debby", "text": text]])
        _ = try await client.send(
            Request<JSONValue>(method: .post, path: "/v1/sessions/\(session)/events", body: body))
    }

    static func itemsList(_ store: OfflineStore, _ client: Client, session: String) -> PagedList {
        PagedList(store: store, key: "items:\(session)") { cursor in
            let page = try await client.send(
                Request<Page>.get(
                    "/v1/sessions/\(session)/items", query: ["limit": "2", "order": "asc", "after": cursor]))
            return ListPage(
                items: try page.data.map { item in
                    (try #require(item["id"]?.stringValue), Data(item.jsonString().utf8))
                }, nextCursor: page.hasMore ? page.lastID : nil)
        }
    }

    @Test func aSessionsItemsArePagedIntoTheStore() async throws {
        let client = Self.client(try TestServers.omnigent())
        let session = try await Self.createSession(client, title: "store paging \(UUID().uuidString.prefix(6))")
        for index in 0..<5 { try await Self.post(client, session: session, text: "item \(index)") }
        let store = try OfflineStore(scope: testScope(), location: .memory)
        let list = Self.itemsList(store, client, session: session)
        var state = try await list.refresh()
        #expect(state.itemCount == 2 && !state.isComplete)
        state = try await list.loadAll()
        #expect(state.isComplete)
        let items = try #require(try await store.list("items:\(session)")).1
        #expect(items.count == 5)
        #expect(Set(items.map(\.id)).count == 5)
        let texts = items.compactMap { JSONValue(data: $0.body)?["content"]?[0]?["text"]?.stringValue }
        #expect(texts == (0..<5).map { "item \($0)" })
    }

    @Test(.timeLimit(.minutes(1))) func postedItemsArriveThroughTheStreamIntoTheStore() async throws {
        let client = Self.client(try TestServers.omnigent(), retry: RetryPolicy())
        let session = try await Self.createSession(client, title: "store live \(UUID().uuidString.prefix(6))")
        let store = try OfflineStore(scope: testScope(), location: .memory)
        let key = "items:\(session)"
        let list = Self.itemsList(store, client, session: session)
        let live = LiveUpdates(client: client, store: store, name: "session:\(session)")
        let (connected, signal) = AsyncStream<Void>.makeStream()
        let follower = Task {
            try await live.run(
                .empty(.get, "/v1/sessions/\(session)/stream"), connectEvent: "session.presence",
                onConnect: {
                    // Omnigent sends no event ids: catch up by reading the list on every (re)connection.
                    try await list.loadAll()
                    signal.yield()
                }
            ) { event, transaction throws(StoreError) in
                guard event.event == "response.output_item.done",
                    let item = JSONValue(data: Data(event.data.utf8))?["item"],
                    let id = item["id"]?.stringValue
                else { return }
                try transaction.appendItem(id, to: key, body: Data(item.jsonString().utf8))
            }
        }
        defer { follower.cancel() }
        // Wait for the stream to be open (the first `session.presence` and catch-up read).
        var connections = connected.makeAsyncIterator()
        #expect(await connections.next() != nil)
        let texts = (0..<3).map { "live \($0) \(UUID().uuidString.prefix(4))" }
        for text in texts { try await Self.post(client, session: session, text: text) }
        let arrived = try await waitForStore(store) {
            try await store.list(key)?.0.itemCount == 3
        }
        #expect(arrived)
        let stored = try #require(try await store.list(key)).1
        #expect(stored.compactMap { JSONValue(data: $0.body)?["content"]?[0]?["text"]?.stringValue } == texts)
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
