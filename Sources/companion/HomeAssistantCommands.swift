import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import HomeAssistantCore

/// `companion homeassistant …`: the Home Assistant core, headless (H-CLI). One sign-in per server: `login` stores
/// the credential in the terminal's secret store and the address in `homeassistant.json`; every other command
/// opens that account with the terminal's one environment (`CommandEnvironment`) and prints through the one
/// screen printer (`ScreenOutput`).
enum HomeAssistantCommands {
    static let family = CommandFamily(
        title: "Apps",
        commands: [
            .group(
                "homeassistant", summary: "a Home Assistant server, headless: sign in, states, calls, watch",
                details: """
                    The sign-in is the login flow with its TOTP step (one sign-in per server). The states are read
                    over the live WebSocket connection into the offline store; --offline prints the stored ones with
                    their age and makes no request.
                    """,
                [
                    Command(
                        name: "login", summary: "sign in (username, password, then the TOTP code when asked)",
                        parameters: [.init(syntax: "<address>", help: "the server, such as 127.0.0.1:8123")],
                        options: [
                            .option("user", "NAME", "the user name (asked for when missing)"),
                            .flag("password-stdin", "read the password, then any code, from standard input"),
                            .httpsOnly,
                        ],
                        exitCodes: "Exit codes: 0 signed in, 1 refused or failed, 2 usage error.", run: login),
                    Command(
                        name: "probe", summary: "whether Home Assistant answers, its version and sign-in providers",
                        parameters: [.init(syntax: "<address>", help: "the server")], options: [.json, .httpsOnly],
                        exitCodes: "Exit codes: 0 Home Assistant answers, 1 it does not, 2 usage error.", run: probe),
                    Command(
                        name: "states",
                        summary: "the entities grouped by area (live, or the stored ones with --offline)",
                        options: [
                            .option("area", "AREA", "only this area (id or name)"),
                            .option("domain", "DOMAIN", "only this domain (light, input_boolean…)"),
                            .flag("by-domain", "group by domain instead of area"),
                            .flag("offline", "print the stored states with their age; no request"), .json,
                            .httpsOnly,
                        ],
                        exitCodes: shownCodes, run: states),
                    Command(
                        name: "state", summary: "one entity: its state, since when, its area and attributes",
                        parameters: [.init(syntax: "<entity_id>", help: "such as light.kitchen_light_3")],
                        options: [.flag("offline", "the stored state; no request"), .json, .httpsOnly],
                        exitCodes: shownCodes, run: state),
                    Command(
                        name: "call", summary: "call a service once and print its outcome (never resent)",
                        parameters: [.init(syntax: "<domain.service>", help: "such as input_number.set_value")],
                        options: [
                            .option("entity", "ID", "an entity to act on", repeats: true),
                            .option("data", "JSON", "the service's other fields, a JSON object"),
                            .flag("response", "ask for the service's response"), .json, .httpsOnly,
                        ],
                        exitCodes: callCodes, run: call),
                    Command(
                        name: "toggle", summary: "the entity's main action (toggle, press, turn on…)",
                        parameters: [.init(syntax: "<entity_id>", help: "the entity")], options: [.json, .httpsOnly],
                        exitCodes: callCodes, run: toggle),
                    Command(
                        name: "watch", summary: "print each change as it arrives; stays connected through drops",
                        parameters: [.init(syntax: "[<entity_id>…]", help: "only these entities (default: all)")],
                        options: [
                            .option("events", "N", "exit 0 after N changes (default: run until interrupted)"), .json,
                            .httpsOnly,
                        ],
                        exitCodes: "Exit codes: 0 N changes printed, 1 the connection was refused, 2 usage error.",
                        run: watch),
                    Command(
                        name: "logout", summary: "revoke the refresh token and forget the sign-in (states are kept)",
                        options: [.httpsOnly], run: logout),
                    Command(
                        name: "onboard", summary: "set up a fresh test Home Assistant on this machine and sign in",
                        parameters: [.init(syntax: "<address>", help: "a loopback address, such as 127.0.0.1:8123")],
                        options: [
                            .option("user", "NAME", "the owner's user name (default: ci)"),
                            .option("name", "NAME", "the owner's display name (default: CI Owner)"),
                            .flag("password-stdin", "read the owner's password from standard input"), .json,
                        ],
                        details: """
                            Onboarding makes the server's owner, so only a server on this machine (a loopback address)
                            is onboarded. The owner's tokens are kept as a sign-in's would be (one sign-in per server).
                            """,
                        exitCodes:
                            "Exit codes: 0 onboarded and signed in, 1 already set up or refused, 2 usage error "
                            + "(an address that is not loopback).",
                        run: onboard),
                    Command(
                        name: "token", summary: "make a long-lived access token and print it once",
                        parameters: [.init(syntax: "create", help: "the action")],
                        options: [
                            .option("name", "NAME", "the token's name in the profile (required)"),
                            .option("days", "N", "how many days it is valid (default 365)"), .json, .httpsOnly,
                        ],
                        details: """
                            Asks over the live connection as the signed-in user (auth/long_lived_access_token). The
                            token is printed once and kept nowhere: copy it now.
                            """,
                        exitCodes: "Exit codes: 0 printed, 1 refused or not connected, 2 usage error.",
                        run: token),
                ] + HomeAssistantDeviceCommands.subcommands)
        ])

