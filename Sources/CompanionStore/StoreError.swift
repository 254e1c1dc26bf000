#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything that can go wrong in the offline store.
///
/// Rule: each case carries what went wrong (the SQLite result code and its message, the file, the
/// migration) and reads as a sentence a person or a developer can act on. A failed write never
/// leaves half of itself behind: the transaction it ran in is rolled back.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file could not be opened or created.
    case openFailed(path: String, code: Int32, message: String)
    /// SQLite refused a statement.
    case sqlite(code: Int32, message: String, sql: String)
    /// Another connection held the database longer than the busy timeout.
    case busy(sql: String)
    /// The file is not a database, or it is damaged.
    case corrupt(path: String, detail: String)
    /// The file was written by a newer version of the kit (its schema version is higher than known).
    case newerSchema(found: Int, known: Int)
    /// A migration step failed; the database stays at its previous version.
    case migrationFailed(version: Int, message: String)
    /// A column held a value of another type than the code expected.
    case typeMismatch(column: String, expected: String, found: String)
    /// A value could not be encoded or decoded for storage.
    case encoding(String)
    /// Something the caller named does not exist.
    case notFound(String)
    /// The caller passed a value the store cannot accept.
    case invalidArgument(String)

    /// A sentence saying what happened and what to do.
    public var description: String {
        switch self {
        case .openFailed(let path, let code, let message):
            return "The offline store at \(path) could not be opened (SQLite \(code): \(message)). "
                + "Check that the folder exists and is writable."
        case .sqlite(let code, let message, let sql):
            return "The offline store refused a statement (SQLite \(code): \(message)) in: \(Self.shorten(sql))"
        case .busy(let sql):
            return "The offline store was busy for too long (another process holds it); try again. Statement: "
                + Self.shorten(sql)
        case .corrupt(let path, let detail):
            return "The offline store at \(path) is damaged (\(detail)). Clear the cache to rebuild it."
        case .newerSchema(let found, let known):
            return "The offline store was written by a newer app version (schema \(found), this one knows \(known)). "
                + "Update the app or clear the cache."
        case .migrationFailed(let version, let message):
            return "Upgrading the offline store to schema \(version) failed: \(message). Nothing was changed."
        case .typeMismatch(let column, let expected, let found):
            return "The stored column \(column) holds \(found) where \(expected) was expected."
        case .encoding(let detail):
            return "A value could not be stored or read back: \(detail)."
        case .notFound(let what):
            return "\(what) is not in the offline store."
        case .invalidArgument(let detail):
            return "The offline store cannot accept this: \(detail)."
        }
    }

    static func shorten(_ sql: String) -> String {
        // Trimmed with the standard library, not Foundation's `CharacterSet`, so the store links no more of
        // Foundation than FoundationEssentials (a tool that only reads the cache starts faster without it).
        let flat = sql.split(whereSeparator: \.isNewline).map { line -> Substring in
            let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
            let end = line.lastIndex { !$0.isWhitespace }.map(line.index(after:)) ?? start
            return line[start..<end]
        }.joined(separator: " ")
        return flat.count > 120 ? String(flat.prefix(117)) + "..." : flat
    }
}
