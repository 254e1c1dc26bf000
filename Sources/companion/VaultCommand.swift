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
/// State lives in `$COMPANION_HOME/vaults/<vault_id>` (default `~/.companion/vaults/<vault_id>`): the verified,
/// still-encrypted objects and where they came from. The key is never written to disk; `ls`, `cat` and `log` need
/// it again, through `--key` or the environment variable `COMPANION_VAULT_KEY`.
enum VaultCommand {
    static let usage = """
        usage: companion vault pull [<key-string>] [--server URL [--batch N] | --dir PATH] [--branch NAME]
               companion vault ls   [--key <key-string>] [--long]
               companion vault cat  <path> [--key <key-string>]
               companion vault log  [--limit N] [--key <key-string>]

        Reads an sgit vault (read-only). <key-string> is what `sgit` prints or a QR code carries:
          sgit_private_read_<64 hex>:<vault_id>, <64 hex>:<vault_id>, sgit_public_read_..., sgit_rk1_...,
          or a vault key sgit_private_vault_<passphrase>:<vault_id> (slower: 600,000 PBKDF2 rounds).
        The key is never stored: give it to every command with --key, or set COMPANION_VAULT_KEY (safer: a
        command-line argument is visible to other users in the process list).
        pull   fetches the ref and every object not yet cached, checking each, from --server (default
               https://dev.send.sgraph.ai) or from --dir (a folder as `sgit clone --transport local` reads it).
               --batch N (2-100) reads objects N at a time through the server's batch route, as `sgit clone` does.
        ls     lists the files of the pulled commit; cat prints one file's bytes; log shows the first-parent history.
        State: $COMPANION_HOME/vaults/<vault_id> (default ~/.companion/vaults/<vault_id>): encrypted objects only.
        Exit status: 0 done, 1 the vault failed (one line on stderr says why), 2 usage error.
        """

