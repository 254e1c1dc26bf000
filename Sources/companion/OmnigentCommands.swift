import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import Foundation
import OmnigentCore

/// `companion omnigent …`: the Omnigent app's core, headless.
enum OmnigentCommands {
    /// `omnigent sessions|show|watch|send|rename|archive`.
    static let family = CommandFamily(
        title: "Apps",
        commands: [
            .group(
                "omnigent", summary: "the Omnigent app, headless",
                details: """
                    The server is --server, else $OMNIGENT_SERVER, else the last one used (kept in
                    $COMPANION_HOME/omnigent-server). Plain http only to loopback hosts. When
                    `companion login` signed in to that server (accounts mode), every command sends
                    that credential and refreshes it when it expires.
                    """,
                [
                    Command(
                        name: "sessions", summary: "the list, grouped as on the watch",
                        options: common + [
                            .option("search", "TEXT", "only sessions matching TEXT"),
                            .flag("archived", "include archived sessions"),
                            .option("limit", "N", "N sessions a page (1-1000, default 20)"),
                            .flag("all", "read every page, to the end of the list"),
                        ],
                        exitCodes: screenCodes, run: { try await sessions(try await server($0), $0) }),
                    Command(
                        name: "show", summary: "a session and its last 8 messages", parameters: [id],
                        options: common, exitCodes: screenCodes, run: { try await show(try await server($0), $0) }),
                    Command(
                        name: "watch", summary: "live messages (SSE) until Ctrl-C, N events or the server's [DONE]",
                        parameters: [id],
                        options: common + [
                            .option("events", "N", "stop after N events"),
                            .flag("all", "also print heartbeats and presence"),
                        ],
                        run: { try await watch(try await server($0), $0) }),
                    Command(
                        name: "send", summary: "post a message as a new turn",
                        parameters: [id, .init(syntax: "<text>", help: "the message")],
                        options: common, run: { try await send(try await server($0), $0) }),
                    Command(
                        name: "rename", summary: "change the title",
                        parameters: [id, .init(syntax: "<title>", help: "the new title")],
                        options: common, run: { try await rename(try await server($0), $0) }),
                    Command(
                        name: "archive", summary: "archive (or restore) a session", parameters: [id],
                        options: common + [.flag("undo", "restore instead")],
                        run: { try await archive(try await server($0), $0) }),
                    watchClient,
                ])
        ])

    /// `omnigent watch-client sessions|show|send`: the watch's own client on a cookie "synced from the phone".
    private static let watchClient = Command.group(
        "watch-client", summary: "the watch's client, on a cookie synced from the phone",
        details: """
            Runs the watch's model: every request carries the synced Cookie, X-Omnigent-Client: watchos and
            Cache-Control: no-cache. The cookie is read from standard input (--cookie-stdin, the header
            value such as `ap_session=...`), or else made from what `companion login` stored for the
            server (refreshed first when it expired), as the phone would sync it. Without a cookie, or
            when the server refuses it, the command says "Reopen Omnigent on your iPhone and sign in."
            and exits 1.
            """,
        [
            Command(
                name: "sessions", summary: "the list, grouped as on the watch", options: watchOptions,
                exitCodes: screenCodes, run: { try await watchSessions($0) }),
            Command(
                name: "show", summary: "a session and its last 8 messages", parameters: [id], options: watchOptions,
                exitCodes: screenCodes, run: { try await watchShow($0) }),
            Command(
                name: "send", summary: "send a message (shows it as pending when queued)",
                parameters: [id, .init(syntax: "<text>", help: "the message")], options: watchOptions,
                run: { try await watchSend($0) }),
            Command(
                name: "approve", summary: "accept an approval `show` offers (approve? …)",
                parameters: [id, approval], options: watchOptions, run: { try await watchResolve($0, accept: true) }),
            Command(
                name: "decline", summary: "decline an approval `show` offers (approve? …)",
                parameters: [id, approval], options: watchOptions, run: { try await watchResolve($0, accept: false) }),
        ])

    private static let approval = Command.Parameter(
        syntax: "<approval-id>", help: "the approval's id, as `watch-client show --json` lists it")

    private static let watchOptions: [Command.Option] =
        common + [
            .flag("cookie-stdin", "read the synced Cookie header from standard input"),
            .option("host-id", "ID", "the slice key (sent only on a Databricks API base, /api/2.0/omnigent)"),
        ]

