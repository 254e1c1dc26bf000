import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionScreen
import CompanionStore
import CompanionVault
import Foundation
import PrompTugalCore

/// `companion promptugal …`: the PrompTugal app's core, headless.
enum PrompTugalCommands {
    /// `promptugal schedule|team|destinations|debug`.
    static let family = CommandFamily(
        title: "Apps",
        commands: [
            .group(
                "promptugal", summary: "the PrompTugal app, headless",
                details: """
                    Team data comes from --team URL and --news URL, else $PROMPTUGAL_URL for both, else the live
                    sites. State: $COMPANION_HOME/promptugal (the schedule, saved team data, encrypted vault objects,
                    keys in 0600 files, the debug switch). Plain http only to loopback hosts, none with --https-only.
                    """,
                [
                    Command(
                        name: "schedule",
                        summary: "the picks in event order, Lisbon time; pick or drop an event; merge the vault's copy",
                        options: sites + [
                            .option("add", "EVENT", "pick an event: its page's address or its bare slug"),
                            .option("remove", "EVENT", "drop an event: its page's address or its bare slug"),
                            .option(
                                "from-vault", "KEY",
                                "pull the vault and merge its apps/agenda/picks.json; - reads $COMPANION_VAULT_KEY"),
                            .option(
                                "vault-server", "URL",
                                "the SG/Send server (else $SGIT_SERVER_URL, else dev.send.sgraph.ai)"),
                            .flag("offline", "use the saved agenda only"), .httpsOnly, .json,
                        ],
                        run: { try await schedule($0) }),
                    Command(
                        name: "team", summary: "team data, kept for offline use (every part when none is named)",
                        parameters: [
                            .init(
                                syntax: "[<part>]",
                                help: TeamPart.allCases.map(\.rawValue).joined(separator: ", "))
                        ],
                        options: sites + [.flag("offline", "answer from the saved copies only"), .httpsOnly, .json],
                        run: { try await team($0) }),
                    Command(
                        name: "key", summary: "keep or forget the OpenRouter key (sent only to https://openrouter.ai)",
                        parameters: [.init(syntax: "set|delete openrouter", help: "the key to keep or forget")],
                        options: [.json],
                        details: """
                            set reads the key from standard input (without echo on a terminal) and keeps it in a
                            0600 file under $COMPANION_HOME/promptugal/keys; every request the terminal makes carries
                            it to https://openrouter.ai only, never to the team sites or a vault server.
                            """,
                        run: { try key($0) }),
                    Command(
                        name: "destinations", summary: "where the shell puts each destination",
                        options: [
                            .flag("compact", "an iPhone's width: tabs and More"),
                            .flag("regular", "an iPad's width: the sidebar (the default)"), .json,
                        ],
                        run: { try destinations($0) }),
                    Command(
                        name: "debug", summary: "turn debug mode on or off, or show its panels",
                        parameters: [
                            .init(
                                syntax: "[<panel>]",
                                help: DebugPanel.allCases.map(\.rawValue).joined(separator: ", ")
                                    + " (all when none is named)")
                        ],
                        options: [
                            .flag("on", "turn debug mode on (as the Settings switch does)"),
                            .flag("off", "turn debug mode off"), .json,
                        ],
                        details: "network, bridge and vault show the previous command's traffic.",
                        run: { try await debug($0) }),
                ])
        ])

    private static let sites: [Command.Option] = [
        .option("team", "URL", "the team site (else $PROMPTUGAL_URL, else the live site)"),
        .option("news", "URL", "the news site (else $PROMPTUGAL_URL, else the live site)"),
    ]

    // MARK: The app's parts, as the terminal wires them

    /// The terminal's app: the terminal's one environment (`CommandEnvironment`: the platform's transport under the
    /// command's transport policy and each server's network settings, the terminal's journal, stores in the state
    /// folder), PrompTugal's sites opened from it. PrompTugal keeps no credential: its keys are in `keys`.
    struct App {
        let folder: URL
        let server: PrompTugalServer
        let team: TeamData
        let keys: FileKeyStore

