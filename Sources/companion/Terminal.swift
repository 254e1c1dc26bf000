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

    /// `$COMPANION_HOME`, or `~/.companion`.
    static var home: URL {
        if let custom = ProcessInfo.processInfo.environment["COMPANION_HOME"], !custom.isEmpty {
            return URL(fileURLWithPath: custom, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".companion", isDirectory: true)
    }

    /// Where the last run's journal is kept.
    static var journalFile: URL { home.appendingPathComponent("journal.jsonl") }

    /// The journal every command of this run writes to.
    static let journal = Journal(capacity: 2_000)

    /// Saves this run's journal (already redacted) for `companion journal`, replacing the last run's.
    static func saveJournal() {
        let data = journal.exportJSONLines()
        do {
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try data.write(to: journalFile, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: journalFile.path)
        } catch {
            err("companion: could not save the journal to \(journalFile.path): \(error.localizedDescription)")
        }
    }
}