    /// The exit codes of a screen (the terminal's one screen printer).
    private static let screenCodes =
        "Exit codes: 0 shown (live, empty, or a stored copy with its age), 1 failed or not signed in (with --json"
        + " the failed report is still printed), 2 usage error."

    private static let id = Command.Parameter(syntax: "<id>", help: "the session id")
    private static let common: [Command.Option] = [
        .option("server", "ADDRESS", "the Omnigent server (remembered for the next commands)"), .httpsOnly, .json,
    ]

    private static func rememberedServer() throws(CommandFailure) -> URL {
        try Terminal.home().appendingPathComponent("omnigent-server")
    }

    private static func serverAddress(_ arguments: Arguments) throws -> ServerAddress {
        let environment = ProcessInfo.processInfo.environment["OMNIGENT_SERVER"]
        let remembered = (try? String(contentsOf: try rememberedServer(), encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard let text = arguments.option("server") ?? environment ?? remembered, !text.isEmpty else {
            throw UsageError("no server: pass --server ADDRESS (it is remembered for the next commands)")
        }
        let address = try HTTPCommands.address(text, httpsOnly: arguments.flag("https-only"))
        if arguments.option("server") != nil {
            let file = try Terminal.stateFolder().appendingPathComponent("omnigent-server")
            try? Terminal.writePrivateFile(Data(address.description.utf8), to: file)
        }
        return address
    }

    /// The server of this command line, as the app opens it: the address through Omnigent's connector (the
    /// workspace mount probe, then the manifest), whose account `/v1/me` names, on the kit's bundle with what
    /// `companion login` stored for it (one sign-in per server, refreshed when it expires).
    @MainActor
    private static func server(_ arguments: Arguments) async throws -> OmnigentServer {
        let address = try serverAddress(arguments)
        let environment = try environment(arguments)
        let connection: ServerConnection
        do {
            connection = try await OmnigentConnector.connect(address, environment: environment)
        } catch {
            throw CommandFailure(error.description)
        }
        let session = try AuthCommands.storedSession(for: address)?.1
        // Signed in: whose data it is, as `/v1/me` says; not signed in, the header mode's one user (a server that
        // wants a sign-in then says so, in its own words, on the first read).
        let account =
            if let session {
                try await OmnigentServer.account(of: connection, session: session, environment: environment)
            } else {
                AccountKey(address: connection.address, userID: "local")
            }
        return try await OmnigentServer.open(connection, account: account, session: session, environment: environment)
    }

    /// The process's parts for the Omnigent core, as the app would make them once (the terminal's one maker):
    /// nothing of the core is kept on disk by these commands.
    private static func environment(_ arguments: Arguments) throws -> AppEnvironment {
        try CommandEnvironment.make(arguments, stores: .memory)
    }

    @MainActor
    private static func sessions(_ server: OmnigentServer, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        var limit = 20
        if let text = arguments.option("limit") {
            guard let value = Int(text), (1...1000).contains(value) else { throw UsageError("--limit takes 1 to 1000") }
            limit = value
        }
        let model = SessionsListModel(server: server, pageSize: limit)
        model.search = arguments.option("search") ?? ""
        model.showArchived = arguments.flag("archived")
        await model.refresh()
        if arguments.flag("all") { await model.list.loadAll() }
        let page = model.state.value
        let state = model.state.map { SessionsValue(sessions: $0.sessions, hasMore: $0.hasMore) }
        return try ScreenOutput.show(
            screen: "sessions", state, now: server.bundle.clock.now(), json: arguments.flag("json"),
            signIn: signIn(server), lines: { _ in page.map(sessionLines) ?? [] })
    }

    /// The list's lines: each group's title, then its sessions.
    private static func sessionLines(_ page: SessionsPage) -> [String] {
        if page.sessions.isEmpty { return ["No sessions."] }
        var lines: [String] = []
        for group in page.groups {
            lines.append(group.title)
            for session in group.sessions {
                let badge = session.needsAttention ? " [\(session.pendingElicitationsCount) waiting]" : ""
                let archived = session.archived ? " (archived)" : ""
                lines.append(
                    "  \(session.id)  \(session.status.padding(toLength: 9, withPad: " ", startingAt: 0)) \(session.displayTitle)\(badge)\(archived)"
                )
            }
        }
        if page.hasMore { lines.append("… more sessions: use --all, --limit or --search") }
        return lines
    }

    /// The command that signs in to `server` again.
    private static func signIn(_ server: OmnigentServer) -> String {
        "companion login \(server.connection.address)"
    }

    @MainActor
    private static func show(_ server: OmnigentServer, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        let model = SessionDetailModel(server: server, sessionID: id)
        await model.refresh()
        let state = model.state.map { SessionValue(session: $0.session, messages: $0.messages) }
        return try ScreenOutput.show(
            screen: "session", state, now: server.bundle.clock.now(), json: arguments.flag("json"),
            signIn: signIn(server), lines: showLines)
    }

    /// A session's lines: title, status and agent, what waits, then the messages.
    private static func showLines(_ shown: SessionValue) -> [String] {
        let session = shown.session
        var lines = ["\(session.displayTitle)  [\(session.status)]  \(session.agentName ?? "")"]
        if let error = session.lastTaskError { lines.append("last error: \(error.summary)") }
        for input in session.pendingInputs ?? [] where !input.text.isEmpty {
            lines.append("pending: \(input.text)")
        }
        for elicitation in session.pendingElicitations ?? [] {
            lines.append("waiting for approval: \(elicitation.message ?? elicitation.id)")
        }
        lines += shown.messages.map { "\($0.role ?? "?"): \($0.text)" }
        if shown.messages.isEmpty { lines.append("(no messages yet)") }
        return lines
    }

    private static func watch(_ server: OmnigentServer, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        var remaining = Int.max
        if let text = arguments.option("events") {
            guard let value = Int(text), value > 0 else { throw UsageError("--events takes a positive number") }
            remaining = value
        }
        let quiet: Set<String> = ["session.heartbeat", "session.presence", "session.changed_files.invalidated"]
        for try await event in OmnigentStream.events(of: id, client: server.client) {
            if !arguments.flag("all"), quiet.contains(event.event) { continue }
            if arguments.flag("json") {
                Terminal.out(
                    JSONValue.object([
                        "event": .string(event.event),
                        "data": JSONValue(data: Data(event.data.utf8)) ?? .string(event.data),
                    ]).outputLine)
            } else {
                Terminal.out(describe(event, client: server.client))
            }
            remaining -= 1
            if remaining == 0 { break }
        }
        return 0
    }

    /// One line for a stream event, read as the app reads it (`LiveEvent`): the text of a finished message, a
    /// delta, a consumed message, a failed turn, or the event's type.
    static func describe(_ event: ServerSentEvent, client: Client) -> String {
        switch LiveEvent.read(event, client: client, now: Date()) {
        case .itemDone(let item): return "\(item.role ?? "assistant"): \(item.text)"
        case .textDelta(let delta): return "… \(delta.text)"
        case .inputConsumed(let message, _):
            return message.map { "\($0.role ?? "user"): \($0.text)" } ?? "(message received)"
        case .failed(let sentence): return "failed: \(sentence)"
        case .heartbeat, .presence, .other: return "[\(event.event)]"
        }
    }

    @MainActor
    private static func send(_ server: OmnigentServer, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the session id")
        let text = try arguments.positional(1, "the message text")
        let model = SessionDetailModel(server: server, sessionID: id)
        await model.updateDraft(text)
        await model.send()
        if let problem = model.sendProblem { throw CommandFailure(problem) }
        guard let message = model.sent.last else { throw CommandFailure("The message was not sent.") }
        // 0.19.1 answers `queued: true` for every message it hands to a runner: only a `pending_id` says the
        // message waits (the core's rule, `WatchSentMessage(ack:)`).
        var output: [String: JSONValue] = ["state": "sent"]
        var line = "Sent."
        if case .pending(let pendingID) = message.status {
            output = ["state": "pending", "pending_id": .string(pendingID)]
            line = "Queued behind the running turn."
        }
        Terminal.out(arguments.flag("json") ? JSONValue.object(output).outputLine : line)
        return 0
    }

    @MainActor
    private static func rename(_ server: OmnigentServer, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the session id")
        let title = try arguments.positional(1, "the new title").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw UsageError("the title is empty") }
        let model = SessionDetailModel(server: server, sessionID: id)
        await model.rename(title)
        if let problem = model.actionProblem { throw CommandFailure(problem) }
        Terminal.out("Renamed to \(model.state.value?.session.displayTitle ?? title).")
        return 0
    }

    @MainActor
    private static func archive(_ server: OmnigentServer, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        let model = SessionDetailModel(server: server, sessionID: id)
        let archived = !arguments.flag("undo")
        await model.setArchived(archived)
        if let problem = model.actionProblem { throw CommandFailure(problem) }
        Terminal.out((model.state.value?.session.archived ?? archived) ? "Archived." : "Restored.")
        return 0
    }

    // MARK: watch-client

    /// The watch's model for the server, with the cookie the phone would sync.
    @MainActor
    private static func watchModel(
        _ arguments: Arguments, environment: AppEnvironment? = nil
    ) async throws -> WatchClient {
        let address = try serverAddress(arguments)
        let keeper = WatchCookieKeeper()
        if arguments.flag("cookie-stdin") {
            let header = try AuthCommands.secret("Cookie header: ", fromStdin: true)
            keeper.receive(WatchCookieSync(serverURL: address.url, cookieHeader: header, syncedAt: Date()))
        } else if let (_, session) = try AuthCommands.storedSession(for: address),
            var stored = await session.credential
        {
            // The phone keeps its sign-in fresh before it syncs: an expired token is refreshed first.
            if case .bearer(_, _, let expiry?) = stored.credential, expiry <= Date(),
                let renewed = await session.refreshed(after: stored)
            {
                stored = renewed
            }
            if let cookie = OmnigentAccountsSignIn.webViewCookie(for: stored) {
                keeper.receive(
                    WatchCookieSync(serverURL: address.url, cookieHeader: cookie.header.value, syncedAt: Date()))
            }
        }
        return WatchClient(
            apiBase: address.url, cookies: keeper, hostID: arguments.option("host-id"),
            environment: try environment ?? Self.environment(arguments))
    }

    /// Exits 1 with the sign-in sentence when the watch is in that state.
    @MainActor
    private static func requireSignedIn(_ watch: WatchClient, _ arguments: Arguments) throws {
        guard watch.screen == .signInOnPhone else { return }
        if arguments.flag("json") {
            Terminal.out(
                JSONValue.object([
                    "state": "sign_in_on_phone", "message": .string(WatchScreen.signInSentence),
                ]).outputLine)
        }
        throw CommandFailure(WatchScreen.signInSentence)
    }

    /// What the watch shows, as a screen's state: its sessions (`empty` when there are none), or the sign-in
    /// sentence with `sign_in_required` (O-WATCH-9), or the failure's sentence.
    @MainActor
    static func watchState<Value: Sendable & Equatable>(
        _ watch: WatchClient, now: Date, shown: Value?, isEmpty: Bool = false
    ) -> ScreenState<Value> {
        switch watch.screen {
        case .signInOnPhone: return .failed(reason: WatchScreen.signInSentence, signInRequired: true)
        case .problem(let sentence) where shown == nil: return .failed(reason: sentence, signInRequired: false)
        default: break
        }
        if let problem = watch.actionProblem, shown == nil { return .failed(reason: problem, signInRequired: false) }
        guard let shown else { return .loading }
        return isEmpty ? .empty(shown, fetchedAt: now) : .content(shown, fetchedAt: now)
    }

    @MainActor
    private static func watchSessions(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let environment = try environment(arguments)
        let watch = try await watchModel(arguments, environment: environment)
        await watch.refresh()
        var groups: [SessionGroup]?
        if case .sessions(let shown) = watch.screen { groups = shown }
        let now = environment.clock.now()
        let state = watchState(
            watch, now: now, shown: groups.map { WatchSessionsValue(groups: $0.map(WatchGroupValue.init)) },
            isEmpty: groups?.isEmpty ?? false)
        return try ScreenOutput.show(
            screen: "watch/sessions", state, now: now, json: arguments.flag("json"), signIn: nil,
            lines: { _ in
                guard let groups, !groups.isEmpty else { return ["No sessions."] }
                return groups.flatMap { group in
                    [group.title] + group.sessions.map { "  \($0.id)  \($0.displayTitle)" }
                }
            })
    }

    @MainActor
    private static func watchShow(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        let environment = try environment(arguments)
        let watch = try await watchModel(arguments, environment: environment)
        await watch.open(id)
        let detail = watch.detail
        let now = environment.clock.now()
        var state = watchState(
            watch, now: now, shown: detail.map { SessionValue(session: $0.session, messages: $0.messages) })
        if case .loading = state { state = .failed(reason: "The session \(id) did not open.", signInRequired: false) }
        return try ScreenOutput.show(
            screen: "watch/session", state, now: now, json: arguments.flag("json"), signIn: nil,
            lines: { _ in
                guard let detail else { return [] }
                var lines = ["\(detail.session.displayTitle)  [\(detail.session.status)]"]
                if let failure = detail.failure { lines.append("failed: \(failure.summary)") }
                for input in detail.pendingInputs where !input.text.isEmpty { lines.append("pending: \(input.text)") }
                for approval in detail.approvals { lines.append("approve? \(approval.message ?? approval.id)") }
                lines += detail.messages.map { "\($0.role ?? "?"): \($0.text)" }
                if detail.messages.isEmpty { lines.append("(no messages yet)") }
                return lines
            })
    }

    @MainActor
    private static func watchSend(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the session id")
        let text = try arguments.positional(1, "the message text")
        let watch = try await watchModel(arguments)
        let message = await watch.send(text, to: id)
        try requireSignedIn(watch, arguments)
        guard let message else { throw CommandFailure("The message was not sent.") }
        var output: [String: JSONValue] = [:]
        let line: String
        var failure: String?
        switch message.status {
        case .sent:
            output["state"] = "sent"
            line = "Sent."
        case .pending(let pendingID):
            output["state"] = "pending"
            output["pending_id"] = .string(pendingID)
            line = "Pending: queued behind the running turn."
        case .declined(let reason):
            output["state"] = "declined"
            output["message"] = .string(reason)
            line = "The server declined the message: \(reason)"
            failure = line
        case .failed(let sentence):
            output["state"] = "failed"
            output["message"] = .string(sentence)
            line = sentence
            failure = sentence
        }
        if arguments.flag("json") {
            Terminal.out(JSONValue.object(output).outputLine)
        } else if failure == nil {
            Terminal.out(line)
        }
        if let failure { throw CommandFailure(failure) }
        return 0
    }

    @MainActor
    private static func watchResolve(_ arguments: Arguments, accept: Bool) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the session id")
        let approval = try arguments.positional(1, "the approval id")
        let watch = try await watchModel(arguments)
        await watch.open(id)
        try requireSignedIn(watch, arguments)
        if let problem = watch.actionProblem { throw CommandFailure(problem) }
        guard let detail = watch.detail else { throw CommandFailure("The session \(id) did not open.") }
        guard detail.approvals.contains(where: { $0.id == approval }) else {
            throw CommandFailure("The watch offers no approval \(approval) on this session (see `watch-client show`).")
        }
        await watch.resolve(approval, accept: accept)
        try requireSignedIn(watch, arguments)
        if let problem = watch.actionProblem { throw CommandFailure(problem) }
        let action = accept ? "accept" : "decline"
        if arguments.flag("json") {
            Terminal.out(
                JSONValue.object([
                    "state": "resolved", "approval": .string(approval), "action": .string(action),
                ]).outputLine)
        } else {
            Terminal.out(accept ? "Approved." : "Declined.")
        }
        return 0
    }

