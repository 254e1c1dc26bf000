import CompanionCore
import Foundation

/// Output, the journal file and the client's home folder.
enum Terminal {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error.
    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether standard output is a terminal (progress lines only then).
    static var isInteractive: Bool { isatty(STDOUT_FILENO) != 0 }

    /// The client's state folder: `$COMPANION_HOME`, else `$HOME/.companion`, both read from the
    /// environment as every Unix tool does (never from the user database, which ignores `HOME=...`).
    static func home(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandFailure)
        -> URL
    {
        if let custom = environment["COMPANION_HOME"], !custom.isEmpty {
            return URL(fileURLWithPath: custom, isDirectory: true)
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw CommandFailure(
                "Neither COMPANION_HOME nor HOME is set: set one to say where companion keeps its state.")
        }
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".companion", isDirectory: true)
    }

    /// The folder `relative` inside the home folder (the home itself when empty), created with mode 0700
    /// (every folder of it that companion creates, and the home folder itself).
    static func stateFolder(_ relative: String = "") throws(CommandFailure) -> URL {
        let home = try home()
        var folder = home
        do {
            try makePrivateFolder(home)
            for component in relative.split(separator: "/") {
                folder = folder.appendingPathComponent(String(component), isDirectory: true)
                try makePrivateFolder(folder)
            }
        } catch {
            throw CommandFailure(
                "Could not create \(folder.path) (\(error.localizedDescription)); check its permissions.")
        }
        return folder
    }

    private static func makePrivateFolder(_ url: URL) throws {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw CocoaError(.fileWriteFileExists) }
        } else {
            try manager.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    /// Writes a state file atomically with mode 0600.
    static func writePrivateFile(_ data: Data, to url: URL) throws {
        try data.write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// Keeps Foundation's own files inside the state folder. On Linux, URLSession's shared cache and cookie
    /// storage create folders under `$XDG_CACHE_HOME` (`~/.cache`) and `$XDG_DATA_HOME` (`~/.local/share`)
    /// even though the kit's transport uses neither; pointing both into the state folder for this process
    /// means companion writes nowhere else.
    static func confineFoundationFolders() {
        guard let state = try? home() else { return }
        setenv("XDG_CACHE_HOME", state.appendingPathComponent("foundation/cache").path, 1)
        setenv("XDG_DATA_HOME", state.appendingPathComponent("foundation/data").path, 1)
    }

    /// Where the last run's journal is kept.
    static func journalFile() throws(CommandFailure) -> URL { try home().appendingPathComponent("journal.jsonl") }

    /// The journal every command of this run writes to.
    static let journal = Journal(capacity: 2_000)

    /// Saves this run's journal (already redacted) for `companion journal`, replacing the last run's.
    static func saveJournal() {
        let data = journal.exportJSONLines()
        do {
            let file = try stateFolder().appendingPathComponent("journal.jsonl")
            do {
                try writePrivateFile(data, to: file)
            } catch {
                err("companion: could not save the journal to \(file.path): \(error.localizedDescription)")
            }
        } catch {
            err("companion: could not save the journal: \(error.description)")
        }
    }
}
