import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionStore
import Foundation
import HomeAssistantCore

/// P12's and P13's kit rows: the Home Assistant core (`HomeAssistantServer.connectAndGroup`) in a process of its own,
/// as `Benchmarks/Peers/ha_first_screen.py` and `ha_follower.py` run theirs.
///
/// The stored sign-in is the bench's long-lived token, put into the environment's secret store as a bearer
/// credential before anything else (what `HomeAssistantSignIn.longLivedToken` stores, without its `GET /api/`
/// check): the process starts from a stored sign-in, as an app does.
enum HomeAssistantScreens {
    /// `p12-child <url> <token-file> <repeat>`: the first screen from a stored sign-in, one JSON line the moment
    /// it is complete (`placed`: entities in an area), then `repeat` more screens on the open connection and one
    /// JSON line of their medians (`open_s`, `reply_s`).
    static func firstScreenChild(_ arguments: [String]) async throws {
        guard arguments.count == 3, let url = URL(string: arguments[0]), let repeats = Int(arguments[2]) else {
            throw BenchmarkError("usage: p12-child <home-assistant-url> <token-file> <repeat>")
        }
        let (environment, account) = try signedIn(url: url, tokenFile: arguments[1])
        let (connection, _) = try await HomeAssistantServer.connectAndGroup(account, environment: environment)
        // `connectAndGroup` returns once the entities are live; the registries `get_config` and the three lists
        // bring are read after ready, one after another, and the screen is complete when they are stored too.
        await connection.waitForRegistries()
        guard let home = try await connection.server.stored() else {
            throw BenchmarkError("p12-child: nothing stored after the first screen")
        }
        let groups = home.byArea()
        let placed = groups.filter { !$0.id.isEmpty }.reduce(0) { $0 + $1.entities.count }
        let areas = groups.filter { !$0.id.isEmpty }.count
        LongSession.say(#"{"placed": \#(placed), "areas": \#(areas), "states": \#(home.entities.count)}"#)
        var opens: [Double] = []
        var replies: [Double] = []
        var arrivals: [String: [Double]] = [:]
        for _ in 0..<repeats {
            let screen = try await openScreen(connection)
            guard screen.placed == placed else {
                throw BenchmarkError("p12-child: an open screen placed \(screen.placed) entities, the first \(placed)")
            }
            opens.append(screen.open)
            replies.append(screen.reply)
            for (name, seconds) in screen.arrivals { arrivals[name, default: []].append(seconds) }
        }
        let parts =
            [#""open_s": \#(median(opens))"#, #""reply_s": \#(median(replies))"#, #""repeat": \#(repeats)"#]
            + arrivals.keys.sorted().map { #""\#($0)_s": \#(median(arrivals[$0] ?? []))"# }
        LongSession.say("{" + parts.joined(separator: ", ") + "}")
        await connection.stop()
    }

    /// One screen on the open connection, the peer's messages through the core's connection: a new
    /// `subscribe_entities` and the three registry lists, sent together; its first event and the lists read by the
    /// core's readers (`EntitiesEvent`, `Registries`) and each entity placed by `EntityPlacement`. `reply` is the
    /// server's part, from the last of the four requests handed to the channel to the last answer in. The
    /// subscription ends when its stream is dropped.
    static func openScreen(_ connection: HomeAssistantConnection) async throws -> (
        open: Double, reply: Double, placed: Int, arrivals: [String: Double]
    ) {
        let clock = ContinuousClock()
        let start = clock.now
        let events = await connection.channel.subscribe(["type": "subscribe_entities"])
        let subscribed = clock.now
        async let areas = timedRead(connection, "config/area_registry/list")
        async let devices = timedRead(connection, "config/device_registry/list")
        async let entries = timedRead(connection, "config/entity_registry/list")
        var iterator = events.makeAsyncIterator()
        guard let first = try await iterator.next() else {
            throw BenchmarkError("p12-child: the entity subscription ended before its first event")
        }
        let eventAt = clock.now
        let (areaList, devicesList, entryList) = try await (areas, devices, entries)
        let sent = max(subscribed, areaList.sent, devicesList.sent, entryList.sent)
        let last = max(eventAt, areaList.answered, devicesList.answered, entryList.answered)
        var entities = EntitySet()
        _ = entities.apply(try EntitiesEvent.read(first).value, initial: true)
        let placement = EntityPlacement(
            entities: try Registries.entities(entryList.value).value,
            devices: try Registries.devices(devicesList.value).value)
        let names = Set(try Registries.areas(areaList.value).value.map(\.id))
        var placed = 0
        for id in entities.entities.keys where placement.showsInAreas(id) {
            if let area = placement.areaID(of: id), names.contains(area) { placed += 1 }
        }
        let end = clock.now
        // When each answer came, from the screen's start: where the time went.
        let arrivals = [
            "subscribed": (subscribed - start).seconds, "event": (eventAt - start).seconds,
            "areas": (areaList.answered - start).seconds, "devices": (devicesList.answered - start).seconds,
            "entities": (entryList.answered - start).seconds,
        ]
        return ((end - start).seconds, (last - sent).seconds, placed, arrivals)
    }

    /// A registry list read through the core's connection: its answer, when the read was handed over and when the
    /// answer came.
    private static func timedRead(_ connection: HomeAssistantConnection, _ command: String) async throws -> (
        value: JSONValue, sent: ContinuousClock.Instant, answered: ContinuousClock.Instant
    ) {
        let sent = ContinuousClock.now
        let value = try await connection.read(["type": .string(command)])
        return (value, sent, ContinuousClock.now)
    }

    /// `p13-child <url> <token-file> <seconds>`: follows the core's entity feed for `seconds` (one line once it
    /// follows), then prints `entities`: the entities in the account's store.
    static func followerChild(_ arguments: [String]) async throws {
        guard arguments.count == 3, let url = URL(string: arguments[0]), let seconds = Int(arguments[2]) else {
            throw BenchmarkError("usage: p13-child <home-assistant-url> <token-file> <seconds>")
        }
        let (environment, account) = try signedIn(url: url, tokenFile: arguments[1])
        let (connection, _) = try await HomeAssistantServer.connectAndGroup(account, environment: environment)
        await connection.waitForRegistries()
        LongSession.say("following")
        try await Task.sleep(for: .seconds(seconds))
        let stored = try await connection.server.stored()
        let live = await connection.entities.entities.count
        LongSession.say(#"{"entities": \#(stored?.entities.count ?? 0), "in_memory": \#(live)}"#)
        await connection.stop()
    }

    /// An environment (loopback http allowed, stores in memory) holding a stored sign-in of the long-lived token in
    /// `tokenFile`, and its account.
    static func signedIn(url: URL, tokenFile: String) throws -> (AppEnvironment, AccountKey) {
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let secrets = InMemorySecretStore()
        let environment = AppEnvironment(
            transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .memory), secrets: secrets)
        environment.journal.register(secret: token)
        let address = try environment.address(url.absoluteString)
        let account = AccountKey(address: address, userID: "bench")
        secrets.save(
            StoredCredential(
                account: account, address: address,
                credential: .bearer(accessToken: token, refreshToken: nil, expiresAt: nil), storedAt: Date()))
        return (environment, account)
    }

    /// P12's kit contender: a new process per round (`p12-child`), timed from its spawn to its first line.
    @Sendable
    static func firstScreen(url: URL, tokenFile: String, repeats: Int) async throws -> (
        cold: Double, open: Double, reply: Double
    ) {
        let (lines, first) = try LiveBenchmarks.timedLines(
            CommandLine.arguments[0], ["p12-child", url.absoluteString, tokenFile, "\(repeats)"])
        let screen = try LiveBenchmarks.numbers(lines.first ?? "", from: "p12-child")
        guard screen["placed"] == 1_000 else {
            throw BenchmarkError("p12: the core placed \(screen["placed"] ?? 0) entities in areas, not 1,000")
        }
        let open = try LiveBenchmarks.numbers(lines.last ?? "", from: "p12-child")
        return (first, open["open_s"] ?? .nan, open["reply_s"] ?? .nan)
    }

    /// P13's kit follower: this binary's `p13-child`.
    @Sendable
    static func follower(url: URL, tokenFile: String, seconds: Int) -> [String] {
        [CommandLine.arguments[0], "p13-child", url.absoluteString, tokenFile, "\(seconds)"]
    }
}