    /// `sessions --json`'s value: the sessions read (every page with `--all`), newest change first, and whether
    /// more follow.
    struct SessionsValue: Encodable, Sendable, Equatable {
        var sessions: [Session]
        var hasMore: Bool

        enum CodingKeys: String, CodingKey {
            case sessions
            case hasMore = "has_more"
        }
    }

    /// `show --json`'s and `watch-client show --json`'s value: the session and its last messages, oldest first.
    struct SessionValue: Encodable, Sendable, Equatable {
        var session: Session
        var messages: [SessionItem]
    }

    /// `watch-client sessions --json`'s value: the watch's groups, in its order.
    struct WatchSessionsValue: Encodable, Sendable, Equatable {
        var groups: [WatchGroupValue]
    }

    /// One of the watch's groups: its title and its sessions as the watch lists them.
    struct WatchGroupValue: Encodable, Sendable, Equatable {
        var title: String
        var sessions: [Row]

        init(_ group: SessionGroup) {
            title = group.title
            sessions = group.sessions.map {
                Row(id: $0.id, title: $0.displayTitle, status: $0.status, pendingApprovals: $0.pendingElicitationsCount)
            }
        }

        /// A session on the watch's list.
        struct Row: Encodable, Sendable, Equatable {
            var id: String
            var title: String
            var status: String
            var pendingApprovals: Int

            enum CodingKeys: String, CodingKey {
                case id, title, status
                case pendingApprovals = "pending_approvals"
            }
        }
    }

}
