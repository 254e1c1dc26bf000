import CompanionCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a store holds, for a debug panel: its files and sizes, row counts and how old each
/// cached entry is (P-DEBUG-5).
public struct StorageReport: Sendable, Hashable {
    /// One file on disk.
    public struct File: Sendable, Hashable {
        /// The file name.
        public var name: String
        /// Its size in bytes.
        public var bytes: Int
    }

    /// One cached entry.
    public struct Entry: Sendable, Hashable {
        /// The cache key.
        public var key: String
        /// The body size in bytes.
        public var bytes: Int
        /// When it was fetched.
        public var fetchedAt: Date
        /// Its age when the report was made, in seconds.
        public var age: TimeInterval
        /// The snapshot group it belongs to, if any.
        public var group: String?
    }

    /// Whose store this is.
    public var scope: AccountKey
    /// The database files (the database, its WAL and shared-memory files); empty in memory.
    public var files: [File]
    /// Rows per table.
    public var rowCounts: [String: Int]
    /// Every cached entry, newest first.
    public var entries: [Entry]
    /// The schema version.
    public var schemaVersion: Int
    /// When the report was made.
    public var madeAt: Date

    /// The total size of the files.
    public var totalBytes: Int { files.reduce(0) { $0 + $1.bytes } }
}

extension OfflineStore {
    /// Makes a storage report.
    public func report() async throws(StoreError) -> StorageReport {
        let tables = Schema.tables
        let (counts, summaries) = try await read { transaction throws(StoreError) in
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table] = try transaction.connection.first("SELECT count(*) AS n FROM \(table)")?.int("n") ?? 0
            }
            return (counts, try transaction.resourceSummaries().map { ($0.key, $0.bytes, $0.fetchedAt, $0.group) })
        }
        let now = clock.now()
        var files: [StorageReport.File] = []
        if let url = fileURL {
            for suffix in ["", "-wal", "-shm"] {
                let path = url.path + suffix
                // The size is a `UInt` from swift-foundation and an `NSNumber` on Apple platforms, which
                // bridges to `UInt` there: one cast reads both without naming Foundation's `NSNumber`.
                if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                    let size = attributes[.size] as? UInt
                {
                    files.append(StorageReport.File(name: url.lastPathComponent + suffix, bytes: Int(clamping: size)))
                }
            }
        }
        return StorageReport(
            scope: scope, files: files, rowCounts: counts,
            entries: summaries.map {
                StorageReport.Entry(
                    key: $0.0, bytes: $0.1, fetchedAt: $0.2, age: max(0, now.timeIntervalSince($0.2)), group: $0.3)
            }, schemaVersion: try await database.schemaVersion(), madeAt: now)
    }
}
