import CompanionCore
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

@Suite("SQLite wrapper and schema")
struct DatabaseTests {
    @Test func opensInWALWithForeignKeysAndBusyTimeout() async throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url.appendingPathComponent("a.sqlite").path)
        #expect(try await database.query("PRAGMA journal_mode").first?.text("journal_mode") == "wal")
        #expect(try await database.query("PRAGMA foreign_keys").first?.int("foreign_keys") == 1)
        #expect(try await database.query("PRAGMA busy_timeout").first?.int("timeout") == 5_000)
    }

    @Test func migrationsRunOnceInOrderAndRecordTheVersion() async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("m.sqlite").path
        let steps = [
            Migration(version: 1, sql: "CREATE TABLE t(a INTEGER)"),
            Migration(version: 2, sql: "ALTER TABLE t ADD COLUMN b TEXT"),
        ]
        let first = try Database(path: path, migrations: steps)
        #expect(try await first.schemaVersion() == 2)
        let again = try Database(path: path, migrations: steps)
        #expect(try await again.schemaVersion() == 2)
        #expect(throws: StoreError.newerSchema(found: 2, known: 1)) {
            _ = try Database(path: path, migrations: [steps[0]])
        }
    }

    @Test func aFailedMigrationLeavesThePreviousVersion() async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("f.sqlite").path
        _ = try Database(path: path, migrations: [Migration(version: 1, sql: "CREATE TABLE t(a)")])
        #expect {
            _ = try Database(
                path: path,
                migrations: [
                    Migration(version: 1, sql: "CREATE TABLE t(a)"),
                    Migration(version: 2, sql: "CREATE TABLE u(a); CREATE TABLE t(a)"),
                ])
        } throws: { error in
            guard case .migrationFailed(2, _) = error as? StoreError else { return false }
            return true
        }
        let reopened = try Database(path: path)
        #expect(try await reopened.schemaVersion() == 1)
        #expect(try await reopened.query("SELECT name FROM sqlite_master WHERE name = 'u'").isEmpty)
    }

    @Test func aThrowingTransactionRollsBackEverything() async throws {
        let database = try Database(path: ":memory:", migrations: [Migration(version: 1, sql: "CREATE TABLE t(a)")])
        await #expect(throws: StoreError.self) {
            try await database.write { connection throws(StoreError) in
                try connection.run("INSERT INTO t VALUES (?)", [1])
                try connection.run("INSERT INTO nope VALUES (1)")
            }
        }
        let count = try await database.read { connection throws(StoreError) in
            try connection.first("SELECT count(*) AS n FROM t")?.int("n")
        }
        #expect(count == 0)
    }

    @Test func typedRowsRefuseTheWrongType() async throws {
        let database = try Database(path: ":memory:")
        let row = try #require(try await database.query("SELECT 1 AS n, 'x' AS s, NULL AS z, x'00ff' AS b").first)
        #expect(try row.int("n") == 1)
        #expect(try row.text("s") == "x")
        #expect(try row.optionalText("z") == nil)
        #expect(try row.blob("b") == Data([0, 255]))
        #expect(throws: StoreError.typeMismatch(column: "s", expected: "INTEGER", found: "TEXT")) { try row.int("s") }
        #expect(throws: StoreError.self) { try row.text("z") }
    }

    @Test func badSQLAndWrongParameterCountsAreTypedErrors() async throws {
        let database = try Database(path: ":memory:")
        await #expect {
            try await database.query("SELEC 1")
        } throws: { error in
            guard case .sqlite(_, let message, _) = error as? StoreError else { return false }
            return message.contains("syntax")
        }
        await #expect {
            try await database.query("SELECT ?", [])
        } throws: { error in
            guard case .invalidArgument = error as? StoreError else { return false }
            return true
        }
    }

    @Test func aFileThatIsNotADatabaseIsReportedAsDamaged() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("junk.sqlite")
        try Data(repeating: 0x41, count: 8_192).write(to: url)
        #expect {
            _ = try Database(path: url.path, migrations: [Migration(version: 1, sql: "CREATE TABLE t(a)")])
        } throws: { error in
            let text = (error as? StoreError)?.description ?? ""
            return text.contains("damaged") || text.contains("could not be opened")
        }
        #expect(try Data(contentsOf: url).count == 8_192)
    }
}
