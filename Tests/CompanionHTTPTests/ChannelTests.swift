import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The fault server's /app sign-in (`WSFaultServer.dialect`).
func faultDialect(token: String = WSFaultServer.token) -> NumberedJSONDialect { WSFaultServer.dialect(token: token) }

/// The request's result or its error, as a value.
func outcome(_ body: () async throws(ChannelError) -> JSONValue) async -> Result<JSONValue, ChannelError> {
    do throws(ChannelError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Counts the connections a channel opens (the real transport underneath).
final class CountingTransport: ChannelTransport {
    private let inner: any ChannelTransport
    private let count = Locked(0)

    init(_ inner: any ChannelTransport) { self.inner = inner }

    var opens: Int { count.withLock { $0 } }

    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        count.withLock { $0 += 1 }
        return try await inner.open(request)
    }
}

/// The real transport underneath, telling `written` each time a message containing `marker` is handed to the
/// network: a test can then act after a request is on the wire, without waiting on time.
final class WriteWatchingTransport: ChannelTransport {
    private let inner: any ChannelTransport
    private let marker: String
    private let written: AsyncStream<Void>.Continuation

    init(_ inner: any ChannelTransport, marker: String, written: AsyncStream<Void>.Continuation) {
        self.inner = inner
        self.marker = marker
        self.written = written
    }

    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        Watched(inner: try await inner.open(request), marker: marker, written: written)
    }

    private final class Watched: ChannelSocket {
        let inner: any ChannelSocket
        let marker: String
        let written: AsyncStream<Void>.Continuation

        init(inner: any ChannelSocket, marker: String, written: AsyncStream<Void>.Continuation) {
            self.inner = inner
            self.marker = marker
            self.written = written
        }

        var messages: AsyncThrowingStream<ChannelMessage, any Error> { inner.messages }

        func send(_ message: ChannelMessage) async throws(ChannelError) {
            try await inner.send(message)
            if message.text?.contains(marker) == true { written.yield() }
        }

        func ping() async throws(ChannelError) { try await inner.ping() }

        func close(_ code: WebSocketCloseCode, reason: String) async { await inner.close(code, reason: reason) }
    }
}

