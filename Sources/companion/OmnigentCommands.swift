import CompanionCore
import CompanionHTTP
import Foundation
import OmnigentCore

/// `companion omnigent …`: the Omnigent app's core, headless.
enum OmnigentCommands {
    static let help = """
        usage: companion omnigent <command> [--server ADDRESS] [--json]

          sessions [--search TEXT] [--archived] [--limit N]   the list, grouped as on the watch
          show <id>                                           a session and its last 8 messages
          watch <id> [--events N] [--all]                     live messages (SSE) until Ctrl-C or N events;
                                                              --all also prints heartbeats and presence
          send <id> <text>                                    post a message as a new turn
          rename <id> <title>                                 change the title
          archive <id> [--undo]                               archive (or restore) a session

        The server is --server, else $OMNIGENT_SERVER, else the last one used (kept in
        $COMPANION_HOME/omnigent-server). Plain http only to loopback hosts.
        Exit codes: 0 success, 1 the server refused or could not be reached (one line says why), 2 usage error.
        """

    static func run(_ words: [String]) async throws -> Int32 {
        guard let command = words.first else {
            throw UsageError("missing the command (sessions, show, watch, send, rename, archive)")
        }
        let arguments = try Arguments(
            Array(words.dropFirst()), flags: ["json", "archived", "undo", "https-only", "all"],
            options: ["server", "search", "limit", "events"])
        let client = try client(arguments)
        switch command {
        case "sessions": return try await sessions(client, arguments)
        case "show": return try await show(client, arguments)
        case "watch": return try await watch(client, arguments)
        case "send": return try await send(client, arguments)
        case "rename": return try await rename(client, arguments)
        case "archive": return try await archive(client, arguments)
        default: throw UsageError("unknown omnigent command \(command)")
        }
    }

    private static var rememberedServer: URL { Terminal.home.appendingPathComponent("omnigent-server") }

    private static func client(_ arguments: Arguments) throws -> Client {
        let environment = ProcessInfo.processInfo.environment["OMNIGENT_SERVER"]
        let remembered = (try? String(contentsOf: rememberedServer, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard let text = arguments.option("server") ?? environment ?? remembered, !text.isEmpty else {
            throw UsageError("no server: pass --server ADDRESS (it is remembered for the next commands)")
        }
        let httpsOnly = arguments.flag("https-only")
        let address = try HTTPCommands.address(text, httpsOnly: httpsOnly)
        if arguments.option("server") != nil {
            try? FileManager.default.createDirectory(at: Terminal.home, withIntermediateDirectories: true)
            try? Data(address.description.utf8).write(to: rememberedServer, options: .atomic)
        }
        return HTTPCommands.client(for: address, httpsOnly: httpsOnly)
    }

    private static func sessions(_ client: Client, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        var limit = 20
        if let text = arguments.option("limit") {
            guard let value = Int(text), (1...1000).contains(value) else { throw UsageError("--limit takes 1 to 1000") }
            limit = value
        }
        let page = try await client.send(
            OmnigentAPI.sessions(
                limit: limit, search: arguments.option("search"), includeArchived: arguments.flag("archived")))
        if arguments.flag("json") {
            Terminal.out(try encode(page.data))
            return 0
        }
        if page.data.isEmpty {
            Terminal.out("No sessions.")
            return 0
        }
        for group in SessionGroup.group(page.data) {
            Terminal.out("\(group.title)")
            for session in group.sessions {
                let badge = session.needsAttention ? " [\(session.pendingElicitationsCount) waiting]" : ""
                let archived = session.archived ? " (archived)" : ""
                Terminal.out(
                    "  \(session.id)  \(session.status.padding(toLength: 9, withPad: " ", startingAt: 0)) \(session.displayTitle)\(badge)\(archived)"
                )
            }
        }
        if page.hasMore { Terminal.out("… more sessions: use --limit or --search") }
        return 0
    }

    private static func show(_ client: Client, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        async let detail = client.send(OmnigentAPI.session(id))
        async let items = client.send(OmnigentAPI.items(id, limit: 50))
        let session = try await detail
        let messages = Array(try await items.data.reversed()).lastChatMessages()
        if arguments.flag("json") {
            Terminal.out(try encode(ShowOutput(session: session, messages: messages)))
            return 0
        }
        Terminal.out("\(session.displayTitle)  [\(session.status)]  \(session.agentName ?? "")")
        if let error = session.lastTaskError { Terminal.out("last error: \(error)") }
        for elicitation in session.pendingElicitations ?? [] {
            Terminal.out("waiting for approval: \(elicitation.message ?? elicitation.id)")
        }
        for message in messages {
            Terminal.out("\(message.role ?? "?"): \(message.text)")
        }
        if messages.isEmpty { Terminal.out("(no messages yet)") }
        return 0
    }

    private static func watch(_ client: Client, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        var remaining = Int.max
        if let text = arguments.option("events") {
            guard let value = Int(text), value > 0 else { throw UsageError("--events takes a positive number") }
            remaining = value
        }
        let quiet: Set<String> = ["session.heartbeat", "session.presence", "session.changed_files.invalidated"]
        for try await event in client.events(OmnigentAPI.stream(id)) {
            if !arguments.flag("all"), quiet.contains(event.event) { continue }
            if arguments.flag("json") {
                Terminal.out(
                    JSONValue.object([
                        "event": .string(event.event),
                        "data": JSONValue(data: Data(event.data.utf8)) ?? .string(event.data),
                    ]).jsonString())
            } else {
                Terminal.out(describe(event))
            }
            remaining -= 1
            if remaining == 0 { break }
        }
        return 0
    }

    /// One line for a stream event: the text of a finished message, a delta, or the event's type.
    static func describe(_ event: ServerSentEvent) -> String {
        let data = JSONValue(data: Data(event.data.utf8))
        switch event.event {
        case "response.output_item.done":
            let parts = data?["item"]?["content"]?.arrayValue ?? data?["item"]?["data"]?["content"]?.arrayValue ?? []
            let text = parts.compactMap { $0["text"]?.stringValue }.joined()
            return "assistant: \(text)"
        case "response.output_text.delta":
            return "… \(data?["delta"]?.stringValue ?? "")"
        case "session.input.consumed":
            return "(message received)"
        default:
            return "[\(event.event)]"
        }
    }

    private static func send(_ client: Client, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the session id")
        let text = try arguments.positional(1, "the message text")
        let ack: EventAck
        do {
            ack = try await client.send(try OmnigentAPI.sendMessage(id, text: text))
        } catch {
            throw CommandFailure(SessionDetailModel.sentence(for: error))
        }
        if ack.denied == true {
            throw CommandFailure("The server declined the message: \(ack.reason ?? "no reason given").")
        }
        Terminal.out(ack.queued == true ? "Queued behind the running turn." : "Sent.")
        return 0
    }

    private static func rename(_ client: Client, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let id = try arguments.positional(0, "the session id")
        let title = try arguments.positional(1, "the new title").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw UsageError("the title is empty") }
        let session = try await client.send(try OmnigentAPI.update(id, title: title))
        Terminal.out("Renamed to \(session.displayTitle).")
        return 0
    }

    private static func archive(_ client: Client, _ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let id = try arguments.positional(0, "the session id")
        let session = try await client.send(try OmnigentAPI.update(id, archived: !arguments.flag("undo")))
        Terminal.out(session.archived ? "Archived." : "Restored.")
        return 0
    }

    private struct ShowOutput: Encodable {
        var session: Session
        var messages: [SessionItem]
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
