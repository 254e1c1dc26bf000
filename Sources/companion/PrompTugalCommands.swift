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
                    sites. State: $COMPANION_HOME/promptugal (the schedule, cached team data, encrypted vault objects,
                    keys in 0600 files, the debug switch). Plain http only to loopback hosts.
                    """,
                [
                    Command(
                        name: "schedule",
                        summary: "the picks in event order, Lisbon time; pick or drop an event; merge the vault's copy",
                        parameters: [
                            .init(syntax: "[add|remove <event-url>]", help: "an event page's address or its bare slug")
                        ],
                        options: sites + [
                            .option(
                                "from-vault", "KEY",
                                "pull the vault and merge its apps/agenda/picks.json; - reads $COMPANION_VAULT_KEY"),
                            .option(
                                "vault-server", "URL",
                                "the SG/Send server (else $SGIT_SERVER_URL, else dev.send.sgraph.ai)"),
                            .flag("offline", "use the saved agenda only"), .json,
                        ],
                        run: { try await schedule($0) }),
                    Command(
                        name: "team", summary: "team data, kept for offline use (all of it when no part is named)",
                        parameters: [
                            .init(syntax: "[<part>]", help: "me, places, agenda, newsroom, news, meetings or agents")
                        ],
                        options: sites + [.flag("offline", "answer from the saved copies only"), .json],
                        run: { try await team($0) }),
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
                                syntax: "[on|off|<panel>]",
                                help: "vault, network, bridge, storage, keys or build (all when none is named)")
                        ],
                        options: [.json], details: "network, bridge and vault show the previous command's traffic.",
                        run: { try await debug($0) }),
                ])
        ])

    private static let sites: [Command.Option] = [
        .option("team", "URL", "the team site (else $PROMPTUGAL_URL, else the live site)"),
        .option("news", "URL", "the news site (else $PROMPTUGAL_URL, else the live site)"),
    ]

    // MARK: The app's parts, as the terminal wires them

    struct App {
        let folder: URL
        let network: PrompTugalNetwork
        let store: OfflineStore
        let team: TeamData
        let keys: FileKeyStore

        init(_ arguments: Arguments) throws {
            folder = try Terminal.stateFolder("promptugal")
            network = PrompTugalNetwork(journal: Terminal.journal, policy: arguments.transportPolicy)
            store = try OfflineStore(
                scope: AccountKey(serverKey: "promptugal", userID: "me"), location: .directory(folder))
            team = TeamData(bases: try Self.bases(arguments), network: network, store: store)
            keys = FileKeyStore(folder: folder.appendingPathComponent("keys", isDirectory: true))
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
            try await ScheduleStore.load(from: StoreScheduleStorage(store: store))
        }
    }

    // MARK: schedule

    @MainActor
    static func schedule(_ arguments: Arguments) async throws -> Int32 {
        let app = try App(arguments)
        let store = try await app.scheduleStore()
        var notes: [String] = []
        var mirror: JSONValue = .null
        if let action = arguments.positionals.first {
            guard action == "add" || action == "remove" else { throw UsageError("unknown schedule action \(action)") }
            try arguments.expectAtMost(2)
            let target = try arguments.positional(1, "the event's address or slug")
            guard let slug = EventSlug.extract(fromURL: target) ?? EventSlug.normalize(target) else {
                throw UsageError("\(target) is not an event page (…/events/<slug>/index.html) or a slug")
            }
            if (action == "add") != store.isPicked(slug) { store.toggle(slug) }
            notes.append(action == "add" ? "picked \(slug)" : "dropped \(slug)")
        }
        if let given = arguments.option("from-vault") {
            let key = given == "-" ? ProcessInfo.processInfo.environment["COMPANION_VAULT_KEY"] ?? "" : given
            Terminal.journal.register(secret: key)
            let server = try vaultServer(arguments)
            let session = VaultSession(
                keyStore: app.keys, network: app.network, cacheFolder: app.folder.appendingPathComponent("vaults"),
                log: VaultTrafficLog(journal: Terminal.journal))
            let id = try session.importKey(key, server: server)
            let head = try await session.pull(id)
            guard let reader = session.reader(id) else { throw CommandFailure("vault \(id) did not open") }
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
        let agenda = await app.team.agenda(offline: arguments.flag("offline"))
        let events = Dictionary(
            (agenda.value?.events ?? []).map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
        store.setEventStarts(agenda.value?.starts ?? [:])
        await store.saved()
        if let problem = store.saveProblem { throw CommandFailure(problem) }
        if arguments.flag("json") {
            let picks: [JSONValue] = store.picks.map { pick in
                var object: [String: JSONValue] = [
                    "id": .string(pick.id), "at": .string((try? ScheduleTime.write(pick.at)) ?? ""),
                ]
                if let start = store.eventStarts[pick.id] {
                    object["start"] = .string((try? ScheduleTime.write(start)) ?? "")
                    object["lisbon"] = .string(LisbonTime.wallTime(start) + " " + LisbonTime.offset(at: start))
                }
                if let title = events[pick.id]?.title { object["title"] = .string(title) }
                return .object(object)
            }
            var output: [String: JSONValue] = ["picks": .array(picks), "document": store.document.json]
            if mirror != .null { output["mirror"] = mirror }
            Terminal.out(JSONValue.object(output).outputDocument)
            return 0
        }
        for note in notes { Terminal.out(note) }
        if store.picks.isEmpty { Terminal.out("No picks yet: companion promptugal schedule add EVENT-URL") }
        for pick in store.picks {
            let when = store.eventStarts[pick.id].map { LisbonTime.wallTime($0) + " Lisbon" } ?? "(not in the agenda)"
            Terminal.out("\(when)  \(pick.id)\(events[pick.id].map { "  " + $0.title } ?? "")")
        }
        return 0
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

    static let teamParts = ["me", "places", "agenda", "newsroom", "news", "meetings", "agents"]

    static func team(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let parts = arguments.positionals.isEmpty ? teamParts : arguments.positionals
        for part in parts where !teamParts.contains(part) {
            throw UsageError("unknown team data \(part) (one of \(teamParts.joined(separator: ", ")))")
        }
        let app = try App(arguments)
        let offline = arguments.flag("offline")
        var endpoints: [TeamEndpoint] = []
        for part in parts {
            switch part {
            case "me": endpoints.append(.me)
            case "places": endpoints.append(.places)
            case "agenda": endpoints.append(.agenda)
            case "newsroom": endpoints += TeamEndpoint.newsroom
            case "news": endpoints += [.newsletter, .story, .searchDocs, .feed]
            default:
                let discovery = await app.team.discovery(offline: offline)
                guard let found = discovery.value else {
                    throw CommandFailure(TeamData.note(discovery) ?? "llms.txt could not be read")
                }
                endpoints += part == "meetings" ? found.meetings : found.agents
            }
        }
        var rows: [JSONValue] = []
        var failed = 0
        for endpoint in endpoints {
            let state: ScreenState<JSONValue> =
                endpoint == .feed
                ? await app.team.load(endpoint, offline: offline) { .string(String(decoding: $0, as: UTF8.self)) }
                : await app.team.loadJSON(endpoint, offline: offline)
            if case .failed = state { failed += 1 }
            var row: [String: JSONValue] = [
                "endpoint": .string(endpoint.name), "path": .string(endpoint.path),
                "state": .string(TeamData.summary(state)),
            ]
            if case .content(_, let fetchedAt) = state {
                row["fetchedAt"] = .string((try? ScheduleTime.write(fetchedAt)) ?? "")
            }
            if let age = TeamData.age(state) { row["ageSeconds"] = .integer(Int64(age.rounded())) }
            if let note = TeamData.note(state) { row["note"] = .string(note) }
            if let value = state.value { row["value"] = value }
            rows.append(.object(row))
            if !arguments.flag("json") {
                Terminal.out(
                    "\(endpoint.name): \(TeamData.summary(state)), \(describe(state.value, endpoint))"
                        + (TeamData.note(state).map { " (\($0))" } ?? ""))
            }
        }
        if arguments.flag("json") { Terminal.out(JSONValue.array(rows).outputDocument) }
        return failed == endpoints.count ? 1 : 0
    }

    static func describe(_ value: JSONValue?, _ endpoint: TeamEndpoint) -> String {
        guard let value else { return "nothing to show" }
        if case .string(let text) = value { return "\(text.utf8.count) bytes" }
        if endpoint == .me { return "\(value["name"]?.stringValue ?? "?") (\(value["personId"]?.stringValue ?? "?"))" }
        if endpoint == .places {
            let places = value["places"]?.arrayValue ?? []
            let located = places.filter { $0["lat"] != nil }.count
            return "\(places.count) places, \(located) with coordinates"
        }
        if let members = value.objectValue,
            let (name, list) = members.sorted(by: { $0.key < $1.key }).lazy.compactMap({ member in
                member.value.arrayValue.map { (member.key, $0) }
            }).first
        {
            return "\(list.count) \(name)"
        }
        return "\(value.objectValue?.count ?? 0) fields"
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
        let app = try App(arguments)
        let mode = DebugMode(storage: FileDebugFlag(url: app.folder.appendingPathComponent("debug")))
        if let word = arguments.positionals.first, word == "on" || word == "off" {
            mode.set(word == "on")
            Terminal.out(
                arguments.flag("json")
                    ? JSONValue.object(["debug": .bool(mode.isOn)]).outputLine : "debug mode \(word)")
            return 0
        }
        let wanted: [DebugPanel]
        if let name = arguments.positionals.first {
            guard let panel = DebugPanel(rawValue: name) else {
                throw UsageError(
                    "unknown panel \(name) (one of \(DebugPanel.allCases.map(\.rawValue).joined(separator: ", ")), on, off)"
                )
            }
            wanted = [panel]
        } else {
            wanted = DebugPanel.allCases
        }
        guard mode.isOn else {
            throw CommandFailure("debug mode is off: turn it on with `companion promptugal debug on`")
        }
        let saved = (try? Data(contentsOf: try Terminal.journalFile())).map { Journal.importJSONLines($0).events } ?? []
        let sources = DebugSources(
            journal: Terminal.journal, events: { saved }, vaultLog: nil, store: app.store,
            vaultCaches: app.folder.appendingPathComponent("vaults"), keyStore: app.keys,
            build: BuildInfo(version: "1.0.0", build: "1", commit: buildCommit, siteRelease: nil))
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

    /// The commit this build came from, when the build passes it in; "unknown" otherwise.
    static var buildCommit: String { ProcessInfo.processInfo.environment["COMPANION_BUILD_COMMIT"] ?? "unknown" }
}