    static let shownCodes =
        "Exit codes: 0 shown (live, or stored with its age), 1 failed or not signed in, 2 usage error."
    static let callCodes =
        "Exit codes: 0 done, 1 refused, not connected, or unknown (it may or may not have happened), 2 usage error."

    /// How long a command waits for the live connection.
    static let liveWait: Duration = .seconds(60)

    // MARK: The signed-in account

    /// Where the Home Assistant sign-in is (no secret).
    struct Current: Codable {
        var address: ServerAddress
        var account: AccountKey
        var httpsOnly: Bool
    }

    static func currentFile() throws(CommandFailure) -> URL {
        try Terminal.stateFolder().appendingPathComponent("homeassistant.json")
    }

    static func environment(httpsOnly: Bool) throws(CommandFailure) -> AppEnvironment {
        try CommandEnvironment.make(policy: .terminal(httpsOnly: httpsOnly), stores: .folder("store"))
    }

    static func open(_ arguments: Arguments) async throws -> (HomeAssistantServer, Current) {
        guard let data = try? Data(contentsOf: try currentFile()),
            let current = try? JSONDecoder().decode(Current.self, from: data)
        else {
            throw CommandFailure(
                "You are not signed in to Home Assistant. Run `companion homeassistant login <address>`.")
        }
        let environment = try environment(httpsOnly: current.httpsOnly || arguments.flag("https-only"))
        do {
            return (try await HomeAssistantServer.open(current.account, environment: environment), current)
        } catch {
            throw CommandFailure(
                "You are signed out of Home Assistant at \(current.address.serverKey). "
                    + "Run `companion homeassistant login \(current.address)` again.")
        }
    }

    /// Starts the connection and waits until the entities are live (bounded).
    static func live(_ server: HomeAssistantServer) async throws -> HomeAssistantConnection {
        let connection = server.connection()
        await connection.start()
        let task = Task { await connection.waitUntilLive() }
        let expiry = Task {
            try? await Task.sleep(for: liveWait)
            task.cancel()
        }
        defer { expiry.cancel() }
        guard await task.value else {
            let state = await connection.channel.state
            await connection.stop()
            throw CommandFailure("Home Assistant's live connection did not start: \(state).")
        }
        await connection.waitForRegistries()
        return connection
    }

    // MARK: Commands

    /// The typed address reduced to Home Assistant's root (H-ADDR-1, H-ADDR-2); a usage error when unreadable.
    static func root(_ arguments: Arguments, _ environment: AppEnvironment) throws -> ServerAddress {
        let typed = try arguments.positional(0, "the server address")
        do {
            let address = try HomeAssistantAddress.parse(typed, policy: environment.transportPolicy)
            return try HomeAssistantAddress.root(of: address, policy: environment.transportPolicy)
        } catch {
            throw UsageError("\(error)")
        }
    }

    static func login(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let httpsOnly = arguments.flag("https-only")
        let environment = try environment(httpsOnly: httpsOnly)
        let address = try root(arguments, environment)
        let fromStdin = arguments.flag("password-stdin")
        let signIn = try HomeAssistantServer.signIn(address, environment: environment)
        let model = await SignInModel(
            policy: environment.transportPolicy, address: address, store: environment.secrets,
            journal: environment.journal
        ) { _ in signIn }
        let user = try arguments.option("user") ?? AuthCommands.prompt("User name: ")
        let password = try AuthCommands.secret("Password: ", fromStdin: fromStdin)
        await model.submitPassword(username: user, password: password)
        while true {
            switch await model.state {
            case .signedIn(let account):
                let current = Current(address: address, account: account, httpsOnly: httpsOnly)
                try Terminal.writePrivateFile(try JSONOutput.data(current), to: try currentFile())
                Terminal.out("Signed in as \(user) on \(address.serverKey).")
                return 0
            case .enteringCode(_, _, _, let problem):
                if let problem { Terminal.err(problem.description) }
                let code = try AuthCommands.secret("Code: ", fromStdin: fromStdin)
                await model.submitCode(code)
            default:
                throw AuthCommands.failure(await model.state)
            }
        }
    }

