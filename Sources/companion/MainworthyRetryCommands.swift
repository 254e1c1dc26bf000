import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore

/// `companion mainworthy retry`: a write whose reply was lost, sent again with the same idempotency key.
///
/// Rules (M-NET-2, M-DRAFT-5, M-PLAN-3, issue 37 item 4):
/// - A write (`answer`, `undo`, `result`, `plan`, `edit`, `new`) whose reply was lost (after its own resends, where
///   it has any) keeps its request and its key in the account's state (`MainworthyAccountState`, 0600), and the
///   terminal says what it can do: `companion mainworthy retry`, or the same command with `--retry`.
/// - `retry` sends exactly that request (the same body, byte for byte, and the same key), so the server records the
///   command once. A reply forgets it; a refusal forgets it too (the server decided); another lost reply keeps it.
/// - The same command run anew while one of its kind is unconfirmed sends nothing and says one is pending;
///   `retry --forget` drops it.
enum MainworthyRetryCommands {
    /// The commands, added to the `mainworthy` family.
    static let commands: [Command] = [
        MainworthyCommands.command(
            "retry", "send again, with the same key, a write whose reply was lost (--forget drops it)",
            [.init(syntax: "[<command>]", help: "which one, when more than one is unconfirmed (answer, result, …)")],
            options: [.flag("forget", "drop it: nothing is sent")], positionals: 0...1, run: retry)
    ]

    /// The option every write command takes.
    static let retryOption = Command.Option.flag(
        "retry", "send again, with the same key, this command's write whose reply was lost")

    /// What the terminal prints after a lost reply: that it may or may not have been recorded, and what it can do.
    static let lostReplySentence =
        "The server did not confirm this. It may or may not have been recorded. Send it again with the same key: "
        + "`companion mainworthy retry` (or this command again with --retry); the server records it once."

    /// Keeps `command`, whose reply was lost, as `name`'s pending write of `server`'s account, and returns the
    /// sentence to print.
    static func keep<Response>(
        _ command: WriteCommand<Response>, as name: String, _ arguments: Arguments, server: MainworthyServer
    ) throws(CommandFailure) -> String {
        let request = command.request
        var body = request.body
        if let value = request.jsonBody {
            do {
                body = try Client.encodeJSON(value)
            } catch {
                throw CommandFailure("The unconfirmed command could not be kept: \(error.description)")
            }
        }
        let pending = MainworthyAccountState.PendingWrite(
            command: name, summary: ([name] + arguments.positionals).joined(separator: " "), key: command.key,
            method: request.method.rawValue, path: request.path, body: body.map { String(decoding: $0, as: UTF8.self) },
            sentAt: server.bundle.clock.now())
        try MainworthyAccountState.update(server.account) { state in
            state.pending.removeAll { $0.command == name }
            state.pending.append(pending)
        }
        return lostReplySentence
    }

    /// Run first by every write command: with `--retry`, sends the command's pending write and returns the exit
    /// code; `nil` without it.
    @MainActor
    static func retryIfAsked(_ name: String, _ arguments: Arguments) async throws -> Int32? {
        guard arguments.flag("retry") else { return nil }
        let server = try await MainworthyCommands.signedIn(arguments)
        guard let pending = try MainworthyAccountState.load(server.account).pending.first(where: { $0.command == name })
        else { throw CommandFailure("No unconfirmed \(name) is pending; nothing was sent.") }
        return try await send(pending, server: server, json: arguments.flag("json"))
    }

    /// Run by every write command before it sends: refuses (nothing sent) when one of its kind is unconfirmed.
    @MainActor
    static func refuseIfPending(_ name: String, _ arguments: Arguments) async throws {
        let server = try await MainworthyCommands.signedIn(arguments)
        if let pending = try MainworthyAccountState.load(server.account).pending.first(where: { $0.command == name }) {
            throw CommandFailure(pendingSentence(pending))
        }
    }

    /// "An unconfirmed result (`result r_1 s_2 pass`, sent …) is pending: …".
    static func pendingSentence(_ pending: MainworthyAccountState.PendingWrite) -> String {
        let at = (try? Timestamp.format(pending.sentAt)) ?? "?"
        return
            "An unconfirmed \(pending.command) (`\(pending.summary)`, sent \(at)) is pending: its reply was lost, "
            + "so it may or may not have been recorded, and nothing new was sent. Send it again with the same key: "
            + "`companion mainworthy retry` (or `companion mainworthy \(pending.command) --retry`); or drop it: "
            + "`companion mainworthy retry --forget`."
    }

    @MainActor
    static func retry(_ arguments: Arguments) async throws -> Int32 {
        let server = try await MainworthyCommands.signedIn(arguments)
        let state = try MainworthyAccountState.load(server.account)
        let named = arguments.positionals.first
        let candidates = state.pending.filter { named == nil || $0.command == named }
        guard let pending = candidates.first else {
            throw CommandFailure("No unconfirmed \(named ?? "command") is pending; nothing was sent.")
        }
        guard candidates.count == 1 else {
            throw UsageError(
                "more than one command is unconfirmed; name one: "
                    + candidates.map { "`companion mainworthy retry \($0.command)` (\($0.summary))" }.joined(
                        separator: ", "))
        }
        if arguments.flag("forget") {
            try MainworthyAccountState.update(server.account) { $0.pending.removeAll { $0 == pending } }
            Terminal.out("Dropped the unconfirmed `\(pending.summary)`; nothing was sent.")
            return 0
        }
        return try await send(pending, server: server, json: arguments.flag("json"))
    }

    /// What `retry --json` prints: the command sent again and the server's reply as it came.
    struct RetryOutput: Encodable {
        var command: String
        var summary: String
        var reply: JSONValue
    }

    /// Sends `pending` again: the same request, the same key.
    @MainActor
    static func send(
        _ pending: MainworthyAccountState.PendingWrite, server: MainworthyServer, json: Bool
    ) async throws -> Int32 {
        let request = Request<JSONValue>(
            method: HTTPMethod(rawValue: pending.method), path: pending.path,
            body: pending.body.map { Data($0.utf8) }, label: "retry of \(pending.command)")
        let reply: JSONValue
        do {
            reply = try await server.perform(WriteCommand(request, key: pending.key))
        } catch {
            switch error {
            case .unconfirmed:
                throw CommandFailure(lostReplySentence)
            case .notConnected:
                throw CommandFailure(
                    "There is no connection to the server, so nothing was sent; the unconfirmed \(pending.command) "
                        + "is still pending. Connect and run `companion mainworthy retry` again.")
            case .signedOut:
                throw CommandFailure(
                    "\(error.description) Run `companion mainworthy login`, then `companion mainworthy retry`.")
            case .refused, .input, .other:
                // The server answered: the command is settled (refused), nothing is left to send again.
                try MainworthyAccountState.update(server.account) { $0.pending.removeAll { $0 == pending } }
                throw CommandFailure(error.description)
            }
        }
        try MainworthyAccountState.update(server.account) { $0.pending.removeAll { $0 == pending } }
        if json {
            Terminal.out(
                try JSONOutput.document(RetryOutput(command: pending.command, summary: pending.summary, reply: reply)))
        } else {
            let said = reply["recorded"]?.stringValue.map { " \($0)" } ?? ""
            Terminal.out("Sent again with the same key: the server confirmed `\(pending.summary)`.\(said)")
        }
        return 0
    }
}
