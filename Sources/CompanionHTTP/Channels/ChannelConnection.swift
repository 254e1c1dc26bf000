import CompanionCore
import Foundation

/// A live channel to one server: one connection at a time, kept open (reconnecting) until stopped, with numbered
/// requests, subscriptions and an observable state (HAKit's `HAConnection`).
///
/// Rules:
/// - **State.** `disconnected(why)` → `connecting` → `authenticating` → `ready`; `states()` yields every change.
/// - **Requests.** Each gets a number; its reply is matched by that number. A request made while the channel is not
///   ready waits, unsent, until it is. When the connection drops, every request sent and not yet answered fails
///   (`notConnected`), never hangs, and is never sent again: nothing the channel sent is resent by it (a write is
///   resent only by the app's own rule).
/// - **Subscriptions** deliver events until the caller stops iterating (the dialect's unsubscribe request is then
///   sent); after a reconnect each is made again with a new number, and its events keep flowing to the same
///   stream.
/// - **Array frames.** A message that is a JSON array carries several messages: each is handled, in order.
/// - **Reconnect.** After a failed or dropped connection the channel waits `ReconnectPolicy`'s delay (with jitter,
///   on the injected sleeper and random source) and connects again, signs in again and subscribes again. A refused
///   credential stops it (`disconnected(.rejected)`), with no retry.
/// - **Dead peers.** A ready connection pings every `pingInterval`; no pong within `pingTimeout` closes it and
///   counts as a drop (`noPong`). With a `signInTimeout`, a sign-in not ended by then is a failed attempt, retried.
/// - **Network changes.** `networkChanged()` (the platform's path monitor calls it) fires a waiting retry at once; and
///   when the transport would now connect to another address (home and away, `ChannelTransport.networkChanged()`),
///   the open connection is closed with 1001 (going away) and opened again at once to the new one: requests pending
///   on it fail (never resent) and subscriptions are made again on the new one (HAKit's `shouldReplace`).
/// - **Stop.** `stop()` closes with 1001 (going away) and journals the code; nothing reconnects after it.
/// - **Journal.** Connects, drops and every message sent are journaled; a message's body is redacted the way HTTP
///   bodies are (secret-named members masked, registered secrets scrubbed), so a token sent inside a message never
///   reaches the journal. Messages received are journaled by type and size only.
public actor ChannelConnection {
    /// Makes the request of each connection attempt (the address may change between attempts: home or away).
    public typealias Endpoint = @Sendable () async -> ChannelRequest

    private let endpoint: Endpoint
    private let transport: any ChannelTransport
    private let dialect: any ChannelDialect
    /// When it retries, how it pings, and how long a sign-in may take.
    public nonisolated let policy: ReconnectPolicy
    private let sleeper: any Sleeper
    private let random: any RandomSource
    private let journal: Journal

    /// Where the channel stands now.
    public private(set) var state: ChannelState = .disconnected(.notStarted)
    private var watchers: [UUID: AsyncStream<ChannelState>.Continuation] = [:]
    private var eventWatchers: [UUID: AsyncStream<JSONValue>.Continuation] = [:]
    private var runner: Task<Void, Never>?
    private var socket: (any ChannelSocket)?
    private var nextID = 1
    private var pending: [Int: CheckedContinuation<Result<JSONValue, ChannelError>, Never>] = [:]
    private var waiting: [(id: Int, body: JSONValue)] = []
    private var subscriptions: [UUID: Subscription] = [:]
    /// The subscription each request number belongs to on the current connection.
    private var subscriptionIDs: [Int: UUID] = [:]
    private var generation = 0
    /// The wait before the next attempt, while one runs: a network change ends it early.
    private var retryWait: Task<Void, any Error>?
    /// Set while an open connection is closed to be opened again at once at another address.
    private var replacing = false

    private struct Subscription {
        let body: JSONValue
        let events: AsyncThrowingStream<JSONValue, any Error>.Continuation
        var id: Int?
        /// Yielded into the stream each time the subscription is sent, before its events.
        var marker: JSONValue?
    }

    /// A channel that opens `endpoint()` through `transport` and speaks `dialect`.
    public init(
        endpoint: @escaping Endpoint, transport: any ChannelTransport, dialect: any ChannelDialect,
        policy: ReconnectPolicy = ReconnectPolicy(), sleeper: any Sleeper = TaskSleeper(),
        random: any RandomSource = SystemRandomSource(), journal: Journal = Journal()
    ) {
        self.endpoint = endpoint
        self.transport = transport
        self.dialect = dialect
        self.policy = policy
        self.sleeper = sleeper
        self.random = random
        self.journal = journal
    }

    /// A channel to a fixed `request`.
    public init(
        _ request: ChannelRequest, transport: any ChannelTransport, dialect: any ChannelDialect,
        policy: ReconnectPolicy = ReconnectPolicy(), sleeper: any Sleeper = TaskSleeper(),
        random: any RandomSource = SystemRandomSource(), journal: Journal = Journal()
    ) {
        self.init(
            endpoint: { request }, transport: transport, dialect: dialect, policy: policy, sleeper: sleeper,
            random: random, journal: journal)
    }

    // MARK: The app's side

    /// The state now and every change after, until the caller stops iterating.
    public func states() -> AsyncStream<ChannelState> {
        let (stream, continuation) = AsyncStream<ChannelState>.makeStream()
        let key = UUID()
        continuation.yield(state)
        watchers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unwatch(key) } }
        return stream
    }

    /// Every message that is neither a reply nor a subscription's event (a Server-Sent Event, a notice), in order.
    public func events() -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream<JSONValue>.makeStream()
        let key = UUID()
        eventWatchers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unwatchEvents(key) } }
        return stream
    }

    /// Connects (and keeps connecting) until `stop()`; a channel stopped by a refused credential starts again.
    public func start() {
        guard runner == nil else { return }
        generation += 1
        let generation = generation
        runner = Task { await self.run(generation) }
    }

    /// Closes the connection with 1001 (going away: this side is leaving, it is no failure) and stops reconnecting;
    /// pending requests fail, subscriptions end.
    public func stop() async {
        runner?.cancel()
        runner = nil
        generation += 1
        let open = socket
        socket = nil
        failPending(.notConnected("the channel was stopped"))
        failWaiting(.notConnected("the channel was stopped"))
        for subscription in subscriptions.values { subscription.events.finish() }
        subscriptions = [:]
        subscriptionIDs = [:]
        set(.disconnected(.stopped))
        guard let open else { return }
        let code = WebSocketCloseCode.goingAway
        journal.record(.sync, "channel closed", fields: ["code": "\(code.rawValue)"])
        await open.close(code, reason: "")
    }

    /// The device's network path changed (H-CONN-10, H-NET-6): a retry that is waiting fires now; an open connection
    /// that the transport would now route to another address is closed with 1001 and opened again at once.
    public func networkChanged() async {
        let moved = await transport.networkChanged()
        if let retryWait {
            journal.record(.sync, "channel network changed: retrying now")
            retryWait.cancel()
            return
        }
        guard moved, let open = socket else { return }
        replacing = true
        let code = WebSocketCloseCode.goingAway
        journal.record(.sync, "channel network changed: replacing the connection", fields: ["code": "\(code.rawValue)"])
        await open.close(code, reason: "")
    }

    /// Sends a request and returns its result (the server's error is thrown as `.server`). Made while the
    /// channel is not ready, it waits unsent until it is, for at most `readyWithin` (`nil`: as long as the channel
    /// runs; `.zero`: it fails at once with `notConnected` and is never sent, the rule for a write); it fails if
    /// the connection drops before the reply.
    public func send(_ body: JSONValue, readyWithin: Duration? = nil) async throws(ChannelError) -> JSONValue {
        guard dialect.sendsRequests else { throw .unsupported("send requests") }
        try refuseIfStopped()
        if let readyWithin, readyWithin <= .zero, !state.isReady {
            throw .notConnected("the live connection is \(state), and this request is not kept for later")
        }
        // A request sent now takes its number now; one that waits takes a key of its own (below zero) and its number
        // when it is sent, after the numbers a new connection gives first, so numbers only ever increase.
        let id: Int
        if state.isReady {
            id = nextID
            nextID += 1
        } else {
            nextWaitingKey -= 1
            id = nextWaitingKey
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (reply: CheckedContinuation<Result<JSONValue, ChannelError>, Never>) in
                pending[id] = reply
                if id > 0 {
                    enqueue(dialect.request(id: id, body: body), for: id)
                } else {
                    waiting.append((id, body))
                    if let readyWithin { expireWaiting(id, after: readyWithin) }
                }
            }
        } onCancel: {
            Task { await self.resolve(id, with: .failure(.cancelled)) }
        }
        return try result.get()
    }

    /// The keys of requests that waited, and the numbers they were sent with.
    private var sentAs: [Int: Int] = [:]
    private var nextWaitingKey = 0

    /// Fails request `id` with `notConnected` if it is still waiting to be sent after `limit`.
    private func expireWaiting(_ id: Int, after limit: Duration) {
        let sleeper = self.sleeper
        Task {
            try? await sleeper.sleep(for: limit)
            self.expire(id, after: limit)
        }
    }

    private func expire(_ id: Int, after limit: Duration) {
        guard waiting.contains(where: { $0.id == id }) else { return }
        resolve(id, with: .failure(.notConnected("the live connection was not ready within \(limit.seconds) s")))
    }

    /// Subscribes with `body` and yields the subscription's events until the caller stops iterating; the stream
    /// fails with the server's error if it refuses the subscription. It is made again after every reconnect.
    public func subscribe(_ body: JSONValue) -> AsyncThrowingStream<JSONValue, any Error> {
        subscribe(body, marker: nil)
    }

    /// As `subscribe(_:)`, and each time the subscription is sent (the first time, and again on every new
    /// connection), `marker` is yielded into the same stream first: the reader knows, in order with the events, that
    /// what follows is the new subscription's (a server that starts a subscription with its whole state sends that
    /// next). The marker is the caller's value, one the server never sends.
    public func subscribe(_ body: JSONValue, markingEachStart marker: JSONValue) -> AsyncThrowingStream<
        JSONValue, any Error
    > {
        subscribe(body, marker: marker)
    }

    private func subscribe(_ body: JSONValue, marker: JSONValue?) -> AsyncThrowingStream<JSONValue, any Error> {
        let (stream, continuation) = AsyncThrowingStream<JSONValue, any Error>.makeStream()
        let key = UUID()
        subscriptions[key] = Subscription(body: body, events: continuation, marker: marker)
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(key) } }
        if state.isReady { register(key) }
        return stream
    }

    // MARK: The connection loop

    private func run(_ generation: Int) async {
        var attempt = 0
        while !Task.isCancelled, generation == self.generation {
            let error = await connectOnce(generation)
            guard generation == self.generation, !Task.isCancelled else { return }
            if case .credentialRefused = error {
                journal.record(.error, "channel sign-in refused: no retry", fields: ["error": error?.description ?? ""])
                failWaiting(error ?? .cancelled)
                set(.disconnected(.rejected(error ?? .cancelled)))
                runner = nil
                return
            }
            if case .ready = state { attempt = 0 }
            if replacing {
                replacing = false
                attempt = 0
                continue
            }
            attempt += 1
            let delay = policy.delay(beforeRetry: attempt, random: random)
            set(.disconnected(.waitingToReconnect(lastError: error, delay: delay, attempt: attempt)))
            journal.record(
                .sync, "channel reconnect",
                fields: [
                    "attempt": "\(attempt)", "delayMs": "\(delay.milliseconds)", "error": error?.description ?? "ended",
                ])
            let wait = Task { [sleeper] in try await sleeper.sleep(for: delay) }
            retryWait = wait
            await withTaskCancellationHandler {
                _ = await wait.result
            } onCancel: {
                wait.cancel()
            }
            retryWait = nil
            if Task.isCancelled { return }
        }
    }

    /// One connection from open to its end; the error that ended it.
    private func connectOnce(_ generation: Int) async -> ChannelError? {
        set(.connecting)
        let request = await endpoint()
        journal.record(.sync, "channel connecting", fields: ["url": HTTPError.describe(request.url)])
        let socket: any ChannelSocket
        do {
            socket = try await transport.open(request)
        } catch {
            journal.record(.error, "channel connect failed", fields: ["error": error.description])
            return error
        }
        guard generation == self.generation else {
            await socket.close(.normal, reason: "")
            return nil
        }
        self.socket = socket
        let reader = MessageReader(socket: socket)
        set(.authenticating)
        if let error = await Self.signIn(
            dialect, over: AuthLink(reader: reader, socket: socket, journal: journal), within: policy.signInTimeout,
            sleeper: sleeper)
        {
            self.socket = nil
            await socket.close(.normal, reason: "")
            return error
        }
        guard generation == self.generation else { return nil }
        set(.ready)
        journal.record(.sync, "channel ready", fields: ["url": HTTPError.describe(request.url)])
        for body in dialect.readyRequests {
            let id = nextID
            nextID += 1
            enqueue(dialect.request(id: id, body: body), for: nil)
        }
        for key in subscriptions.keys { register(key) }
        let queued = waiting
        waiting = []
        for request in queued {
            let id = nextID
            nextID += 1
            sentAs[request.id] = id
            pending[id] = pending.removeValue(forKey: request.id)
            enqueue(dialect.request(id: id, body: request.body), for: id)
        }
        let pinger = Task { await self.pingLoop(socket) }
        defer { pinger.cancel() }
        var ending: ChannelError?
        do {
            while let message = try await reader.next() {
                guard generation == self.generation else { return nil }
                handle(message)
            }
        } catch {
            ending = error
        }
        self.socket = nil
        outbound.removeAll()
        if deadPeer {
            deadPeer = false
            ending = .noPong(after: policy.pingTimeout)
        }
        for key in subscriptions.keys { subscriptions[key]?.id = nil }
        subscriptionIDs = [:]
        let failure = ending ?? .notConnected("the server ended the connection")
        journal.record(.error, "channel dropped", fields: ["error": failure.description])
        failPending(.notConnected("the connection dropped before the reply (\(failure.description))"))
        return failure
    }

    /// The dialect's sign-in; with a `limit`, one not ended by then is cancelled and left behind (a stalled token
    /// source never holds the channel) and counts as a failed attempt, retried.
    private static func signIn(
        _ dialect: any ChannelDialect, over link: AuthLink, within limit: Duration?, sleeper: any Sleeper
    ) async -> ChannelError? {
        guard let limit else {
            do {
                try await dialect.authenticate(over: link)
                return nil
            } catch {
                return error
            }
        }
        let waiting = Locked<CheckedContinuation<ChannelError?, Never>?>(nil)
        let finish: @Sendable (ChannelError?) -> Void = { outcome in
            waiting.withLock { $0.take() }?.resume(returning: outcome)
        }
        let signIn = Locked<Task<Void, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<ChannelError?, Never>) in
            waiting.withLock { $0 = continuation }
            let timer = Task {
                do {
                    try await sleeper.sleep(for: limit)
                } catch {
                    return
                }
                signIn.withLock { $0 }?.cancel()
                finish(ChannelError.notConnected("the sign-in did not end within \(limit.seconds) s"))
            }
            signIn.withLock {
                $0 = Task {
                    do throws(ChannelError) {
                        try await dialect.authenticate(over: link)
                        finish(nil)
                    } catch {
                        finish(error)
                    }
                    timer.cancel()
                }
            }
        }
    }

    private func pingLoop(_ socket: any ChannelSocket) async {
        while !Task.isCancelled {
            do {
                try await sleeper.sleep(for: policy.pingInterval)
            } catch {
                return
            }
            let answered = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    do throws(ChannelError) {
                        if let ping = self.dialect.pingRequest {
                            _ = try await self.send(ping)
                        } else {
                            try await socket.ping()
                        }
                        return true
                    } catch {
                        return !(error == .cancelled)
                    }
                }
                group.addTask {
                    try? await self.sleeper.sleep(for: self.policy.pingTimeout)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            guard !Task.isCancelled else { return }
            if !answered {
                journal.record(
                    .error, "channel ping unanswered", fields: ["timeoutMs": "\(policy.pingTimeout.milliseconds)"])
                await dropDead(socket)
                return
            }
        }
    }

    /// Closes a connection whose peer stopped answering; its reader ends with `noPong`.
    private func dropDead(_ socket: any ChannelSocket) async {
        deadPeer = true
        await socket.close(.goingAway, reason: "no pong")
    }

    private var deadPeer = false

    // MARK: Messages

    /// Queues `message` to go out after every message queued before it (one sender at a time keeps the order the
    /// app asked in); `id` is the request whose reply fails if the message cannot be written.
    private func enqueue(_ message: JSONValue, for id: Int?) {
        outbound.append((id, message))
        guard !flushing else { return }
        flushing = true
        Task { await self.flush() }
    }

    private func flush() async {
        while !outbound.isEmpty {
            let (id, message) = outbound.removeFirst()
            guard let socket else {
                if let id { resolve(id, with: .failure(.notConnected("the connection dropped before it was sent"))) }
                continue
            }
            if let id, pending[id] == nil, subscriptionIDs[id] == nil { continue }
            record(sent: message)
            do {
                try await socket.send(.text(message.jsonString()))
            } catch {
                if let id { resolve(id, with: .failure(error)) }
            }
        }
        flushing = false
    }

    private var outbound: [(Int?, JSONValue)] = []
    private var flushing = false

    private func register(_ key: UUID) {
        guard let subscription = subscriptions[key], subscription.id == nil, socket != nil else { return }
        let id = nextID
        nextID += 1
        subscriptions[key]?.id = id
        subscriptionIDs[id] = key
        if let marker = subscription.marker { subscription.events.yield(marker) }
        enqueue(dialect.request(id: id, body: subscription.body), for: id)
    }

    private func unsubscribe(_ key: UUID) {
        guard let subscription = subscriptions.removeValue(forKey: key) else { return }
        guard let id = subscription.id else { return }
        subscriptionIDs[id] = nil
        guard state.isReady, socket != nil, let body = dialect.unsubscribe(id: id) else { return }
        let number = nextID
        nextID += 1
        enqueue(dialect.request(id: number, body: body), for: nil)
    }

    private func handle(_ message: JSONValue) {
        switch dialect.classify(message) {
        case .reply(let id, let result):
            if let key = subscriptionIDs[id] {
                if case .failure(let error) = result {
                    subscriptions.removeValue(forKey: key)?.events.finish(throwing: error)
                    subscriptionIDs[id] = nil
                }
                return
            }
            resolve(id, with: result)
        case .event(let id, let event):
            guard let key = subscriptionIDs[id] else { return }
            subscriptions[key]?.events.yield(event)
        case .other(let value):
            for watcher in eventWatchers.values { watcher.yield(value) }
        }
    }

    private func record(sent message: JSONValue) { Self.record(sent: message, as: .request, in: journal) }

    /// Journals a message sent: its type, and its body with secret-named members masked (the journal then scrubs
    /// registered secrets and secret shapes too), as the HTTP journal does with a request body.
    static func record(sent message: JSONValue, as kind: JournalEvent.Kind, in journal: Journal) {
        let body = Data(message.jsonString().utf8)
        let redacted = journal.redactor.redact(json: body) ?? "\(body.count) bytes"
        journal.record(kind, "channel send \(message["type"]?.stringValue ?? "message")", fields: ["body": redacted])
    }

    // MARK: Bookkeeping

    private func refuseIfStopped() throws(ChannelError) {
        switch state {
        case .disconnected(.stopped), .disconnected(.notStarted):
            if runner == nil { throw .notConnected("the channel is not started") }
        case .disconnected(.rejected(let error)):
            throw error
        default: break
        }
    }

    private func resolve(_ key: Int, with result: Result<JSONValue, ChannelError>) {
        waiting.removeAll { $0.id == key }
        let id = sentAs.removeValue(forKey: key) ?? key
        if let waited = sentAs.first(where: { $0.value == id })?.key { sentAs[waited] = nil }
        pending.removeValue(forKey: id)?.resume(returning: result)
    }

    /// Fails every request sent and not answered (a request still waiting to be sent stays).
    private func failPending(_ error: ChannelError) {
        let waitingIDs = Set(waiting.map(\.id))
        for (id, reply) in pending where !waitingIDs.contains(id) {
            pending[id] = nil
            reply.resume(returning: .failure(error))
        }
    }

    private func failWaiting(_ error: ChannelError) {
        let queued = waiting
        waiting = []
        for request in queued { pending.removeValue(forKey: request.id)?.resume(returning: .failure(error)) }
    }

    private func set(_ new: ChannelState) {
        guard new != state else { return }
        state = new
        for watcher in watchers.values { watcher.yield(new) }
    }

    private func unwatch(_ key: UUID) { watchers[key] = nil }
    private func unwatchEvents(_ key: UUID) { eventWatchers[key] = nil }
}