    struct ProbeReport: Encodable {
        let address: String
        let homeAssistant: Bool
        let onboarded: Bool
        let providers: [String]
        let version: String?
    }

    static func probe(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let environment = try environment(httpsOnly: arguments.flag("https-only"))
        let address = try root(arguments, environment)
        let signIn = try HomeAssistantServer.signIn(address, environment: environment)
        let report: ProbeReport
        switch try await signIn.probeServer() {
        case .notHomeAssistant(let reason):
            throw CommandFailure("No Home Assistant answers at \(address): \(reason)")
        case .needsOnboarding:
            report = ProbeReport(
                address: address.description, homeAssistant: true, onboarded: false, providers: [],
                version: try? await HomeAssistantServer.probeVersion(at: address, environment: environment))
        case .ready(let providers):
            report = ProbeReport(
                address: address.description, homeAssistant: true, onboarded: true,
                providers: providers.map(\.type),
                version: try? await HomeAssistantServer.probeVersion(at: address, environment: environment))
        }
        if arguments.flag("json") {
            Terminal.out(try JSONOutput.document(report))
        } else {
            Terminal.out(
                "Home Assistant \(report.version ?? "(version unknown)") at \(report.address): "
                    + (report.onboarded ? "sign in with \(report.providers.joined(separator: ", "))" : "not set up yet")
            )
        }
        return 0
    }

    /// One entity as `states --json` prints it.
    struct StateRow: Encodable, Sendable, Equatable {
        let area: String?
        let entityID: String
        let lastChanged: String
        let name: String
        let state: String

        enum CodingKeys: String, CodingKey {
            case area, name, state
            case entityID = "entity_id"
            case lastChanged = "last_changed"
        }
    }

    static func states(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let (server, _) = try await open(arguments)
        let filter = EntityFilter(area: arguments.option("area"), domain: arguments.option("domain"))
        let byDomain = arguments.flag("by-domain")
        let connection = arguments.flag("offline") ? nil : try await live(server)
        let shown: ScreenState<[EntityGroup]> = await MainActor.run { () -> ScreenFeed<[EntityGroup]> in
            byDomain ? server.entitiesByDomain(filter) : server.entitiesByArea(filter)
        }.stateAfterRefresh()
        await connection?.stop()
        let areas = try await server.stored()
        let groups = shown.map { groups in
            groups.map { group in
                GroupRows(
                    title: group.title,
                    rows: group.entities.map { entity in
                        StateRow(
                            area: areas?.areaName(of: entity.entityID), entityID: entity.entityID,
                            lastChanged: entity.lastChanged.description, name: entity.name, state: entity.state)
                    })
            }
        }
        let now = server.bundle.clock.now()
        if arguments.flag("json") {
            let rows = groups.map { $0.flatMap(\.rows).sorted { $0.entityID < $1.entityID } }
            return try ScreenOutput.show(
                screen: "homeassistant states", rows, now: now, json: true, signIn: signInHint, lines: { _ in [] })
        }
        return try ScreenOutput.show(
            screen: "homeassistant states", groups, now: now, json: false, signIn: signInHint,
            emptyLines: ["No entities."]
        ) { groups in
            groups.flatMap { group in
                ["\(group.title) (\(group.rows.count))"]
                    + group.rows.map { "  \($0.entityID)  \($0.state)  \($0.name)" }
            }
        }
    }

    /// One group of `states`' plain output.
    struct GroupRows: Encodable, Sendable, Equatable {
        let title: String
        let rows: [StateRow]
    }