        init(_ arguments: Arguments) async throws {
            folder = try Terminal.stateFolder("promptugal")
            keys = FileKeyStore(folder: folder.appendingPathComponent("keys", isDirectory: true))
            let environment = try CommandEnvironment.make(arguments, stores: .folder("promptugal"))
            let keys = keys
            do {
                server = try await PrompTugalServer.open(
                    sites: try Self.bases(arguments), environment: environment,
                    openRouterKey: { try? keys.load(.openRouter) })
            } catch let error as PrompTugalServerError {
                throw CommandFailure(error.description)
            }
            team = TeamData(server: server)
        }

        static func bases(_ arguments: Arguments) throws -> TeamDataBases {
            let standIn = ProcessInfo.processInfo.environment["PROMPTUGAL_URL"].flatMap { $0.isEmpty ? nil : $0 }
            func url(_ option: String, _ fallback: URL) throws -> URL {
                guard let text = arguments.option(option) ?? standIn else { return fallback }
                guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                    throw UsageError("--\(option) must be an http(s) address")
                }
                return url
            }
            return TeamDataBases(
                team: try url("team", TeamDataBases.production.team),
                news: try url("news", TeamDataBases.production.news))
        }

        @MainActor
        func scheduleStore() async throws -> ScheduleStore {
            try await ScheduleStore.load(from: StoreScheduleStorage(store: server.appStore), clock: server.clock)
        }
    }

    /// The one value of `Choice` the first positional names, or every value when none is named.
    static func chosen<Choice: CaseIterable & RawRepresentable>(
        _ type: Choice.Type, _ arguments: Arguments, _ what: String
    ) throws -> [Choice] where Choice.RawValue == String {
        guard let name = arguments.positionals.first else { return Array(Choice.allCases) }
        guard let choice = Choice(rawValue: name) else {
            throw UsageError(
                "unknown \(what) \(name) (one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return [choice]
    }

    /// A time as every `--json` document writes it (`JSONOutput.timestamp`).
    static func time(_ date: Date) -> JSONValue { .string(JSONOutput.timestamp(date)) }

    // MARK: schedule

    @MainActor
    static func schedule(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let app = try await App(arguments)
        let store = try await app.scheduleStore()
        var notes: [String] = []
        var mirror: JSONValue = .null
        for (option, picked) in [("add", true), ("remove", false)] {
            guard let target = arguments.option(option) else { continue }
            guard let slug = EventSlug.extract(fromURL: target) ?? EventSlug.normalize(target) else {
                throw UsageError("\(target) is not an event page (…/events/<slug>/index.html) or a slug")
            }
            if picked != store.isPicked(slug) { store.toggle(slug) }
            notes.append(picked ? "picked \(slug)" : "dropped \(slug)")
        }
        if let given = arguments.option("from-vault") {
            let key = given == "-" ? ProcessInfo.processInfo.environment["COMPANION_VAULT_KEY"] ?? "" : given
            Terminal.journal.register(secret: key)
            let session = VaultSession(
                keyStore: app.keys, server: app.server, cacheFolder: app.folder.appendingPathComponent("vaults"),
                log: VaultTrafficLog(journal: Terminal.journal))
            let head = try await session.importKey(key, server: try vaultServer(arguments))
            guard let id = session.vaults.last?.id, let reader = session.reader(id) else {
                throw CommandFailure("the vault did not open")
            }
            switch try await ScheduleMirror.merge(from: reader, into: store, log: session.log) {
            case .merged(let added, let skipped):
                notes.append("merged \(ScheduleMirror.vaultPath) from vault \(id) at \(head.id): \(added.count) new")
                mirror = [
                    "vault": .string(id), "head": .string(head.id), "added": .array(added.map(JSONValue.string)),
                    "skipped": .integer(Int64(skipped)),
                ]
            case .absent:
                notes.append("vault \(id) has no \(ScheduleMirror.vaultPath); the schedule is unchanged")
                mirror = ["vault": .string(id), "head": .string(head.id), "absent": true]
            case .malformed(let reason):
                notes.append(reason)
                mirror = ["vault": .string(id), "head": .string(head.id), "malformed": .string(reason)]
            }
        }
        let model = ScheduleModel(store: store, team: app.team)
        await model.load(offline: arguments.flag("offline"))
        await store.saved()
        if let problem = store.saveProblem { throw CommandFailure(problem) }
        let picks: [JSONValue] = model.rows.map { row in
            var object: [String: JSONValue] = ["id": .string(row.id), "at": time(ScheduleTime.kept(row.pick.at))]
            if let start = row.start {
                object["start"] = time(start)
                object["lisbon"] = .string(LisbonTime.wallTime(start) + " " + LisbonTime.offset(at: start))
            }
            if let title = row.event?.title { object["title"] = .string(title) }
            return .object(object)
        }
        var value: [String: JSONValue] = ["picks": .array(picks), "document": store.document.json]
        if mirror != .null { value["mirror"] = mirror }
        if !arguments.flag("json") { notes.forEach(Terminal.out) }
        let lines =
            (store.picks.isEmpty ? ["No picks yet: companion promptugal schedule --add EVENT-URL"] : [])
            + model.rows.map { row in
                let when = row.lisbonTime.map { $0 + " Lisbon" } ?? "(not in the agenda)"
                return "\(when)  \(row.id)\(row.event?.title.map { "  " + $0 } ?? "")"
            }
        return try ScreenOutput.show(
            screen: "schedule", scheduleState(model.agenda, value: .object(value)), now: app.server.clock.now(),
            json: arguments.flag("json"), signIn: "", lines: { _ in lines })
    }

    /// The schedule screen's state: the picks are the device's own and always shown; the agenda that gives them
    /// their start times and order decides the rest. A live agenda is `content`; a saved copy keeps its `stale` or
    /// `offline` state with its age and reason; an agenda that could not be read at all leaves the picks shown
    /// `stale` without start times, 0 s old, its sentence as the reason.
    static func scheduleState(_ agenda: ScreenState<TeamAgenda>, value: JSONValue) -> ScreenState<JSONValue> {
        switch agenda {
        case .loading: return .stale(value, age: 0, problem: "The agenda was not read.")
        case .failed(let reason, _): return .stale(value, age: 0, problem: reason)
        default: return agenda.map { _ in value }
        }
    }

    static func vaultServer(_ arguments: Arguments) throws -> URL {
        let text = arguments.option("vault-server") ?? ProcessInfo.processInfo.environment["SGIT_SERVER_URL"]
        guard let text, !text.isEmpty else { return HTTPVaultSource.defaultServer }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError("--vault-server must be an http(s) address")
        }
        return url
    }

    // MARK: team

    /// The parts `team` reads, by name.
    enum TeamPart: String, CaseIterable {
        case me, places, agenda, newsroom, news, meetings, agents
        case commandCentre = "command-centre"
    }

    /// One file's row of `team`: its screen (named by the file's endpoint), with the file's path beside the report
    /// in the JSON, and its line of text.
    struct TeamRow {
        let listed: ScreenOutput.Listed<JSONValue>

        init<Value>(
            name: String, path: String?, state: ScreenState<Value>, summary: String, value: (Value) -> JSONValue,
            note: String? = nil
        ) {
            let shown = state.map(value)
            let note = note ?? state.problem
            listed = ScreenOutput.Listed(
                screen: name, state: shown, extra: path.map(FilePath.init),
                line: "\(name): \(TeamData.summary(state)), \(summary)" + (note.map { " (\($0))" } ?? ""))
        }
    }

    /// The member a team file's report carries beside its own: the file's path on its site.
    struct FilePath: Encodable, Sendable {
        let path: String
    }

    static func team(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let parts = try chosen(TeamPart.self, arguments, "team data")
        let app = try await App(arguments)
        let offline = arguments.flag("offline")
        var rows: [TeamRow] = []
        for part in parts { rows += await read(part, app: app, offline: offline) }
        return try ScreenOutput.showEach(rows.map(\.listed), now: app.server.clock.now(), json: arguments.flag("json"))
    }

    /// The rows of one part.
    static func read(_ part: TeamPart, app: App, offline: Bool) async -> [TeamRow] {
        let team = app.team
        switch part {
        case .me:
            let state = await team.me(offline: offline)
            let summary = state.value.map { me in
                var parts = ["\(me.name ?? "?") (\(me.personID ?? "no id"))"]
                for (name, count) in [
                    ("badge", me.counts.badge), ("only you", me.counts.onlyYou), ("to decide", me.counts.decide),
                    ("overdue", me.counts.overdue),
                ] {
                    if let count { parts.append("\(name) \(count)") }
                }
                if let people = me.peopleCount { parts.append(people == 1 ? "1 person" : "\(people) people") }
                return (parts + me.skips.map(\.description)).joined(separator: ", ")
            }
            return [
                TeamRow(
                    name: "me", path: TeamEndpoint.me.path, state: state, summary: summary ?? "nothing to show",
                    value: json)
            ]
        case .places:
            let state = await team.places(offline: offline)
            let summary = state.value.map { places in
                (["\(places.places.count) places", "\(places.located.count) with coordinates"]
                    + places.skips.map(\.description)).joined(separator: ", ")
            }
            return [
                TeamRow(
                    name: "places", path: TeamEndpoint.places.path, state: state,
                    summary: summary ?? "nothing to show", value: json)
            ]
        case .agenda:
            let state = await team.agenda(offline: offline)
            let summary = state.value.map { agenda in
                (["\(agenda.events.count) events", "\(agenda.starts.count) with a start"]
                    + agenda.skips.map(\.description)).joined(separator: ", ")
            }
            return [
                TeamRow(
                    name: "agenda", path: TeamEndpoint.agenda.path, state: state,
                    summary: summary ?? "nothing to show", value: json)
            ]
        case .newsroom:
            var rows: [TeamRow] = []
            for endpoint in TeamEndpoint.newsroom { rows.append(await jsonRow(endpoint, team: team, offline: offline)) }
            return rows
        case .news:
            var rows: [TeamRow] = []
            for endpoint in TeamEndpoint.news where endpoint != .feed {
                rows.append(await jsonRow(endpoint, team: team, offline: offline))
            }
            let feed = await team.feed(offline: offline)
            rows.append(
                TeamRow(
                    name: "feed", path: TeamEndpoint.feed.path, state: feed,
                    summary: feed.value.map { "\($0.format.rawValue), \($0.items.count) items" } ?? "nothing to show",
                    value: json))
            return rows
        case .meetings, .agents:
            let discovery = await team.discovery(offline: offline)
            let kinds = TeamFeedKind.allCases.filter { part == .meetings ? !$0.isAgents : $0.isAgents }
            guard let found = discovery.value else {
                return [
                    TeamRow(
                        name: part.rawValue, path: TeamEndpoint.llmsTxt.path, state: discovery,
                        summary: "nothing to show", value: { _ in .null })
                ]
            }
            var rows: [TeamRow] = []
            for kind in kinds {
                if let note = found.note(for: kind) {
                    let missing: ScreenState<JSONValue> = .failed(reason: note, signInRequired: false)
                    rows.append(
                        TeamRow(name: kind.endpointName, path: nil, state: missing, summary: "missing", value: { $0 }))
                }
                for endpoint in found.endpoints(of: [kind]) {
                    rows.append(await jsonRow(endpoint, team: team, offline: offline))
                }
            }
            return rows
        case .commandCentre:
            let model = await MainActor.run { CommandCentreModel(team: team) }
            await model.load(offline: offline)
            let (state, endpoint) = await MainActor.run { (model.state, model.endpoint) }
            let summary = state.value.map { centre in
                ([
                    "\(centre.tasks.count) tasks (\(centre.tasks.filter { $0.done == true }.count) done)",
                    "\(centre.decisions.count) decisions", "\(centre.namedForMe.count) named for you",
                    "\(centre.today.count) today",
                ] + centre.skips.map(\.description)).joined(separator: ", ")
            }
            return [
                TeamRow(
                    name: "command-centre", path: endpoint?.path, state: state, summary: summary ?? "nothing to show",
                    value: json)
            ]
        }
    }

    /// The row of a file read as any JSON.
    static func jsonRow(_ endpoint: TeamEndpoint, team: TeamData, offline: Bool) async -> TeamRow {
        let state = await team.json(endpoint, offline: offline)
        return TeamRow(
            name: endpoint.name, path: endpoint.path, state: state,
            summary: state.value.map(describe) ?? "nothing to show", value: { $0 })
    }

    /// `180 stories`: the first list in a file, else how many fields it has.
    static func describe(_ value: JSONValue) -> String {
        if let list = value.arrayValue { return "\(list.count) items" }
        if let members = value.objectValue,
            let (name, list) = members.sorted(by: { $0.key < $1.key }).lazy.compactMap({ member in
                member.value.arrayValue.map { (member.key, $0) }
            }).first
        {
            return "\(list.count) \(name)"
        }
        return "\(value.objectValue?.count ?? 0) fields"
    }

    // MARK: team: values as JSON

    static func json(_ me: TeamMe) -> JSONValue {
        var counts: [String: JSONValue] = [:]
        for (name, count) in [
            ("badge", me.counts.badge), ("onlyYou", me.counts.onlyYou), ("decide", me.counts.decide),
            ("overdue", me.counts.overdue),
        ] {
            if let count { counts[name] = .integer(Int64(count)) }
        }
        var object: [String: JSONValue] = ["counts": .object(counts), "skips": json(me.skips)]
        if let id = me.personID { object["personId"] = .string(id) }
        if let name = me.name { object["name"] = .string(name) }
        if let count = me.peopleCount {
            object["peopleCount"] = .integer(Int64(count))
            object["people"] = .array(
                me.people.map { person in
                    var entry: [String: JSONValue] = ["id": .string(person.id)]
                    if let name = person.name { entry["name"] = .string(name) }
                    return .object(entry)
                })
        }
        return .object(object)
    }

    /// `[{"what", "count", "reason"}]`.
    static func json(_ skips: [TeamSkip]) -> JSONValue {
        .array(
            skips.map {
                ["what": .string($0.what), "count": .integer(Int64($0.count)), "reason": .string($0.reason)]
            })
    }

    static func json(_ places: TeamPlaces) -> JSONValue {
        .object([
            "skipped": .integer(Int64(places.skipped)), "skips": json(places.skips),
            "places": .array(
                places.places.map { place in
                    var object: [String: JSONValue] = ["id": .string(place.id), "name": .string(place.name)]
                    if let kind = place.kind { object["kind"] = .string(kind) }
                    if let area = place.area { object["area"] = .string(area) }
                    if let capacity = place.capacity { object["capacity"] = .integer(Int64(capacity)) }
                    if let point = place.coordinates {
                        object["latitude"] = .number(point.latitude)
                        object["longitude"] = .number(point.longitude)
                    }
                    return .object(object)
                }),
        ])
    }

    static func json(_ agenda: TeamAgenda) -> JSONValue {
        .object([
            "skipped": .integer(Int64(agenda.skipped)), "skips": json(agenda.skips),
            "events": .array(
                agenda.events.map { event in
                    var object: [String: JSONValue] = ["slug": .string(event.slug)]
                    if let title = event.title { object["title"] = .string(title) }
                    if let start = event.start { object["start"] = time(start) }
                    if let end = event.end { object["end"] = time(end) }
                    if let place = event.place { object["place"] = .string(place) }
                    if let url = event.url { object["url"] = .string(url) }
                    return .object(object)
                }),
        ])
    }

    static func json(_ feed: NewsFeed) -> JSONValue {
        var object: [String: JSONValue] = [
            "format": .string(feed.format.rawValue),
            "items": .array(
                feed.items.map { item in
                    var entry: [String: JSONValue] = [:]
                    if let title = item.title { entry["title"] = .string(title) }
                    if let link = item.link { entry["link"] = .string(link) }
                    if let date = item.date { entry["date"] = time(date) }
                    if let id = item.id { entry["id"] = .string(id) }
                    return .object(entry)
                }),
        ]
        if let title = feed.title { object["title"] = .string(title) }
        return .object(object)
    }

    static func json(_ centre: CommandCentre) -> JSONValue {
        func items(_ list: [CommandCentre.Item]) -> JSONValue {
            .array(
                list.map { item in
                    var object: [String: JSONValue] = ["id": .string(item.id), "text": .string(item.text)]
                    if let done = item.done { object["done"] = .bool(done) }
                    if let at = item.at { object["at"] = .string(at) }
                    return .object(object)
                })
        }
        return .object([
            "tasks": items(centre.tasks), "decisions": items(centre.decisions),
            "namedForMe": items(centre.namedForMe), "today": items(centre.today),
            "skipped": .integer(Int64(centre.skipped)), "skips": json(centre.skips),
        ])
    }

    // MARK: key

    static func key(_ arguments: Arguments) throws -> Int32 {
        try arguments.expectAtMost(2)
        let words = arguments.positionals
        guard words.count == 2, words[1] == "openrouter", let action = words.first, ["set", "delete"].contains(action)
        else {
            throw UsageError("give `key set openrouter` or `key delete openrouter`")
        }
        let folder = try Terminal.stateFolder("promptugal")
        let keys = FileKeyStore(folder: folder.appendingPathComponent("keys", isDirectory: true))
        let origin = OpenRouterKeyMiddleware.BoundOrigin.openRouter
        let bound = "\(origin.scheme)://\(origin.host)"
        let secret = action == "set" ? try AuthCommands.secret("OpenRouter key: ", fromStdin: false) : nil
        do throws(KeyStoreError) {
            if let secret {
                try keys.save(secret, as: .openRouter, protection: .openRouter(biometric: false))
            } else {
                try keys.delete(.openRouter)
            }
        } catch {
            throw CommandFailure(error.description)
        }
        if arguments.flag("json") {
            Terminal.out(
                JSONValue.object([
                    "key": "openrouter", "stored": .bool(action == "set"), "boundTo": .string(bound),
                ]).outputLine)
        } else {
            Terminal.out(
                action == "set"
                    ? "The OpenRouter key is kept in a 0600 file; it is sent only to \(bound)."
                    : "The OpenRouter key is forgotten.")
        }
        return 0
    }

    // MARK: destinations

    static func destinations(_ arguments: Arguments) throws -> Int32 {
        try arguments.expectAtMost(0)
        if arguments.flag("compact"), arguments.flag("regular") {
            throw UsageError("give --compact or --regular, not both")
        }
        let width: WidthClass = arguments.flag("compact") ? .compact : .regular
        let registry = DestinationRegistry.promptugal()
        let layout = ShellLayout.decide(registry, width: width)
        func item(_ destination: Destination) -> JSONValue {
            [
                "id": .string(destination.id), "title": .string(destination.title),
                "symbol": .string(destination.symbol),
                "section": .string(destination.section.rawValue), "kind": .string(destination.kind.badge),
            ]
        }
        switch layout {
        case .sidebar(let groups):
            if arguments.flag("json") {
                let sidebar: [JSONValue] = groups.map {
                    ["section": .string($0.section.title), "destinations": .array($0.destinations.map(item))]
                }
                Terminal.out(
                    JSONValue.object(["width": "regular", "sidebar": .array(sidebar)]).outputDocument)
            } else {
                for group in groups {
                    Terminal.out(group.section.title)
                    for destination in group.destinations {
                        Terminal.out("  \(destination.title) [\(destination.kind.badge)]")
                    }
                }
            }
        case .tabs(let tabs, let more):
            if arguments.flag("json") {
                Terminal.out(
                    JSONValue.object([
                        "width": "compact", "tabs": .array(tabs.map(item)), "more": .array(more.map(item)),
                    ])
                    .outputDocument)
            } else {
                Terminal.out(
                    "Tabs: "
                        + (tabs.map(\.title) + (more.isEmpty ? [] : [ShellLayout.moreTitle])).joined(separator: " | "))
                if !more.isEmpty { Terminal.out("More: " + more.map(\.title).joined(separator: ", ")) }
            }
        }
        return 0
    }

    // MARK: debug

    @MainActor
    static func debug(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let folder = try Terminal.stateFolder("promptugal")
        let clock = SystemWallClock()
        let mode = DebugMode(storage: FileDebugFlag(url: folder.appendingPathComponent("debug")), clock: clock)
        if arguments.flag("on") || arguments.flag("off") {
            guard !(arguments.flag("on") && arguments.flag("off")), arguments.positionals.isEmpty else {
                throw UsageError("give --on or --off alone")
            }
            mode.set(arguments.flag("on"))
            Terminal.out(
                arguments.flag("json")
                    ? JSONValue.object(["debug": .bool(mode.isOn)]).outputLine
                    : "debug mode \(mode.isOn ? "on" : "off")")
            return 0
        }
        let wanted = try chosen(DebugPanel.self, arguments, "panel")
        guard mode.isOn else {
            throw CommandFailure("debug mode is off: turn it on with `companion promptugal debug --on`")
        }
        let app = try await App(arguments)
        let saved = (try? Data(contentsOf: try Terminal.journalFile())).map { Journal.importJSONLines($0).events } ?? []
        let sources = DebugSources(
            journal: Terminal.journal, events: { saved }, vaultLog: nil,
            stores: [app.server.appStore, app.server.team.store, app.server.news.store],
            vaultCaches: app.folder.appendingPathComponent("vaults"), keyStore: app.keys,
            build: BuildStamp.info, clock: clock)
        var panels: [String: JSONValue] = [:]
        for panel in mode.panels where wanted.contains(panel) {
            let rows = await sources.rows(panel)
            if arguments.flag("json") {
                panels[panel.rawValue] = .array(
                    rows.map { ["title": .string($0.title), "detail": .string($0.detail)] })
            } else {
                Terminal.out("== \(panel.title) (\(rows.count))")
                for row in rows.prefix(50) { Terminal.out("  \(row.title)  \(row.detail)") }
                if rows.count > 50 { Terminal.out("  … \(rows.count - 50) more") }
            }
        }
        if arguments.flag("json") {
            Terminal.out(JSONValue.object(["debug": true, "panels": .object(panels)]).outputDocument)
        }
        return 0
    }
}

