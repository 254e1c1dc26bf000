#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// One open SQLite connection with a cache of prepared statements.
///
/// Rule: a connection is used by one owner at a time. It is deliberately not `Sendable` (its
/// handle is an `OpaquePointer`); the `Database` actor owns it and hands it to one transaction
/// body at a time, so no two threads ever touch it together.
public final class Connection {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// The file path (":memory:" for an in-memory database).
    public let path: String

    /// SQLite's "copy this buffer now" destructor (the C macro `SQLITE_TRANSIENT` is not imported).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens (creating if needed) the database at `path`.
    ///
    /// Rule: a database file is created 0600 (owner only), since it holds a person's cached data; SQLite
    /// gives its `-wal` and `-shm` files the database file's mode, so they are private too.
    init(path: String, readOnly: Bool = false) throws(StoreError) {
        if !readOnly, path != ":memory:", !path.hasPrefix("file:"), !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        var pointer: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let pointer { sqlite3_close_v2(pointer) }
            throw .openFailed(path: path, code: code, message: message)
        }
        self.handle = pointer
        self.path = path
        sqlite3_extended_result_codes(pointer, 1)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters (schema, pragmas, BEGIN/COMMIT).
    public func execute(_ sql: String) throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        let message = error.map { String(cString: $0) } ?? ""
        sqlite3_free(error)
        guard code == SQLITE_OK else { throw failure(code, sql, message: message) }
    }

    /// Runs a statement that returns no rows and reports how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> Int {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW { code = sqlite3_step(statement) }
        guard code == SQLITE_DONE else { throw failure(code, sql) }
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query and returns every row.
    public func query(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql, values) { row throws(StoreError) in
            rows.append(row)
            return true
        }
        return rows
    }

    /// Runs a query and returns its first row, if any.
    public func first(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> Row? {
        var result: Row?
        try forEachRow(sql, values) { row throws(StoreError) in
            result = row
            return false
        }
        return result
    }

    /// Runs a query and calls `body` for each row until it returns `false`, without holding all
    /// rows in memory at once.
    public func forEachRow(
        _ sql: String, _ values: [SQLValue] = [], _ body: (Row) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        let count = Int(sqlite3_column_count(statement))
        let names = (0..<count).map { String(cString: sqlite3_column_name(statement, Int32($0))) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code, sql) }
            let row = Row(columns: names, values: (0..<count).map { column(statement, Int32($0)) })
            if try !body(row) { return }
        }
    }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func prepared(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
            sqlite3_clear_bindings(statement)
        } else {
            var pointer: OpaquePointer?
            let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
            guard code == SQLITE_OK, let pointer else { throw failure(code, sql) }
            statements[sql] = pointer
            statement = pointer
        }
        guard Int(sqlite3_bind_parameter_count(statement)) == values.count else {
            throw .invalidArgument(
                "\(values.count) values for \(sqlite3_bind_parameter_count(statement)) parameters in "
                    + StoreError.shorten(sql))
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .real(let number): code = sqlite3_bind_double(statement, index, number)
            case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob64(statement, index, bytes.baseAddress, UInt64(bytes.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else { throw failure(code, sql) }
        }
        return statement
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(cString: text))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func failure(_ code: Int32, _ sql: String, message: String? = nil) -> StoreError {
        let text = message.flatMap { $0.isEmpty ? nil : $0 } ?? String(cString: sqlite3_errmsg(handle))
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(sql: sql)
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(path: path, detail: text)
        default: return .sqlite(code: code, message: text, sql: sql)
        }
    }
}
