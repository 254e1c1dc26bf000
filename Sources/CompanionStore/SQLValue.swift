#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One SQLite value, as bound to a statement or read from a row.
///
/// Rule: the store speaks in these five storage classes only, so what is written is exactly what
/// is read back (no implicit conversions, no `Any`).
public enum SQLValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// The storage class name, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "NULL"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    /// A text value from a literal.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An integer value from a literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// NULL from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// Text, or NULL for `nil`.
    public static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    /// Bytes, or NULL for `nil`.
    public static func blob(_ value: Data?) -> SQLValue { value.map(SQLValue.blob) ?? .null }
    /// An integer from `Int`.
    public static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
    /// A date stored as seconds since 1970 (REAL), so ages compare exactly and sort in SQL.
    public static func date(_ value: Date) -> SQLValue { .real(value.timeIntervalSince1970) }
}

/// One result row: the column names of its statement and its values, read by name with a type.
///
/// Rule: a typed accessor fails with `StoreError.typeMismatch` naming the column, instead of
/// guessing; `optional…` accessors accept NULL.
public struct Row: Sendable, Hashable {
    /// The column names, in select order.
    public let columns: [String]
    /// The values, in select order.
    public let values: [SQLValue]

    /// Creates a row.
    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of column `name` (NULL when there is no such column).
    public subscript(name: String) -> SQLValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }

    /// An integer column.
    public func int(_ name: String) throws(StoreError) -> Int {
        guard let value = try optionalInt(name) else { throw mismatch(name, "INTEGER") }
        return value
    }

    /// An integer column that may be NULL.
    public func optionalInt(_ name: String) throws(StoreError) -> Int? {
        switch self[name] {
        case .null: return nil
        case .integer(let value): return Int(value)
        default: throw mismatch(name, "INTEGER")
        }
    }

    /// A real (or integer) column.
    public func double(_ name: String) throws(StoreError) -> Double {
        switch self[name] {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: throw mismatch(name, "REAL")
        }
    }

    /// A date column stored with `SQLValue.date`.
    public func date(_ name: String) throws(StoreError) -> Date { Date(timeIntervalSince1970: try double(name)) }

    /// A date column that may be NULL.
    public func optionalDate(_ name: String) throws(StoreError) -> Date? {
        if case .null = self[name] { return nil }
        return try date(name)
    }

    /// A text column.
    public func text(_ name: String) throws(StoreError) -> String {
        guard let value = try optionalText(name) else { throw mismatch(name, "TEXT") }
        return value
    }

    /// A text column that may be NULL.
    public func optionalText(_ name: String) throws(StoreError) -> String? {
        switch self[name] {
        case .null: return nil
        case .text(let value): return value
        default: throw mismatch(name, "TEXT")
        }
    }

    /// A blob column (text is accepted as its UTF-8 bytes).
    public func blob(_ name: String) throws(StoreError) -> Data {
        guard let value = try optionalBlob(name) else { throw mismatch(name, "BLOB") }
        return value
    }

    /// A blob column that may be NULL.
    public func optionalBlob(_ name: String) throws(StoreError) -> Data? {
        switch self[name] {
        case .null: return nil
        case .blob(let value): return value
        case .text(let value): return Data(value.utf8)
        default: throw mismatch(name, "BLOB")
        }
    }

    private func mismatch(_ name: String, _ expected: String) -> StoreError {
        .typeMismatch(column: name, expected: expected, found: self[name].typeName)
    }
}