    static func state(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the entity id")
        let (server, _) = try await open(arguments)
        let connection = arguments.flag("offline") ? nil : try await live(server)
        let shown = await MainActor.run { server.entity(id) }.stateAfterRefresh()
        await connection?.stop()
        guard case .some(.some(let detail)) = shown.value else {
            throw CommandFailure("Home Assistant has no entity \(id).")
        }
        let entity = detail.entity
        let report = shown.map { _ in
            EntityReport(
                entityID: entity.entityID, state: entity.state, name: entity.name, area: detail.area,
                lastChanged: entity.lastChanged.description, lastUpdated: entity.lastUpdated.description,
                attributes: entity.attributes)
        }
        return try ScreenOutput.show(
            screen: "homeassistant state", report, now: server.bundle.clock.now(), json: arguments.flag("json"),
            signIn: signInHint
        ) { entity in
            [
                "\(entity.entityID): \(entity.state)", "  name: \(entity.name)", "  area: \(entity.area ?? "none")",
                "  since: \(entity.lastChanged) (updated \(entity.lastUpdated))",
            ]
                + entity.attributes.sorted(by: { $0.key < $1.key }).map { "  \($0.key): \($0.value.jsonString())" }
        }
    }

    /// One entity as `state` shows it (the screen's value).
    struct EntityReport: Encodable, Sendable, Equatable {
        let entityID: String
        let state: String
        let name: String
        let area: String?
        let lastChanged: String
        let lastUpdated: String
        let attributes: [String: JSONValue]

        enum CodingKeys: String, CodingKey {
            case state, name, area, attributes
            case entityID = "entity_id"
            case lastChanged = "last_changed"
            case lastUpdated = "last_updated"
        }
    }

    static func call(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        var data: [String: JSONValue] = [:]
        if let text = arguments.option("data") {
            guard let object = JSONValue(data: Data(text.utf8))?.objectValue else {
                throw UsageError("--data is a JSON object, such as '{\"value\": 22.5}'")
            }
            data = object
        }
        let name = try arguments.positional(0, "the service, domain.service")
        guard var call = ServiceCall(name, entityIDs: arguments.options["entity"] ?? [], data: data) else {
            throw UsageError("the service is domain.service, such as input_boolean.toggle")
        }
        call.returnResponse = arguments.flag("response")
        let (server, _) = try await open(arguments)
        let connection = try await live(server)
        let outcome = await connection.call(call)
        await connection.stop()
        return try report(outcome, json: arguments.flag("json"))
    }

    static func toggle(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the entity id")
        let (server, _) = try await open(arguments)
        let connection = try await live(server)
        guard let entity = await connection.entities[id] else {
            await connection.stop()
            throw CommandFailure("Home Assistant has no entity \(id).")
        }
        guard let call = ServiceCall.mainAction(for: entity) else {
            await connection.stop()
            throw CommandFailure("\(id) (\(entity.state)) has no action to run.")
        }
        let outcome = await connection.call(call)
        await connection.stop()
        return try report(outcome, json: arguments.flag("json"))
    }

    struct CallReport: Encodable {
        let outcome: String
        let contextID: String?
        let code: String?
        let message: String
        let response: JSONValue?

        enum CodingKeys: String, CodingKey {
            case outcome, code, message, response
            case contextID = "context_id"
        }
    }

    static func report(_ outcome: CallOutcome, json: Bool) throws -> Int32 {
        if json {
            let report: CallReport
            switch outcome {
            case .done(let context, let response):
                report = CallReport(
                    outcome: "done", contextID: context, code: nil, message: "Done.", response: response)
            case .failed(let code, let message):
                report = CallReport(outcome: "failed", contextID: nil, code: code, message: message, response: nil)
            case .unknown:
                report = CallReport(
                    outcome: "unknown", contextID: nil, code: nil, message: outcome.description, response: nil)
            case .notConnected:
                report = CallReport(
                    outcome: "not_connected", contextID: nil, code: nil, message: outcome.description, response: nil)
            }
            Terminal.out(try JSONOutput.document(report))
            return outcome.isDone ? 0 : 1
        }
        switch outcome {
        case .done(_, let response):
            Terminal.out("Done.")
            if let response { Terminal.out(response.jsonString(pretty: true)) }
            return 0
        default:
            throw CommandFailure(outcome.description)
        }
    }

    struct ChangeLine: Encodable {
        let entityID: String
        let from: String?
        let to: String?
        let lastChanged: String?

        enum CodingKeys: String, CodingKey {
            case from, to
            case entityID = "entity_id"
            case lastChanged = "last_changed"
        }
    }

