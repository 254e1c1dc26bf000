import CompanionCore
import CompanionVault
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `companion vault pull|ls|cat|log`: the sgit vault reader in a terminal.
///
/// State lives in `<home>/vaults/<vault_id>`: the verified, still-encrypted objects and where they came
/// from. The key is never written to disk; `ls`, `cat` and `log` need it again, through `--key` or the
/// environment variable `COMPANION_VAULT_KEY`.
enum VaultCommands {
    /// `vault pull|ls|cat|log`.
    static let family = CommandFamily(
        title: "Vaults",
        commands: [
            .group(
                "vault", summary: "read an encrypted sgit vault",
                details: """
                    Reads an sgit vault (read-only). A key string is what `sgit` prints or a QR code carries:
                      sgit_private_read_<64 hex>:<vault_id>, <64 hex>:<vault_id>, sgit_public_read_..., sgit_rk1_...,
                      or a vault key sgit_private_vault_<passphrase>:<vault_id> (slower: 600,000 PBKDF2 rounds).
                    The key is never stored: give it to every command with --key, or set COMPANION_VAULT_KEY (safer: a
                    command-line argument is visible to other users in the process list).
                    State: $COMPANION_HOME/vaults/<vault_id> (default $HOME/.companion/vaults/<vault_id>): encrypted
                    objects only.
                    """,
                [
                    Command(
                        name: "pull", summary: "fetch the ref and every object not yet cached, checking each",
                        parameters: [.init(syntax: "[<key-string>]", help: "the key (else COMPANION_VAULT_KEY)")],
                        options: [
                            .option("server", "URL", "the sgit server (default \(HTTPVaultSource.defaultServer))"),
                            .option("batch", "N", "read objects N (2-100) at a time through the batch route"),
                            .option("dir", "PATH", "a folder as `sgit clone --transport local` reads it, not a server"),
                            .option("branch", "NAME", "the branch (default: the vault's own)"), .httpsOnly,
                        ],
                        run: pull),
                    Command(
                        name: "ls", summary: "the files of the pulled commit",
                        options: [key, .flag("long", "also sizes and content types")], run: list),
                    Command(
                        name: "cat", summary: "one file's bytes",
                        parameters: [.init(syntax: "<path>", help: "the file's path in the vault")], options: [key],
                        run: cat),
                    Command(
                        name: "log", summary: "the first-parent history",
                        options: [.option("limit", "N", "at most N commits (default 20)"), key], run: log),
                ])
        ])

    private static let key = Command.Option.option("key", "KEY-STRING", "the key (else COMPANION_VAULT_KEY)")

    // MARK: Commands

    private static func pull(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        guard let keyString = arguments.positionals.first ?? environmentKey else {
            throw UsageError("pull needs a key string (argument or COMPANION_VAULT_KEY)")
        }
        if arguments.option("server") != nil, arguments.option("dir") != nil {
            throw UsageError("give --server or --dir, not both")
        }
        let key = try VaultKey(importing: keyString)
        let folder = try Terminal.stateFolder("vaults/\(key.vaultID)")
        let origin: Origin
        if let dir = arguments.option("dir") {
            origin = Origin(kind: "dir", location: URL(fileURLWithPath: dir).standardizedFileURL.path)
        } else {
            let server = arguments.option("server") ?? HTTPVaultSource.defaultServer.absoluteString
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw UsageError("--server must be an http(s) URL")
            }
            origin = Origin(kind: "server", location: server, httpsOnly: arguments.flag("https-only"))
        }
        var batch = 1
        if let text = arguments.option("batch") {
            guard let value = Int(text), (1...100).contains(value) else { throw UsageError("--batch takes 1 to 100") }
            batch = value
        }
        let source: any VaultSource =
            origin.kind == "server" && batch > 1
            ? HTTPVaultSource(
                server: URL(string: origin.location) ?? HTTPVaultSource.defaultServer, batchSize: batch,
                policy: arguments.transportPolicy, journal: Terminal.journal)
            : origin.source(journal: Terminal.journal)
        let vault = try SGitVault(
            key: key, source: source, cache: folder.appendingPathComponent("cache"), log: VaultTrafficLog())
        let showProgress = isatty(STDERR_FILENO) == 1
        let started = ContinuousClock.now
        let counts = Locked(VaultPullProgress(objects: 0, bytes: 0, elapsed: 0))
        let head = try await vault.pull(branch: arguments.option("branch")) { progress in
            counts.withLock { $0 = progress }
            guard showProgress else { return }
            let megabytes = Double(progress.bytes) / 1_048_576
            let rate = progress.elapsed > 0 ? megabytes / progress.elapsed : 0
            let line = String(
                format: "\r%d objects, %.1f MB, %.1f MB/s, %.1f s", progress.objects, megabytes, rate, progress.elapsed)
            FileHandle.standardError.write(Data(line.utf8))
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        try origin.save(in: folder)
        let files = try await vault.files()
        let seconds = (ContinuousClock.now - started).seconds
        let fetched = counts.withLock { $0 }
        Terminal.out(
            String(
                format: "Pulled %@: head %@ \"%@\", %d files; fetched %d objects, %.1f MB in %.2f s", key.vaultID,
                head.id, head.message, files.count, fetched.objects, Double(fetched.bytes) / 1_048_576, seconds))
        return 0
    }