/// Reads a socket's messages as JSON values, one element of an array frame at a time, in order.
actor MessageReader {
    private var iterator: AsyncThrowingStream<ChannelMessage, any Error>.AsyncIterator
    private var buffered: [JSONValue] = []

    init(socket: any ChannelSocket) {
        iterator = socket.messages.makeAsyncIterator()
    }

    /// The next message; `nil` when the connection ended cleanly.
    func next() async throws(ChannelError) -> JSONValue? {
        while buffered.isEmpty {
            let message: ChannelMessage?
            do {
                // The iterator is a reference to the stream's storage: a copy reads the same stream.
                var reading = iterator
                message = try await reading.next(isolation: self)
                iterator = reading
            } catch let error as ChannelError {
                throw error
            } catch {
                throw .connection(HTTPError.wrap(error, url: nil))
            }
            guard let message else { return nil }
            buffered = Self.values(of: message)
        }
        return buffered.removeFirst()
    }

    /// The JSON values a message carries: an array frame's elements in order, one object otherwise; a Server-Sent
    /// Event as `{"type", "id", "data"}`; text that is not JSON as a string.
    static func values(of message: ChannelMessage) -> [JSONValue] {
        switch message {
        case .text(let text):
            guard let value = JSONValue(data: Data(text.utf8)) else { return [.string(text)] }
            if case .array(let elements) = value { return elements }
            return [value]
        case .binary(let data):
            return [.string(data.base64EncodedString())]
        case .event(let event):
            let data = JSONValue(data: Data(event.data.utf8)) ?? .string(event.data)
            return [.object(["type": .string(event.event), "id": event.id.map { .string($0) } ?? .null, "data": data])]
        }
    }
}

/// The link a dialect signs in over: the connection's reader and socket, journaling what it sends.
struct AuthLink: ChannelLink {
    let reader: MessageReader
    let socket: any ChannelSocket
    let journal: Journal

    func receive() async throws(ChannelError) -> JSONValue {
        guard let message = try await reader.next() else {
            throw .notConnected("the server ended the connection while signing in")
        }
        return message
    }

    func send(_ message: JSONValue) async throws(ChannelError) {
        ChannelConnection.record(sent: message, as: .auth, in: journal)
        try await socket.send(.text(message.jsonString()))
    }
}