    static func watch(_ arguments: Arguments) async throws -> Int32 {
        let ids = Set(arguments.positionals)
        var limit: Int?
        if let text = arguments.option("events") {
            guard let count = Int(text), count > 0 else { throw UsageError("--events is a whole number above 0") }
            limit = count
        }
        let (server, _) = try await open(arguments)
        let connection = try await live(server)
        let json = arguments.flag("json")
        var known = await connection.entities
        var printed = 0
        Terminal.err("Watching \(ids.isEmpty ? "every entity" : ids.sorted().joined(separator: ", ")) (live).")
        let states = await connection.states()
        let notices = Task {
            for await state in states {
                switch state {
                case .ready: Terminal.err("Connected.")
                case .disconnected(.waitingToReconnect(_, let delay, let attempt)):
                    Terminal.err("Connection lost; retry \(attempt) in \(delay.seconds) s.")
                case .disconnected(.rejected(let error)): Terminal.err("Refused: \(error.description)")
                default: continue
                }
            }
        }
        defer { notices.cancel() }
        for await update in await connection.updates() {
            if update.initial {
                Terminal.err("Reconnected: current states received.")
            }
            for id in update.touched.sorted() where ids.isEmpty || ids.contains(id) {
                let before = known[id]?.state
                let after = update.states[id]?.state
                if before == after && !update.initial { continue }
                if update.initial && before == after { continue }
                if json {
                    Terminal.out(
                        try JSONOutput.line(
                            ChangeLine(
                                entityID: id, from: before, to: after,
                                lastChanged: update.states[id]?.lastChanged.description)))
                } else {
                    Terminal.out("\(id) \(before ?? "(none)") → \(after ?? "(removed)")")
                }
                printed += 1
                if let limit, printed >= limit {
                    await connection.stop()
                    return 0
                }
            }
            known = await connection.entities
        }
        let state = await connection.channel.state
        throw CommandFailure("The live connection ended: \(state).")
    }

    static func logout(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let (server, current) = try await open(arguments)
        let problem = await server.signOut()
        try? FileManager.default.removeItem(at: try currentFile())
        if let problem { Terminal.err("The server did not confirm the sign-out: \(problem.description)") }
        Terminal.out("Signed out of \(current.address.serverKey); the stored states are kept.")
        return 0
    }

    struct OnboardReport: Encodable {
        let server: String
        let user: String
        let signedIn: Bool
    }

    /// H-CLI-7: the owner made through the onboarding API on a loopback server, then signed in as after `login`.
    static func onboard(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let environment = try environment(httpsOnly: false)
        let address = try root(arguments, environment)
        let onboarding: HomeAssistantOnboarding
        do {
            onboarding = try HomeAssistantOnboarding(address, environment: environment)
        } catch {
            throw UsageError(error.description)
        }
        let user = arguments.option("user") ?? "ci"
        let password = try AuthCommands.secret("Password: ", fromStdin: arguments.flag("password-stdin"))
        let owner = OnboardingOwner(name: arguments.option("name") ?? "CI Owner", username: user, password: password)
        let credential: StoredCredential
        do {
            credential = try await onboarding.onboard(owner)
            try environment.secrets.save(credential)
        } catch let error as OnboardingError {
            throw CommandFailure(error.description)
        }
        let current = Current(address: onboarding.address, account: credential.account, httpsOnly: false)
        try Terminal.writePrivateFile(try JSONOutput.data(current), to: try currentFile())
        if arguments.flag("json") {
            Terminal.out(
                try JSONOutput.line(
                    OnboardReport(server: onboarding.address.serverKey, user: user, signedIn: true)))
        } else {
            Terminal.out("Onboarded \(onboarding.address.serverKey): owner \(user) created and signed in.")
        }
        return 0
    }

    /// H-CLI-7: a long-lived access token, printed once (never stored).
    static func token(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        guard try arguments.positional(0, "the action (create)") == "create" else {
            throw UsageError("The only action is `create`.")
        }
        guard let name = arguments.option("name"), !name.isEmpty else {
            throw UsageError("Give the token's name with --name.")
        }
        let daysText = arguments.option("days") ?? "365"
        guard let days = Int(daysText), days > 0 else { throw UsageError("--days must be a whole number above 0.") }
        let (server, _) = try await open(arguments)
        let connection = try await live(server)
        defer { Task { await connection.stop() } }
        let token: String
        do {
            token = try await connection.createLongLivedToken(name: name, days: days)
        } catch {
            throw CommandFailure("Home Assistant did not make the token: \(error.description)")
        }
        await connection.stop()
        if arguments.flag("json") {
            Terminal.out(
                JSONValue.object(["name": .string(name), "days": .integer(Int64(days)), "token": .string(token)])
                    .outputLine)
        } else {
            Terminal.out(token)
        }
        return 0
    }

    static let signInHint = "companion homeassistant login <address>"
}

extension ScreenFeed {
    /// Refreshes and returns the state shown after it.
    func stateAfterRefresh() async -> ScreenState<Value> {
        await refresh()
        return state
    }
}