/// What the Build panel shows of this binary: PrompTugal's version, whether it is a debug or a release build, and
/// the git commit of the checkout it was built from.
enum BuildStamp {
    /// The panel's values.
    static var info: BuildInfo {
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        return BuildInfo(version: BuildInfo.promptugalVersion, build: build, commit: commit, siteRelease: nil)
    }

    /// `$COMPANION_BUILD_COMMIT` when a packager sets it; else the commit checked out where this file was compiled
    /// (its `.git`, a worktree's too); `unknown` when there is none.
    static var commit: String {
        if let given = ProcessInfo.processInfo.environment["COMPANION_BUILD_COMMIT"], !given.isEmpty { return given }
        return head(above: URL(fileURLWithPath: #filePath).deletingLastPathComponent()) ?? "unknown"
    }

    /// The commit `HEAD` names in the git checkout holding `folder`, read from its files (no `git` needed).
    static func head(above folder: URL) -> String? {
        var current = folder
        while current.path != "/" {
            let dotGit = current.appendingPathComponent(".git")
            if let gitDir = gitDirectory(dotGit) { return resolve(gitDir) }
            current.deleteLastPathComponent()
        }
        return nil
    }

    /// The git directory of a `.git` folder, or of a worktree's `.git` file (`gitdir: …`).
    static func gitDirectory(_ dotGit: URL) -> URL? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isFolder) else { return nil }
        if isFolder.boolValue { return dotGit }
        guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else {
            return nil
        }
        let path = text.dropFirst(7).trimmingCharacters(in: .whitespacesAndNewlines)
        return URL(fileURLWithPath: path, relativeTo: dotGit.deletingLastPathComponent()).standardizedFileURL
    }

    /// The commit `HEAD` of `gitDir` names: a detached id, or its branch's, from the loose ref or `packed-refs`
    /// (of the shared directory for a worktree).
    static func resolve(_ gitDir: URL) -> String? {
        func read(_ url: URL) -> String? {
            (try? String(contentsOf: url, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let head = read(gitDir.appendingPathComponent("HEAD")) else { return nil }
        guard head.hasPrefix("ref: ") else { return isCommit(head) ? head : nil }
        let ref = String(head.dropFirst(5))
        var places = [gitDir]
        if let common = read(gitDir.appendingPathComponent("commondir")) {
            places.append(URL(fileURLWithPath: common, relativeTo: gitDir).standardizedFileURL)
        }
        for place in places {
            if let id = read(place.appendingPathComponent(ref)), isCommit(id) { return id }
            for line in (read(place.appendingPathComponent("packed-refs")) ?? "").split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 2, parts[1] == ref, isCommit(String(parts[0])) { return String(parts[0]) }
            }
        }
        return nil
    }

    static func isCommit(_ text: String) -> Bool { text.count == 40 && text.allSatisfy(\.isHexDigit) }
}