    /// Runs `companion vault <arguments>` and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first, command != "--help", command != "-h", command != "help" else {
            out(usage)
            return arguments.isEmpty ? 2 : 0
        }
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var positional: [String] = []
        var index = 1
        let valued: Set<String> = ["--server", "--dir", "--key", "--branch", "--limit", "--batch"]
        while index < arguments.count {
            let argument = arguments[index]
            if valued.contains(argument) {
                guard index + 1 < arguments.count else { return usageError("\(argument) needs a value") }
                options[argument] = arguments[index + 1]
                index += 2
            } else if argument == "--help" || argument == "-h" {
                out(usage)
                return 0
            } else if argument.hasPrefix("--") {
                flags.insert(argument)
                index += 1
            } else {
                positional.append(argument)
                index += 1
            }
        }
        do {
            switch command {
            case "pull":
                guard positional.count <= 1 else { return usageError("pull takes one key string") }
                return try await pull(keyString: positional.first, options: options)
            case "ls":
                guard positional.isEmpty else { return usageError("ls takes no path") }
                let vault = try open(options: options)
                let files = try await vault.files()
                for file in files {
                    out(flags.contains("--long") ? "\(file.size)\t\(file.contentType)\t\(file.path)" : file.path)
                }
                return 0
            case "cat":
                guard positional.count == 1 else { return usageError("cat takes one path") }
                let vault = try open(options: options)
                let data = try await vault.read(positional[0])
                FileHandle.standardOutput.write(data)
                return 0
            case "log":
                guard positional.isEmpty else { return usageError("log takes no path") }
                let limit = Int(options["--limit"] ?? "") ?? 20
                let vault = try open(options: options)
                let formatter = ISO8601DateFormatter()
                for commit in try await vault.history(limit: max(1, limit)) {
                    let merge = commit.parents.count > 1 ? " (merge)" : ""
                    out("\(commit.id)  \(formatter.string(from: commit.date))  \(commit.message)\(merge)")
                }
                return 0
            default:
                return usageError("unknown vault command \(command)")
            }
        } catch let error as UsageError {
            err("companion vault: \(error.message)")
            return 2
        } catch let error as VaultError {
            err("companion vault: \(error.description)")
            return 1
        } catch {
            err("companion vault: \(error)")
            return 1
        }
    }

    // MARK: Commands

    private static func pull(keyString: String?, options: [String: String]) async throws -> Int32 {
        guard let keyString = keyString ?? environmentKey else {
            return usageError("pull needs a key string (argument or COMPANION_VAULT_KEY)")
        }
        if options["--server"] != nil, options["--dir"] != nil { return usageError("give --server or --dir, not both") }
        let key = try VaultKey(importing: keyString)
        let folder = try stateFolder(for: key.vaultID, options: options)
        let origin: Origin
        if let dir = options["--dir"] {
            origin = Origin(kind: "dir", location: URL(fileURLWithPath: dir).standardizedFileURL.path)
        } else {
            let server = options["--server"] ?? HTTPVaultSource.defaultServer.absoluteString
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                return usageError("--server must be an http(s) URL")
            }
            origin = Origin(kind: "server", location: server)
        }
        let batch = Int(options["--batch"] ?? "1") ?? 1
        let source: any VaultSource =
            origin.kind == "server" && batch > 1
            ? HTTPVaultSource(
                server: URL(string: origin.location) ?? HTTPVaultSource.defaultServer, batchSize: batch,
                journal: Terminal.journal)
            : origin.source
        let vault = try SGitVault(
            key: key, source: source, cache: folder.appendingPathComponent("cache"), log: VaultTrafficLog())
        let showProgress = isatty(STDERR_FILENO) == 1
        let started = ContinuousClock.now
        let counts = ProgressBox()
        let head = try await vault.pull(branch: options["--branch"]) { progress in
            counts.set(progress)
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
        let fetched = counts.value
        out(
            String(
                format: "Pulled %@: head %@ \"%@\", %d files; fetched %d objects, %.1f MB in %.2f s", key.vaultID,
                head.id, head.message, files.count, fetched.objects, Double(fetched.bytes) / 1_048_576, seconds))
        return 0
    }

    private static func open(options: [String: String]) throws -> SGitVault {
        guard let keyString = options["--key"] ?? environmentKey else {
            throw UsageError(message: "this command needs the key again: --key <key-string> or COMPANION_VAULT_KEY")
        }
        let key = try VaultKey(importing: keyString)
        let folder = try stateFolder(for: key.vaultID, options: options)
        guard let origin = Origin.load(from: folder) else {
            throw UsageError(
                message: "vault \(key.vaultID) has not been pulled here yet: run companion vault pull first")
        }
        return try SGitVault(
            key: key, source: origin.source, cache: folder.appendingPathComponent("cache"), log: VaultTrafficLog())
    }

    // MARK: Helpers

    private struct UsageError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Where a vault was pulled from (no key): saved so `ls`/`cat` can fetch a blob the cache lacks.
    private struct Origin: Codable {
        let kind: String
        let location: String

        var source: any VaultSource {
            if kind == "dir" { return LocalFolderVaultSource(root: URL(fileURLWithPath: location)) }
            return HTTPVaultSource(
                server: URL(string: location) ?? HTTPVaultSource.defaultServer, journal: Terminal.journal)
        }

        func save(in folder: URL) throws {
            let data = try JSONEncoder().encode(self)
            try data.write(to: folder.appendingPathComponent("origin.json"), options: .atomic)
        }

        static func load(from folder: URL) -> Origin? {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("origin.json")) else { return nil }
            return try? JSONDecoder().decode(Origin.self, from: data)
        }
    }

    private final class ProgressBox: @unchecked Sendable {
        private let lock = NSLock()
        private var progress = VaultPullProgress(objects: 0, bytes: 0, elapsed: 0)
        func set(_ value: VaultPullProgress) { lock.withLock { progress = value } }
        var value: VaultPullProgress { lock.withLock { progress } }
    }

    private static var environmentKey: String? {
        let value = ProcessInfo.processInfo.environment["COMPANION_VAULT_KEY"]
        return value?.isEmpty == false ? value : nil
    }

    private static func stateFolder(for vaultID: String, options: [String: String]) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        let home: URL
        if let explicit = environment["COMPANION_HOME"], !explicit.isEmpty {
            home = URL(fileURLWithPath: explicit)
        } else {
            home = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".companion")
        }
        let folder = home.appendingPathComponent("vaults/\(vaultID)", isDirectory: true)
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }

    private static func usageError(_ message: String) -> Int32 {
        err("companion vault: \(message) (see companion vault --help)")
        return 2
    }

    private static func out(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    private static func err(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
}
