#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Outbox inside a store transaction.
extension StoreTransaction {
    /// Queues a write. Call it in the same transaction as the local change it stands for.
    /// Queuing the same idempotency key twice is refused.
    @discardableResult
    public func enqueue(_ write: OutboxWrite) throws(StoreError) -> Int {
        guard !write.idempotencyKey.isEmpty else { throw .invalidArgument("an outbox write needs an idempotency key") }
        try connection.run(
            """
            INSERT INTO outbox(idempotency_key, method, path, body, content_type, subject, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(write.idempotencyKey), .text(write.method.uppercased()), .text(write.path), .blob(write.body),
                .text(write.contentType), .text(write.subject), .date(now),
            ])
        let sequence = Int(connection.lastInsertRowID)
        note(.outbox(pending: try pendingCount()))
        return sequence
    }

    /// The outbox in queue order (pending and failed).
    public func outbox() throws(StoreError) -> [OutboxEntry] {
        try connection.query("SELECT * FROM outbox ORDER BY seq").map(Self.entry)
    }

    /// How many writes are still pending.
    public func pendingCount() throws(StoreError) -> Int {
        try connection.first("SELECT count(*) AS n FROM outbox WHERE state = 'pending'")?.int("n") ?? 0
    }

    /// Records a failed attempt: a transient one keeps the entry pending; a permanent one marks it
    /// failed with the server's sentence and code. The entry (and its body) is kept either way.
    public func recordFailure(
        _ sequence: Int, sentence: String, serverCode: String?, permanent: Bool
    ) throws(StoreError) {
        try connection.run(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ?, server_code = ?, state = ? WHERE seq = ?",
            [.text(sentence), .text(serverCode), .text(permanent ? "failed" : "pending"), .int(sequence)])
        note(.outbox(pending: try pendingCount()))
    }

    /// Removes an entry (sent, or discarded by the person).
    public func removeFromOutbox(_ sequence: Int) throws(StoreError) {
        try connection.run("DELETE FROM outbox WHERE seq = ?", [.int(sequence)])
        note(.outbox(pending: try pendingCount()))
    }

    /// Puts a failed entry back in the queue (after the person edited its body, or to try again).
    public func retry(_ sequence: Int, body: Data? = nil) throws(StoreError) {
        if let body {
            try connection.run("UPDATE outbox SET body = ? WHERE seq = ?", [.blob(body), .int(sequence)])
        }
        try connection.run("UPDATE outbox SET state = 'pending' WHERE seq = ?", [.int(sequence)])
        note(.outbox(pending: try pendingCount()))
    }
}