    private static func list(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let vault = try open(arguments)
        for file in try await vault.files() {
            Terminal.out(arguments.flag("long") ? "\(file.size)\t\(file.contentType)\t\(file.path)" : file.path)
        }
        return 0
    }

    private static func cat(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let path = try arguments.positional(0, "the file's path")
        let data = try await open(arguments).read(path)
        FileHandle.standardOutput.write(data)
        return 0
    }

    private static func log(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        var limit = 20
        if let text = arguments.option("limit") {
            guard let value = Int(text), value > 0 else { throw UsageError("--limit takes a positive number") }
            limit = value
        }
        let vault = try open(arguments)
        let formatter = ISO8601DateFormatter()
        for commit in try await vault.history(limit: limit) {
            let merge = commit.parents.count > 1 ? " (merge)" : ""
            Terminal.out("\(commit.id)  \(formatter.string(from: commit.date))  \(commit.message)\(merge)")
        }
        return 0
    }

    private static func open(_ arguments: Arguments) throws -> SGitVault {
        guard let keyString = arguments.option("key") ?? environmentKey else {
            throw UsageError("this command needs the key again: --key <key-string> or COMPANION_VAULT_KEY")
        }
        let key = try VaultKey(importing: keyString)
        let folder = try Terminal.stateFolder("vaults/\(key.vaultID)")
        guard let origin = Origin.load(from: folder) else {
            throw CommandFailure("Vault \(key.vaultID) has not been pulled here yet: run `companion vault pull` first.")
        }
        return try SGitVault(
            key: key, source: origin.source(journal: Terminal.journal), cache: folder.appendingPathComponent("cache"),
            log: VaultTrafficLog())
    }

    // MARK: Helpers

    /// Where a vault was pulled from (no key): saved so `ls`/`cat` can fetch a blob the cache lacks.
    private struct Origin: Codable {
        let kind: String
        let location: String

        /// Whether the pull was made with `--https-only` (the later reads keep its rule).
        var httpsOnly: Bool? = nil

        func source(journal: Journal) -> any VaultSource {
            if kind == "dir" { return LocalFolderVaultSource(root: URL(fileURLWithPath: location)) }
            return HTTPVaultSource(
                server: URL(string: location) ?? HTTPVaultSource.defaultServer,
                policy: .terminal(httpsOnly: httpsOnly ?? false), journal: journal)
        }

        func save(in folder: URL) throws {
            try Terminal.writePrivateFile(
                try JSONOutput.data(self), to: folder.appendingPathComponent("origin.json"))
        }

        static func load(from folder: URL) -> Origin? {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("origin.json")) else { return nil }
            return try? JSONDecoder().decode(Origin.self, from: data)
        }
    }

    private static var environmentKey: String? {
        let value = ProcessInfo.processInfo.environment["COMPANION_VAULT_KEY"]
        return value?.isEmpty == false ? value : nil
    }
}
