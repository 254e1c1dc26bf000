#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything the store can do, inside one transaction.
///
/// Rule: an optimistic local change and the outbox row that will send it are written through the
/// same transaction, so after a crash there is either both or neither. A transaction is handed to
/// the body of `OfflineStore.write`/`read` and must not escape it (it is not `Sendable`).
public final class StoreTransaction {
    /// The connection, for app-specific tables or queries.
    public let connection: Connection
    /// The store clock's time when the transaction began.
    public let now: Date
    private(set) var changes: [StoreChange] = []

    init(connection: Connection, now: Date) {
        self.connection = connection
        self.now = now
    }

    func note(_ change: StoreChange) { changes.append(change) }

    // MARK: Rows

    static func resource(_ row: Row) throws(StoreError) -> CachedResource {
        CachedResource(
            key: try row.text("key"), body: try row.blob("body"), mediaType: try row.optionalText("media_type"),
            etag: try row.optionalText("etag"), lastModified: try row.optionalText("last_modified"),
            fetchedAt: try row.date("fetched_at"), group: try row.optionalText("group_name"),
            member: try row.optionalText("member"))
    }

    static func entry(_ row: Row) throws(StoreError) -> OutboxEntry {
        OutboxEntry(
            sequence: try row.int("seq"), idempotencyKey: try row.text("idempotency_key"),
            method: try row.text("method"),
            path: try row.text("path"), body: try row.optionalBlob("body"),
            contentType: try row.optionalText("content_type"),
            subject: try row.optionalText("subject"), createdAt: try row.date("created_at"),
            attempts: try row.int("attempts"), state: OutboxEntry.State(rawValue: try row.text("state")) ?? .pending,
            lastError: try row.optionalText("last_error"), serverCode: try row.optionalText("server_code"))
    }
}