/// Waits (bounded) until the channel's state satisfies `condition`; returns the states seen on the way.
@discardableResult
func waitForState(
    _ channel: ChannelConnection, within limit: Duration = .seconds(20),
    _ condition: @escaping @Sendable (ChannelState) -> Bool
) async throws -> [ChannelState] {
    let states = await channel.states()
    // The bound is a one-shot timer (not a sleep): it ends this stream, and the task reading it ends with it, or at
    // once when the group is cancelled because the state came first.
    let expiry = AsyncStream<Void>.makeStream()
    _ = Expiry(after: limit) { expiry.continuation.finish() }
    let seen = try await withThrowingTaskGroup(of: [ChannelState]?.self) { group in
        group.addTask {
            var seen: [ChannelState] = []
            for await state in states {
                seen.append(state)
                if condition(state) { return seen }
            }
            return nil
        }
        group.addTask {
            for await _ in expiry.stream {}
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
    return try #require(seen, "the channel did not reach the state in \(limit)")
}

@Suite("Channels: WebSocket against Servers/wsfault", .timeLimit(.minutes(2)))
struct ChannelTests {
    private func channel(
        token: String = WSFaultServer.token, policy: ReconnectPolicy = ReconnectPolicy(jitter: 0),
        sleeper: any Sleeper = TaskSleeper(), journal: Journal = Journal(), transport: (any ChannelTransport)? = nil
    ) throws -> ChannelConnection {
        ChannelConnection(
            ChannelRequest(url: try WSFault.url("/app")), transport: transport ?? WSFault.transport(),
            dialect: faultDialect(token: token), policy: policy, sleeper: sleeper, journal: journal)
    }

    @Test("K-CH-1: requests are numbered and replies matched by id; a server error is its code and message")
    func requestReply() async throws {
        let channel = try channel()
        await channel.start()
        async let first = channel.send(["type": "echo", "payload": "one"])
        async let second = channel.send(["type": "echo", "payload": ["n": 2]])
        #expect(try await first == "one")
        #expect(try await second == ["n": 2])
        await #expect(throws: ChannelError.server(code: "nope", message: "It failed.")) {
            try await channel.send(["type": "fail"])
        }
        #expect(await channel.state == .ready)
        await channel.stop()
        #expect(await channel.state == .disconnected(.stopped))
    }

    @Test("K-CH-1: a reply goes to the request with its id, not to the oldest one waiting")
    func repliesByIDNotByOrder() async throws {
        let hangWritten = AsyncStream<Void>.makeStream()
        let channel = try channel(
            transport: WriteWatchingTransport(
                WSFault.transport(), marker: #""type":"hang""#, written: hangWritten.continuation))
        await channel.start()
        // The first request is on the wire and never answered; the second's reply comes while it waits.
        async let stuck = outcome { () async throws(ChannelError) in try await channel.send(["type": "hang"]) }
        var written = hangWritten.stream.makeAsyncIterator()
        _ = await written.next()
        #expect(try await channel.send(["type": "echo", "payload": "three"]) == "three")
        await channel.stop()
        guard case .failure = await stuck else {
            Issue.record("the unanswered request got a reply")
            return
        }
    }

    @Test("K-CH-2: a subscription delivers events until cancelled; an array frame's messages are handled in order")
    func subscriptionsAndArrays() async throws {
        let channel = try channel()
        await channel.start()
        var events = await channel.subscribe(["type": "subscribe", "every_ms": 20, "count": 3]).makeAsyncIterator()
        #expect(try await events.next() == ["n": 0])
        #expect(try await events.next() == ["n": 1])
        #expect(try await events.next() == ["n": 2])
        // One frame: [event of the latest subscription, this request's result].
        let quiet = await channel.subscribe(["type": "subscribe", "every_ms": 600_000])
        var quietEvents = quiet.makeAsyncIterator()
        #expect(try await channel.send(["type": "coalesce"]) == ["ok": true])
        #expect(try await quietEvents.next() == ["n": -1])
        await channel.stop()
    }

    @Test("K-CH-3: a drop fails every pending request (never a hang) and the write is not sent again")
    func dropWithPending() async throws {
        let counting = CountingTransport(WSFault.transport())
        let channel = try channel(transport: counting)
        await channel.start()
        try await waitForState(channel) { $0 == .ready }
        let key = "write-\(UUID().uuidString)"
        let start = try await WSFault.log(after: Int.max >> 1).version
        // Whichever of the two the server reads first, both were sent on the connection that drops.
        async let hanging = outcome { () async throws(ChannelError) in try await channel.send(["type": "hang"]) }
        let write = await outcome { () async throws(ChannelError) in
            try await channel.send(["type": "write", "key": .string(key)])
        }
        guard case .failure(.notConnected) = write else {
            Issue.record("the write's reply should fail, got \(write)")
            return
        }
        // Failed, never hung: `notConnected` when the drop came first, the socket's own error when it was being
        // written as the connection ended.
        guard case .failure = await hanging else {
            Issue.record("the pending request should fail")
            return
        }
        // The channel reconnects (a second connection) and the write was received once.
        try await waitForState(channel) { $0 == .ready }
        #expect(try await channel.send(["type": "echo", "payload": "after"]) == "after")
        #expect(counting.opens == 2)
        let writes = try await WSFault.log(after: start).items.filter { $0["key"]?.stringValue == key }
        #expect(writes.count == 1)
        await channel.stop()
    }

    @Test("K-CH-4: after a drop (a server restart) the channel reconnects, signs in and subscribes again")
    func restartResubscribes() async throws {
        let journal = Journal()
        let counting = CountingTransport(WSFault.transport())
        let channel = try channel(journal: journal, transport: counting)
        await channel.start()
        var events = await channel.subscribe(["type": "subscribe", "every_ms": 30]).makeAsyncIterator()
        #expect(try await events.next() == ["n": 0])
        _ = try? await channel.send(["type": "drop"])
        // The same stream goes on with the new connection's subscription, from its first event.
        var next = try await events.next()
        while next != ["n": 0] { next = try await events.next() }
        #expect(counting.opens == 2)
        #expect(journal.events.filter { $0.message == "channel send subscribe" }.count == 2)
        #expect(journal.events.filter { $0.message == "channel send auth" }.count == 2)
        await channel.stop()
    }

    @Test("K-CH-5: a refused credential stops the channel with the reason, and nothing retries")
    func credentialRefused() async throws {
        let sleeper = RecordingSleeper()
        let counting = CountingTransport(WSFault.transport())
        let channel = try channel(token: "wrong-token-000000", sleeper: sleeper, transport: counting)
        await channel.start()
        let seen = try await waitForState(channel) {
            if case .disconnected(.rejected) = $0 { return true } else { return false }
        }
        #expect(seen.last == .disconnected(.rejected(.credentialRefused("Invalid access token"))))
        #expect(sleeper.delays.isEmpty)
        #expect(counting.opens == 1)
        await #expect(throws: ChannelError.credentialRefused("Invalid access token")) {
            try await channel.send(["type": "echo"])
        }
    }

    @Test("K-CH-6: a peer that stops answering pings is dropped (noPong) and the channel connects again")
    func noPong() async throws {
        let policy = ReconnectPolicy(
            delays: [.zero], thereafter: .zero, jitter: 0, pingInterval: .milliseconds(200),
            pingTimeout: .milliseconds(400))
        let channel = try channel(policy: policy)
        await channel.start()
        try await waitForState(channel) { $0 == .ready }
        _ = try await channel.send(["type": "stop_pongs"])
        try await waitForState(channel) {
            if case .disconnected(.waitingToReconnect(.noPong, _, _)) = $0 { return true } else { return false }
        }
        try await waitForState(channel) { $0 == .ready }
        #expect(try await channel.send(["type": "echo", "payload": 1]) == 1)
        await channel.stop()
    }

    @Test("K-CH-7: the states go connecting, authenticating, ready; a failed connect waits HAKit's delays")
    func statesAndBackoff() async throws {
        let sleeper = RecordingSleeper()
        let request = ChannelRequest(url: try WSFault.url("/refuse"))
        let refused = ChannelConnection(
            request, transport: WSFault.transport(), dialect: faultDialect(),
            policy: ReconnectPolicy(jitter: 0), sleeper: sleeper)
        await refused.start()
        try await waitForState(refused) {
            if case .disconnected(.waitingToReconnect(_, _, 6)) = $0 { return true } else { return false }
        }
        await refused.stop()
        #expect(
            Array(sleeper.delays.prefix(5)) == [.zero, .seconds(5), .seconds(10), .seconds(10), .seconds(15)])
        let good = try channel()
        let states = try await { () async throws -> [ChannelState] in
            let seen = await good.states()
            await good.start()
            var result: [ChannelState] = []
            for await state in seen {
                result.append(state)
                if state == .ready { break }
            }
            return result
        }()
        #expect(states == [ChannelState.disconnected(.notStarted), .connecting, .authenticating, .ready])
        await good.stop()
    }

    @Test("K-CH-8: a token sent inside a message never reaches the journal")
    func journalRedaction() async throws {
        let journal = Journal()
        let channel = try channel(journal: journal)
        await channel.start()
        // `credentials` holds an object: the journal's scrubber masks only a secret-named member's scalar value in
        // free text and knows nothing by the name `pin`, so only the channel's own redaction of the message (a
        // secret-named member masked whole, whatever it holds) keeps the pin out.
        let message: JSONValue = [
            "type": "echo", "payload": "x", "token": "another-secret-value-42",
            "credentials": ["user": "ann", "pin": "pin-7305-kept-out"],
        ]
        #expect(try await channel.send(message) == "x")
        await channel.stop()
        let text = journal.events.map { "\($0.message) \($0.fields)" }.joined(separator: "\n")
        #expect(text.contains("channel send auth"))
        #expect(text.contains("channel send echo"))
        #expect(!text.contains(WSFaultServer.token))
        #expect(!text.contains("another-secret-value-42"))
        #expect(!text.contains("pin-7305-kept-out"))
    }
}

@Suite("Channels: reconnect policy and array frames")
struct ChannelPolicyTests {
    @Test("K-CH-9: retries after 0, 5, 10, 10, then every 15 s; jitter stretches by up to 20 %, 0 stays 0")
    func delays() {
        let plain = ReconnectPolicy(jitter: 0)
        let random = SeededRandomSource(seed: 7)
        #expect(
            (1...7).map { plain.delay(beforeRetry: $0, random: random) } == [
                .zero, .seconds(5), .seconds(10), .seconds(10), .seconds(15), .seconds(15), .seconds(15),
            ])
        let jittered = ReconnectPolicy()
        for attempt in 1...7 {
            let base = plain.delay(beforeRetry: attempt, random: random)
            let delay = jittered.delay(beforeRetry: attempt, random: SeededRandomSource(seed: UInt64(attempt)))
            #expect(delay >= base && delay <= base * 1.2)
            if base > .zero { #expect(delay != base) }
        }
        #expect(plain.pingInterval == .seconds(60) && plain.pingTimeout == .seconds(30))
    }
}

@Suite("Channels: Server-Sent Events as a channel (Servers/fault /sse)", .timeLimit(.minutes(1)))
struct EventSourceChannelTests {
    @Test("K-CH-10: SSE events flow through the channel seam; a dropped stream reconnects after the last id")
    func sseChannel() async throws {
        let client = Client(
            baseURL: try TestServers.fault(),
            configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback))
        let stream = "channel-\(UUID().uuidString)"
        let transport = EventSourceChannelTransport(
            client: client, request: .empty(.get, "/sse?count=4&interval_ms=10&drop_after=2&stream=\(stream)"))
        let channel = ChannelConnection(
            ChannelRequest(url: try TestServers.fault()), transport: transport, dialect: EventStreamDialect(),
            policy: ReconnectPolicy(jitter: 0))
        var events = await channel.events().makeAsyncIterator()
        await channel.start()
        var ids: [String] = []
        while ids.count < 4, let event = await events.next() {
            if let id = event["id"]?.stringValue { ids.append(id) }
        }
        #expect(ids == ["1", "2", "3", "4"])
        // The second connection resumed after the last id the first one delivered.
        let stats = try await client.send(Request<JSONValue>.get("/_sse_stats", query: ["stream": stream]))
        #expect(Array(stats["last_event_ids"]?.arrayValue?.prefix(2) ?? []) == [.null, "2"])
        await #expect(throws: ChannelError.unsupported("send requests")) { try await channel.send(["type": "x"]) }
        await channel.stop()
    }
}

