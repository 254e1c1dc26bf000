import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

/// `companion cache` and `companion outbox`: the offline store of one server and account, kept
/// under `$COMPANION_HOME/store/`; and the cached `get` behind `--offline` / `--fresh`.
enum StoreCommands {
    /// `cache ls|show|clear` and `outbox`.
    static let family = CommandFamily(
        title: "Offline store",
        commands: [
            .group(
                "cache", summary: "the offline cache of a server",
                details: "The offline store of one server and account, kept under $COMPANION_HOME/store/.",
                [
                    Command(
                        name: "ls", summary: "cached replies with their size and age",
                        parameters: [address], options: [account], run: { try await cache("ls", $0) }),
                    Command(
                        name: "show", summary: "one cached reply's body",
                        parameters: [address, .init(syntax: "<key>", help: "the cache key, as `cache ls` shows it")],
                        options: [account], run: { try await cache("show", $0) }),
                    Command(
                        name: "clear", summary: "clear the cache (drafts and the outbox are kept unless --everything)",
                        parameters: [address],
                        options: [account, .flag("everything", "also drafts and the outbox")],
                        run: { try await cache("clear", $0) }),
                ]),
            Command(
                name: "outbox", summary: "writes waiting to be sent",
                parameters: [address],
                options: [
                    account,
                    .flag("replay", "send the pending ones now, each with the idempotency key it was queued with"),
                    .httpsOnly,
                ],
                details: """
                    Lists the writes waiting to reach the server, oldest first, with their state and the
                    server's sentence for a refused one.
                    """,
                exitCodes: "Exit codes: 0 success (nothing left pending after --replay), 1 failure, 2 usage error.",
                run: outbox),
        ])

    private static let address = Command.Parameter(syntax: "<address>", help: "the server")
    private static let account = Command.Option.option("account", "ID", "the account id (default: default)")

    /// The store of `address` and `account` in the client's home folder.
    static func store(for address: ServerAddress, account: String) throws(CommandFailure) -> OfflineStore {
        let folder = try Terminal.stateFolder("store")
        do {
            return try OfflineStore(
                scope: AccountKey(serverKey: address.serverKey, userID: account),
                location: .directory(folder))
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// `get` through the store: `.offline` reads only the cache, `.fresh` only the network, anything
    /// else the network with the cache as fallback. Returns the body and a line saying where it came from.
    static func get(
        address: ServerAddress, path: String, policy: FetchPolicy, client: Client, account: String = "default"
    )
        async throws -> (data: Data, note: String)
    {
        let fetcher = CachedFetcher(client: client, store: try store(for: address, account: account))
        let loaded = try await fetcher.loadLatest(Request<Data>.raw(.get, path), policy: policy)
        let note: String
        switch loaded.origin {
        case .network: note = "fresh from the server"
        case .notModified: note = "confirmed by the server (304)"
        case .cache:
            note =
                "from the offline store, \(Int(loaded.age)) s old"
                + (loaded.failure.map { " (the server could not be reached: \($0.description))" } ?? "")
        }
        return (loaded.value, note)
    }

    static func cache(_ action: String, _ arguments: Arguments) async throws -> Int32 {
        let address = try HTTPCommands.address(try arguments.positional(0, "the server address"), httpsOnly: false)
        let store = try store(for: address, account: arguments.option("account") ?? "default")
        switch action {
        case "ls":
            try arguments.expectAtMost(1)
            let report = try await store.report()
            Terminal.out("\(report.scope): \(report.totalBytes) bytes in \(report.files.count) files")
            for (table, count) in report.rowCounts.sorted(by: { $0.key < $1.key }) {
                Terminal.out("  \(table): \(count)")
            }
            for entry in report.entries {
                Terminal.out(
                    "\(entry.key)  \(entry.bytes) bytes  \(Int(entry.age)) s old"
                        + (entry.group.map { "  group \($0)" } ?? ""))
            }
        case "show":
            try arguments.expectAtMost(2)
            let key = try arguments.positional(1, "the cache key, as `cache ls` shows it")
            guard let resource = try await store.resource(key) else { throw CommandFailure("\(key) is not cached.") }
            Terminal.out(
                JSONValue(data: resource.body)?.outputDocument
                    ?? String(decoding: resource.body, as: UTF8.self))
        case "clear":
            try arguments.expectAtMost(1)
            try await store.clearCache(everything: arguments.flag("everything"))
            Terminal.out(
                arguments.flag("everything")
                    ? "Cleared everything." : "Cleared the cache; drafts and the outbox are kept.")
        default:
            throw UsageError("unknown cache action \(action); use ls, show or clear")
        }
        return 0
    }

    static func outbox(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let httpsOnly = arguments.flag("https-only")
        let address = try HTTPCommands.address(try arguments.positional(0, "the server address"), httpsOnly: httpsOnly)
        let store = try store(for: address, account: arguments.option("account") ?? "default")
        if arguments.flag("replay") {
            let report = await OutboxSender(store: store).replay(
                through: try HTTPCommands.client(for: address, httpsOnly: httpsOnly))
            Terminal.out("sent \(report.sent.count), refused \(report.refused.count), pending \(report.pending)")
            if let stopped = report.stoppedBy { Terminal.out("stopped: \(stopped.description)") }
            if report.pending > 0 { return 1 }
        }
        let entries = try await store.outbox()
        if entries.isEmpty { Terminal.out("The outbox is empty.") }
        for entry in entries {
            Terminal.out(
                "#\(entry.sequence) \(entry.state.rawValue) \(entry.method) \(entry.path)  attempts \(entry.attempts)"
                    + (entry.lastError.map { "  — \($0)" } ?? ""))
        }
        return 0
    }
}
