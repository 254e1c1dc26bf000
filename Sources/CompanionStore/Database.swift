#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One schema step: the statements that bring the database from `version - 1` to `version`.
public struct Migration: Sendable, Hashable {
    /// The schema version after this step (1, 2, 3 …).
    public let version: Int
    /// The statements, run in one transaction together with the version bump.
    public let sql: String

    /// Creates a migration step.
    public init(version: Int, sql: String) {
        self.version = version
        self.sql = sql
    }
}

/// A SQLite database owned by an actor: every use of the connection is serialised through it.
///
/// Rule: opened in WAL mode with foreign keys on and a busy timeout, so a reader never blocks the
/// writer, a dangling reference is refused, and a second process waits instead of failing at once.
/// Schema changes are versioned migrations (`PRAGMA user_version`), each applied in the same
/// transaction as its version bump, so a crash leaves the old version or the new one.
public actor Database {
    private let connection: Connection
    /// The file path (":memory:" for an in-memory database).
    public nonisolated let path: String

    /// Opens the database at `path` (creating it) and applies `migrations` not yet applied; with no
    /// migrations the schema is left as it is (tools that only inspect a file).
    public init(path: String, migrations: [Migration] = [], busyTimeout: Duration = .seconds(5)) throws(StoreError) {
        let connection = try Connection(path: path)
        self.connection = connection
        self.path = path
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        try connection.execute("PRAGMA busy_timeout = \(milliseconds)")
        if path != ":memory:" {
            guard let mode = try connection.first("PRAGMA journal_mode = WAL"),
                (try? mode.text("journal_mode")) == "wal"
            else {
                throw .openFailed(path: path, code: 0, message: "WAL journal mode could not be enabled")
            }
        }
        try connection.execute("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL")
        if !migrations.isEmpty { try Self.migrate(connection, migrations) }
    }

    /// Runs `body` in a read transaction: every query in it sees one consistent state, even while
    /// another process writes.
    public func read<T: Sendable>(_ body: @Sendable (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try transaction("BEGIN DEFERRED", body)
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`): all of it is committed, or, if it
    /// throws, none of it.
    public func write<T: Sendable>(_ body: @Sendable (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try transaction("BEGIN IMMEDIATE", body)
    }

    /// Runs one statement outside a transaction (pragmas such as `integrity_check`, `wal_checkpoint`).
    public func query(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [Row] {
        try connection.query(sql, values)
    }

    /// The schema version (`PRAGMA user_version`).
    public func schemaVersion() throws(StoreError) -> Int {
        try connection.first("PRAGMA user_version")?.int("user_version") ?? 0
    }

    private func transaction<T>(_ begin: String, _ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.execute(begin)
        do {
            let value = try body(connection)
            try connection.execute("COMMIT")
            return value
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    private static func migrate(_ connection: Connection, _ migrations: [Migration]) throws(StoreError) {
        let known = migrations.map(\.version).max() ?? 0
        let current = try connection.first("PRAGMA user_version")?.int("user_version") ?? 0
        guard current <= known else { throw .newerSchema(found: current, known: known) }
        for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > current {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try connection.execute(migration.sql)
                try connection.execute("PRAGMA user_version = \(migration.version)")
                try connection.execute("COMMIT")
            } catch {
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                throw .migrationFailed(version: migration.version, message: error.description)
            }
        }
    }
}