/// The real transport underneath, recording the port each connection went to and the close codes this side sent.
final class RoutesRecordingTransport: ChannelTransport {
    private let inner: any ChannelTransport
    private let seen = Locked<(ports: [Int], closes: [WebSocketCloseCode])>(([], []))

    init(_ inner: any ChannelTransport) { self.inner = inner }

    var ports: [Int] { seen.withLock { $0.ports } }
    var closes: [WebSocketCloseCode] { seen.withLock { $0.closes } }

    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        seen.withLock { $0.ports.append(request.url.port ?? 0) }
        return Recorded(inner: try await inner.open(request), seen: seen)
    }

    private final class Recorded: ChannelSocket {
        let inner: any ChannelSocket
        let seen: Locked<(ports: [Int], closes: [WebSocketCloseCode])>

        init(inner: any ChannelSocket, seen: Locked<(ports: [Int], closes: [WebSocketCloseCode])>) {
            self.inner = inner
            self.seen = seen
        }

        var messages: AsyncThrowingStream<ChannelMessage, any Error> { inner.messages }
        func send(_ message: ChannelMessage) async throws(ChannelError) { try await inner.send(message) }
        func ping() async throws(ChannelError) { try await inner.ping() }

        func close(_ code: WebSocketCloseCode, reason: String) async {
            seen.withLock { $0.closes.append(code) }
            await inner.close(code, reason: reason)
        }
    }
}

