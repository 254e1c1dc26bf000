import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// The live connection to one signed-in Home Assistant account, on the kit's WebSocket channel
/// (`AppEnvironment.channel(for:path:dialect:)`), and what stands on it: the entities kept in the account's store
/// for the screens' feeds, the registries, `get_config`, service calls and templates.
///
/// Rules:
/// - **Auth** (H-CONN-4, H-CONN-5): `auth_required`, `auth` with the session's usable token, `auth_ok` within
///   `authWait` of the upgrade (else the attempt failed: closed and retried); then
///   `supported_features` with `coalesce_messages` first (H-CONN-7). `auth_invalid` leaves the channel
///   `rejected` (no timer): one refresh and one connect follow; a token fresh from that refresh refused again,
///   a refused refresh or a long-lived token signs out (H-TOK-5, H-TOK-6, H-TOK-10); a session that signs out
///   stops the channel (no reconnect).
/// - **The channel** (the kit's `ChannelConnection`): ids from 1, never reset (H-CONN-6); routing by id
///   (H-CONN-8); ping every 60 s (H-CONN-9); HAKit's retry delays (H-CONN-10); subscriptions made again with new
///   ids on every ready (H-CONN-11); a request sent and unanswered at a drop fails at once and is not resent
///   (H-CONN-12); a read waits up to 10 s for ready, a write not at all (H-CONN-13); unsubscribe with
///   `unsubscribe_events` (H-CONN-15); the reader never waits for the store (H-CONN-16). `component_loaded` and
///   `core_config_updated` are subscribed, and a `subscribe(_:)` or local push channel refused at its start is sent
///   again 5 s after either (H-CONN-14); the core's own subscriptions are `websocket_api`'s commands, loaded before
///   any sign-in is answered.
/// - **Entities** (H-ENT-1..8): one `subscribe_entities` without `entity_ids`; the first event after every ready
///   replaces the set; each event is applied to the in-memory set and written to the store in one transaction
///   with the sync mark, which every feed observes.
/// - **Registries and config** (H-ENT-12): after every ready `get_config` and the three registry lists are read
///   and stored; each list is read again on its `*_registry_updated` event, subscribed with its explicit
///   `event_type`.
/// - **Offline** (H-OFF-2, H-OFF-3): at start and when the connection leaves ready the data is marked not live
///   (stale with its age); it is live again when the new subscription's first event is applied.
public actor HomeAssistantConnection {
    /// The account's server bundle.
    public nonisolated let server: HomeAssistantServer
    /// The kit's channel under this connection.
    public nonisolated let channel: ChannelConnection
    nonisolated let credentials: ChannelCredentials

    /// The entities as the last event left them.
    public private(set) var entities = EntitySet()
    /// `get_config`'s answer on the current connection.
    public private(set) var config: ServerConfig?
    /// How many times the connection became ready.
    public private(set) var readyCount = 0
    /// Whether the entities are live (the current subscription's first event applied).
    public private(set) var isLive = false

    private var expectsInitial = true
    /// Set by `stop()` before anything else it does: an event, a state or a read's answer still queued then is
    /// dropped, never applied (`stop()` is final).
    private var stopped = false
    private var afterReady: Task<Void, Never>?
    /// Whether the current subscription is live: false from the moment the connection leaves ready or stops, so a
    /// store write of an event still in flight then never marks the data live again (read inside its transaction).
    private nonisolated let liveMark = Locked(false)
    private var tasks: [Task<Void, Never>] = []
    private var watchers: [UUID: AsyncStream<EntityUpdate>.Continuation] = [:]
    var journal: Journal { server.bundle.journal }

    /// How long a read waits for the connection to be ready (H-CONN-13).
    public static let readWait: Duration = .seconds(10)

    /// How long after `component_loaded` or `core_config_updated` a subscription whose start Home Assistant refused
    /// is sent again (H-CONN-14).
    public static let resubscribeDelay: Duration = .seconds(5)
    /// This connection's wait before subscriptions refused at their start are sent again.
    public nonisolated let resubscribeAfter: Duration
    /// The subscriptions refused at their start, waiting for the next retry (H-CONN-14).
    private var refused: [CheckedContinuation<Bool, Never>] = []

    /// How long the auth phase may take after the upgrade before the attempt counts as a temporary failure
    /// (H-CONN-4): the socket is closed and the retry follows; Home Assistant itself closes after 10 s without `auth`.
    public static let authWait: Duration = .seconds(10)

    /// A connection for `server` (not started), with `policy`'s retry delays and ping, its sign-in bound
    /// (`authWait` when the policy names none) and the wait before refused subscriptions are sent again.
    public init(
        server: HomeAssistantServer, policy: ReconnectPolicy = ReconnectPolicy(),
        resubscribeAfter: Duration = resubscribeDelay
    ) {
        self.resubscribeAfter = resubscribeAfter
        var policy = policy
        if policy.signInTimeout == nil { policy.signInTimeout = Self.authWait }
        self.server = server
        let credentials = ChannelCredentials(session: server.bundle.session)
        self.credentials = credentials
        channel = server.bundle.environment.channel(
            for: server.bundle.baseURL, path: HomeAssistantChannel.path,
            dialect: HomeAssistantChannel.dialect(credentials), policy: policy)
    }

    /// The server's version, from the auth phase.
    public nonisolated var version: String? { credentials.version }

    /// The device's network path changed (the glue's path monitor): a waiting reconnect fires at once (H-CONN-10),
    /// and when the account's home or away address is now the other one, the socket is replaced: the old one closes
    /// with 1001, the new one connects, subscriptions are sent again and the entities come again as a new initial
    /// `a` (H-NET-6).
    public func networkChanged() async {
        await channel.networkChanged()
    }

    /// The channel's state now and every change after.
    public func states() async -> AsyncStream<ChannelState> { await channel.states() }

    /// Every event applied to the entities from now on, with the entities it touched.
    public func updates() -> AsyncStream<EntityUpdate> {
        let (stream, continuation) = AsyncStream<EntityUpdate>.makeStream()
        let key = UUID()
        watchers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unwatch(key) } }
        return stream
    }

    /// Connects, and keeps connecting until `stop()` or a sign-out.
    public func start() async {
        guard tasks.isEmpty else { return }
        stopped = false
        do {
            try await EntityStore.markNotLive(droppedAt: nil, in: server.bundle.store)
        } catch {
            journal.record(.error, "Home Assistant: the stored states could not be marked stale: \(error)")
        }
        let states = await channel.states()
        tasks.append(Task { [weak self] in for await state in states { await self?.changed(to: state) } })
        let events = await channel.subscribe(["type": "subscribe_entities"], markingEachStart: Self.subscribed)
        tasks.append(
            Task { [weak self] in
                do {
                    for try await event in events {
                        if event == Self.subscribed {
                            await self?.expectInitial()
                        } else {
                            await self?.receive(event)
                        }
                    }
                } catch {
                    await self?.note("the entity subscription ended: \(error)")
                }
            })
        for list in RegistryList.allCases {
            let changes = await channel.subscribe(["type": "subscribe_events", "event_type": .string(list.event)])
            tasks.append(
                Task { [weak self] in
                    do {
                        for try await _ in changes { await self?.read(list) }
                    } catch {
                        await self?.note("the \(list.event) subscription ended: \(error)")
                    }
                })
        }
        // H-CONN-14: a component loaded or the core's configuration changed: subscriptions refused at their start
        // (a command of a component still loading) are sent again `resubscribeAfter` later.
        for event in ["component_loaded", "core_config_updated"] {
            let changes = await channel.subscribe(["type": "subscribe_events", "event_type": .string(event)])
            tasks.append(
                Task { [weak self] in
                    do {
                        for try await _ in changes { await self?.scheduleResubscribe() }
                    } catch {
                        await self?.note("the \(event) subscription ended: \(error)")
                    }
                })
        }
        if let session = server.bundle.session {
            let statuses = await session.statusUpdates()
            tasks.append(
                Task { [weak self] in
                    for await status in statuses {
                        if case .signedOut = status {
                            await self?.channel.stop()
                            return
                        }
                    }
                })
        }
        await channel.start()
    }

    /// Closes the connection and stops reconnecting (H-CONN-17); the stored data stays, not live. Final: when it
    /// returns, nothing more is applied or stored (an event the channel had buffered is dropped, one being stored
    /// has been stored), so the stored mark is the stop's.
    public func stop() async {
        stopped = true
        liveMark.withLock { $0 = false }
        let running = tasks
        tasks = []
        for task in running { task.cancel() }
        await channel.stop()
        // A cancelled loop still drains what its stream had buffered (each item dropped by `stopped`), and an item
        // being applied when the stop came finishes: wait for both, then mark the drop.
        for task in running { await task.value }
        await afterReady?.value
        await leaveLive(at: server.bundle.clock.now())
        for watcher in watchers.values { watcher.finish() }
        watchers = [:]
        resubscribe(false)
    }

    /// Subscribes with `body` and yields its events until `stop()` or until the caller stops iterating; the channel
    /// makes it again on every ready (H-CONN-11). When Home Assistant refuses its start, it is sent again
    /// `resubscribeAfter` after the next `component_loaded` or `core_config_updated` (H-CONN-14).
    public func subscribe(_ body: JSONValue) -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream<JSONValue>.makeStream()
        let task = Task { [weak self] in
            while let connection = self, !Task.isCancelled {
                let events = await connection.channel.subscribe(body)
                do {
                    for try await event in events { continuation.yield(event) }
                    break
                } catch {
                    guard await connection.waitToResubscribe(after: error) else { break }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Waits for the next retry of subscriptions refused at their start; `false` when the connection stopped.
    func waitToResubscribe(after error: any Error) async -> Bool {
        guard !stopped else { return false }
        note(
            "a subscription was refused at its start (\(error)): sent again after the next component_loaded or core_config_updated"
        )
        return await withCheckedContinuation { refused.append($0) }
    }

    private func scheduleResubscribe() {
        let sleeper = server.bundle.environment.sleeper
        let delay = resubscribeAfter
        Task { [weak self] in
            guard (try? await sleeper.sleep(for: delay)) != nil else { return }
            await self?.resubscribe(true)
        }
    }

    private func resubscribe(_ again: Bool) {
        let waiting = refused
        refused = []
        for continuation in waiting { continuation.resume(returning: again && !stopped) }
    }

    /// Waits until the entities are live (the first event of the subscription applied); `false` when the
    /// channel was rejected or stopped first. The caller bounds the wait.
    public func waitUntilLive() async -> Bool {
        if isLive { return true }
        let updates = self.updates()
        let states = await channel.states()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await update in updates where update.initial { return true }
                return false
            }
            group.addTask {
                for await state in states {
                    switch state {
                    case .disconnected(.rejected), .disconnected(.stopped): return false
                    default: continue
                    }
                }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Waits until the reads made after the last ready (`get_config`, the registries) are stored: a screen that
    /// groups by area right after `waitUntilLive()` (the terminal's `states --area`) waits for this too.
    public func waitForRegistries() async {
        await afterReady?.value
    }

    // MARK: Requests

    /// A read (`get_*`, the registries, `auth/current_user`): waits up to 10 s for ready (H-CONN-13) and fails if
    /// the connection drops before the reply (H-CONN-12).
    public func read(_ body: JSONValue) async throws(ChannelError) -> JSONValue {
        try await channel.send(body, readyWithin: Self.readWait)
    }

    /// Calls a service (H-ACT-1..3): sent once, only while ready (never kept for later, never resent); its one
    /// outcome.
    public func call(_ call: ServiceCall) async -> CallOutcome {
        let state = await channel.state
        guard state.isReady else { return .notConnected("the connection is \(state)") }
        do {
            let result = try await channel.send(call.body, readyWithin: .zero)
            let context = result["context"]?["id"]?.stringValue ?? ""
            return .done(contextID: context, response: result["response"])
        } catch {
            switch error {
            case .server(let code, let message): return .failed(code: code, message: message)
            default:
                journal.record(.error, "Home Assistant: \(call.name) may or may not have happened: \(error)")
                return .unknown(error.description)
            }
        }
    }

    /// Makes a long-lived access token for the signed-in user (`auth/long_lived_access_token`, H-CLI-7): `name` is
    /// its name in the profile, `days` its lifespan. A write: sent once, only while ready, never resent. The token is
    /// registered with the journal as a secret before it is returned.
    public func createLongLivedToken(name: String, days: Int) async throws(ChannelError) -> String {
        let body: JSONValue = [
            "type": "auth/long_lived_access_token", "client_name": .string(name), "lifespan": .integer(Int64(days)),
        ]
        let result = try await channel.send(body, readyWithin: .zero)
        guard let token = result.stringValue else {
            throw .server(code: "unexpected_reply", message: "the reply carries no token")
        }
        journal.register(secret: token)
        return token
    }

    /// `get_services`: every domain's services with their descriptions.
    public func services() async throws(ChannelError) -> JSONValue {
        try await read(["type": "get_services"])
    }

    /// Renders `template` and again whenever what it listens to changes (H-ACT-11); a template Home Assistant
    /// cannot render ends the stream with `template_error` and Home Assistant's sentence. Made again after every
    /// reconnect. Sent with `report_errors`: without it Home Assistant 2025.4.4 answers a template it cannot parse
    /// with a success and then nothing at all; with it, an event `{"error", "level"}` (seen here).
    public func render(_ template: String) async -> AsyncThrowingStream<TemplateRender, any Error> {
        let events = await channel.subscribe(
            ["type": "render_template", "template": .string(template), "report_errors": true])
        let (stream, continuation) = AsyncThrowingStream<TemplateRender, any Error>.makeStream()
        let task = Task {
            do {
                for try await event in events {
                    if let error = event["error"]?.stringValue {
                        throw ChannelError.server(code: "template_error", message: error)
                    }
                    if let render = TemplateRender(json: event) { continuation.yield(render) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: The connection's life

    private func changed(to state: ChannelState) async {
        guard !stopped else { return }
        switch state {
        case .ready:
            readyCount += 1
            credentials.noteRenewalAfterRefusal(nil)
            afterReady = Task { await self.readAfterReady() }
        case .disconnected(.rejected(let error)):
            await leaveLive(at: server.bundle.clock.now())
            await rejected(error)
        default:
            await leaveLive(at: server.bundle.clock.now())
        }
    }

    /// What the channel yields, in the entity subscription's own stream, each time it sends `subscribe_entities`:
    /// the next event is that subscription's first, whose `a` replaces the whole set (H-CONN-11). A value Home
    /// Assistant never sends (an event is an object of `a`, `c` and `r`).
    static let subscribed: JSONValue = ["companion.subscribed": true]

    /// The entity subscription was sent (again): its next event is the initial one. Marked in the subscription's
    /// own stream, not from the channel's states, so it is in order with the events however late a state change
    /// reaches this actor.
    private func expectInitial() {
        expectsInitial = true
    }

    /// H-CONN-5: a refused token is refreshed once and the channel connects once more; a refusal of a token
    /// fresh from that refresh, or a refresh refused, signs out.
    private func rejected(_ error: ChannelError) async {
        guard let session = server.bundle.session, let sent = credentials.sent else { return }
        if credentials.isRenewalAfterRefusal(sent.credential) {
            await session.revoked(sent, status: 401, serverSentence: error.description)
            return
        }
        guard let renewed = await session.refreshed(after: sent), renewed.credential != sent.credential else {
            if await session.credential != nil {
                journal.record(.auth, "Home Assistant refused the token and no new one could be had: not retrying")
            }
            return
        }
        credentials.noteRenewalAfterRefusal(renewed.credential)
        guard !stopped else { return }
        await channel.start()
    }

    /// Marks the data not live from `date`: whenever the stored mark says live, whatever `isLive` says (an event's
    /// write may have stored a live mark while this connection was leaving: it is stored before this write).
    private func leaveLive(at date: Date) async {
        liveMark.withLock { $0 = false }
        isLive = false
        do {
            try await EntityStore.markNotLive(droppedAt: date, onlyIfLive: true, in: server.bundle.store)
        } catch {
            journal.record(.error, "Home Assistant: the stored states could not be marked stale: \(error)")
        }
    }

    private func readAfterReady() async {
        guard !stopped else { return }
        do {
            let answer = try await read(["type": "get_config"])
            config = try ServerConfig.read(answer).value
            try await EntityStore.write(config: answer, in: server.bundle.store)
        } catch {
            note("get_config failed: \(error)")
        }
        for list in RegistryList.allCases { await read(list) }
    }

    private func read(_ list: RegistryList) async {
        guard !stopped else { return }
        do {
            let answer = try await read(["type": .string(list.command)])
            guard case .array(let items) = answer else {
                note("\(list.command) answered \(answer.kindName), not a list")
                return
            }
            try await EntityStore.write(
                registry: list.storeKey, idKey: list.idKey, items: items, in: server.bundle.store)
        } catch {
            note("\(list.command) failed: \(error)")
        }
    }

    private func receive(_ json: JSONValue) async {
        guard !stopped else { return }
        let read: WireRead<EntitiesEvent>
        do {
            read = try EntitiesEvent.read(json)
        } catch {
            note(error.description)
            return
        }
        for problem in read.problems { note(problem) }
        let initial = expectsInitial
        expectsInitial = false
        let applied = entities.apply(read.value, initial: initial)
        for sentence in applied.ignored { note(sentence) }
        if initial { liveMark.withLock { $0 = true } }
        let mark = liveMark
        do {
            try await EntityStore.write(
                applied, of: entities, initial: initial, live: { mark.withLock { $0 } }, in: server.bundle.store)
        } catch {
            note("the entities could not be stored: \(error)")
        }
        isLive = liveMark.withLock { $0 }
        var touched: [String: EntityState] = [:]
        for id in applied.added + applied.changed { touched[id] = entities[id] }
        let update = EntityUpdate(initial: initial, applied: applied, states: touched)
        for watcher in watchers.values { watcher.yield(update) }
    }

    func note(_ sentence: String) {
        journal.record(.sync, "Home Assistant: \(sentence)")
    }

    private func unwatch(_ key: UUID) { watchers[key] = nil }
}

/// One event applied to the entities.
public struct EntityUpdate: Sendable, Hashable {
    /// Whether it was the first event of a subscription (it replaced the whole set).
    public var initial: Bool
    /// What it did.
    public var applied: EntitySet.Applied
    /// The states of the entities it added or changed, after it.
    public var states: [String: EntityState]

    /// Every entity id it touched (added, changed or removed).
    public var touched: Set<String> { Set(applied.added + applied.changed + applied.removed) }
}

/// The three registries a screen needs (H-ENT-12).
enum RegistryList: CaseIterable {
    case areas, devices, entities

    var command: String {
        switch self {
        case .areas: return "config/area_registry/list"
        case .devices: return "config/device_registry/list"
        case .entities: return "config/entity_registry/list"
        }
    }

    var event: String {
        switch self {
        case .areas: return "area_registry_updated"
        case .devices: return "device_registry_updated"
        case .entities: return "entity_registry_updated"
        }
    }

    /// The member holding an item's id.
    var idKey: String {
        switch self {
        case .areas: return "area_id"
        case .devices: return "id"
        case .entities: return "entity_id"
        }
    }

    var storeKey: String {
        switch self {
        case .areas: return EntityStore.areas
        case .devices: return EntityStore.devices
        case .entities: return EntityStore.entityRegistry
        }
    }
}

extension HomeAssistantServer {
    /// Opens `account` in `environment`, connects, waits until the entities are live and reads them grouped by
    /// area from the store: one call from a stored sign-in to the first full screen (the benchmarks' entry). The
    /// connection is returned running: `stop()` it.
    public static func connectAndGroup(_ account: AccountKey, environment: AppEnvironment) async throws -> (
        connection: HomeAssistantConnection, groups: [EntityGroup]
    ) {
        let server = try await open(account, environment: environment)
        let connection = server.connection()
        await connection.start()
        guard await connection.waitUntilLive() else {
            let state = await connection.channel.state
            await connection.stop()
            throw ChannelError.notConnected("Home Assistant did not become live: \(state)")
        }
        return (connection, try await server.stored()?.byArea() ?? [])
    }
}