/// A connect probe whose answer the test sets (the home address "answers" or not).
final class HomeSwitchProbe: ConnectProbe {
    let reachable = Locked(true)

    func canConnect(host: String, port: Int, timeout: Duration) async -> Bool { reachable.withLock { $0 } }
}

@Suite("Channels: network changes (HAKit's path monitor and shouldReplace)", .timeLimit(.minutes(2)))
struct ChannelNetworkChangeTests {
    @Test("K-CH-15: a network change while a retry waits fires it at once (HAKit testPathMonitorWithTimer)")
    func networkChangeFiresWaitingRetry() async throws {
        let journal = Journal()
        // Every retry waits an hour: only the network change can bring the second attempt within the test's bound.
        let refused = ChannelConnection(
            ChannelRequest(url: try WSFault.url("/refuse")), transport: WSFault.transport(), dialect: faultDialect(),
            policy: ReconnectPolicy(delays: [.seconds(3600)], thereafter: .seconds(3600), jitter: 0),
            journal: journal)
        await refused.start()
        try await waitForState(refused) {
            if case .disconnected(.waitingToReconnect(_, _, 1)) = $0 { return true } else { return false }
        }
        await refused.networkChanged()
        try await waitForState(refused) {
            if case .disconnected(.waitingToReconnect(_, _, 2)) = $0 { return true } else { return false }
        }
        #expect(journal.events.contains { $0.message == "channel network changed: retrying now" })
        await refused.stop()
    }

    @Test(
        "K-CH-16: leaving home replaces the connection: the old socket closed with 1001, the new one at the external address at once, subscriptions made again, the pending request failed; no change, no replacement"
    )
    func addressChangeReplacesTheConnection() async throws {
        let base = try WSFault.base()
        let relay = try TCPRelay(relayingTo: try #require(base.port))
        relay.start()
        defer { relay.stop() }
        let external = try ServerAddress(parsing: base.absoluteString, policy: .allowingInsecureLoopback)
        let home = try ServerAddress(parsing: "http://127.0.0.1:\(relay.port)", policy: .allowingInsecureLoopback)
        let probe = HomeSwitchProbe()
        let hangWritten = AsyncStream<Void>.makeStream()
        let recording = RoutesRecordingTransport(
            WriteWatchingTransport(WSFault.transport(), marker: #""type":"hang""#, written: hangWritten.continuation))
        let transport = ServerNetwork(server: external, internalAddress: home)
            .channelTransport(identity: nil, probe: probe, platform: recording)
        // Every retry would wait an hour: the replacement must not wait at all to end within the test's bound.
        let channel = ChannelConnection(
            ChannelRequest(url: try WSFault.url("/app")), transport: transport, dialect: faultDialect(),
            policy: ReconnectPolicy(delays: [.seconds(3600)], thereafter: .seconds(3600), jitter: 0))
        await channel.start()
        let first = try await waitForState(channel) {
            if case .disconnected(.waitingToReconnect) = $0 { return true }
            return $0 == .ready
        }
        try #require(first.last == .ready, "\(first.suffix(2))")
        var events = await channel.subscribe(["type": "subscribe", "every_ms": 30]).makeAsyncIterator()
        #expect(try await events.next() == ["n": 0])
        #expect(recording.ports == [relay.port], "\(recording.ports.prefix(3))")
        // Still at home: nothing is replaced.
        await channel.networkChanged()
        #expect(recording.closes.isEmpty && recording.ports.count == 1)
        // A request on the wire, never answered, when the device leaves home.
        async let stuck = outcome { () async throws(ChannelError) in try await channel.send(["type": "hang"]) }
        var written = hangWritten.stream.makeAsyncIterator()
        _ = await written.next()
        probe.reachable.withLock { $0 = false }
        await channel.networkChanged()
        guard case .failure(.notConnected) = await stuck else {
            Issue.record("the pending request did not fail with notConnected")
            return
        }
        var next = try await events.next()
        while next != ["n": 0] { next = try await events.next() }
        #expect(recording.ports == [relay.port, try #require(base.port)], "\(recording.ports.prefix(3))")
        #expect(recording.closes == [.goingAway])
        #expect(try await channel.send(["type": "echo", "payload": "away"]) == "away")
        await channel.stop()
    }
}

@Suite("Channels: a subscription that marks each start", .timeLimit(.minutes(2)))
struct ChannelSubscriptionMarkerTests {
    @Test(
        "K-CH-17: the caller's marker comes first in the stream each time the subscription is sent, before its events, also after a reconnect"
    )
    func markerBeforeEachStart() async throws {
        let channel = ChannelConnection(
            ChannelRequest(url: try WSFault.url("/app")), transport: WSFault.transport(), dialect: faultDialect(),
            policy: ReconnectPolicy(jitter: 0))
        await channel.start()
        let marker: JSONValue = ["test.started": true]
        var events = await channel.subscribe(["type": "subscribe", "every_ms": 30], markingEachStart: marker)
            .makeAsyncIterator()
        #expect(try await events.next() == marker)
        #expect(try await events.next() == ["n": 0])
        _ = try? await channel.send(["type": "drop"])
        // Events of the old connection may still be read; then the marker, then the new subscription's first.
        var next = try await events.next()
        while next != marker { next = try await events.next() }
        #expect(try await events.next() == ["n": 0])
        await channel.stop()
    }
}
