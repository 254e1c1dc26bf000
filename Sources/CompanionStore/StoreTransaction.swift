import Foundation

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

    // MARK: Cached resources

    /// The cached resource for `key`, if any.
    public func resource(_ key: String) throws(StoreError) -> CachedResource? {
        try connection.first("SELECT * FROM resources WHERE key = ?", [.text(key)]).map(Self.resource)
    }

    /// Stores (or replaces) a standalone cached resource.
    public func put(_ resource: CachedResource) throws(StoreError) {
        try connection.run(
            """
            INSERT OR REPLACE INTO resources(key, body, media_type, etag, last_modified, fetched_at, group_name, member)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(resource.key), .blob(resource.body), .text(resource.mediaType), .text(resource.etag),
                .text(resource.lastModified), .date(resource.fetchedAt), .text(resource.group), .text(resource.member),
            ])
        note(.resource(resource.key))
    }

    /// Marks a cached resource as confirmed now (the server answered 304 Not Modified).
    public func touch(_ key: String, at date: Date) throws(StoreError) {
        try connection.run("UPDATE resources SET fetched_at = ? WHERE key = ?", [.date(date), .text(key)])
        note(.resource(key))
    }

    /// Removes a cached resource.
    public func removeResource(_ key: String) throws(StoreError) {
        try connection.run("DELETE FROM resources WHERE key = ?", [.text(key)])
        note(.resource(key))
    }

    /// Every cached resource's key, size and fetch time (without bodies), newest first.
    public func resourceSummaries() throws(StoreError) -> [(key: String, bytes: Int, fetchedAt: Date, group: String?)] {
        var result: [(key: String, bytes: Int, fetchedAt: Date, group: String?)] = []
        for row in try connection.query(
            "SELECT key, length(body) AS bytes, fetched_at, group_name FROM resources ORDER BY fetched_at DESC, key")
        {
            result.append(
                (
                    try row.text("key"), try row.int("bytes"), try row.date("fetched_at"),
                    try row.optionalText("group_name")
                )
            )
        }
        return result
    }

    // MARK: Snapshot groups

    /// Replaces group `name` with `members` (by member name), all stamped with `fetchedAt`.
    /// Members of the old group that are not in the new one are removed.
    public func writeGroup(_ name: String, fetchedAt: Date, members: [String: CachedResource]) throws(StoreError) {
        try connection.run(
            """
            INSERT INTO snapshot_groups(name, fetched_at, member_count, generation) VALUES (?, ?, ?, 1)
            ON CONFLICT(name) DO UPDATE SET fetched_at = excluded.fetched_at,
                member_count = excluded.member_count, generation = generation + 1
            """, [.text(name), .date(fetchedAt), .int(members.count)])
        try connection.run("DELETE FROM resources WHERE group_name = ?", [.text(name)])
        for (member, resource) in members.sorted(by: { $0.key < $1.key }) {
            var stamped = resource
            stamped.fetchedAt = fetchedAt
            stamped.group = name
            stamped.member = member
            try put(stamped)
        }
        note(.group(name))
    }

    /// Group `name` as last written, or `nil`.
    public func group(_ name: String) throws(StoreError) -> SnapshotGroup? {
        guard let head = try connection.first("SELECT * FROM snapshot_groups WHERE name = ?", [.text(name)]) else {
            return nil
        }
        var members: [String: CachedResource] = [:]
        for row in try connection.query("SELECT * FROM resources WHERE group_name = ?", [.text(name)]) {
            let resource = try Self.resource(row)
            members[resource.member ?? resource.key] = resource
        }
        return SnapshotGroup(
            name: name, fetchedAt: try head.date("fetched_at"), generation: try head.int("generation"),
            members: members)
    }

    /// The names of every stored group.
    public func groupNames() throws(StoreError) -> [String] {
        try connection.query("SELECT name FROM snapshot_groups ORDER BY name").map { row throws(StoreError) in
            try row.text("name")
        }
    }

    // MARK: Lists and pages

    /// Stores a page of list `key`: the first page (`replacing: true`) replaces the list; a next page
    /// appends after the last stored item, skipping ids already stored. Returns how many were added.
    @discardableResult
    public func storePage(_ page: ListPage, list key: String, replacing: Bool) throws(StoreError) -> Int {
        let existing = try listState(key)
        if replacing || existing == nil {
            // Keep when the person left it (recent lists), replace everything else.
            let leftAt: SQLValue = existing?.leftAt.map(SQLValue.date) ?? .null
            try connection.run("DELETE FROM lists WHERE list_key = ?", [.text(key)])
            try connection.run(
                "INSERT INTO lists(list_key, fetched_at, left_at) VALUES (?, ?, ?)", [.text(key), .date(now), leftAt])
        }
        let pageIndex = replacing ? 0 : (existing?.pageCount ?? 0)
        var position =
            try connection.first(
                "SELECT coalesce(max(position), -1) AS last FROM list_items WHERE list_key = ?", [.text(key)])?.int(
                "last") ?? -1
        var added = 0
        for item in page.items {
            position += 1
            let changed = try connection.run(
                "INSERT OR IGNORE INTO list_items(list_key, position, item_id, page, body) VALUES (?, ?, ?, ?, ?)",
                [.text(key), .int(position), .text(item.id), .int(pageIndex), .blob(item.body)])
            if changed == 0 { position -= 1 } else { added += 1 }
        }
        try connection.run(
            """
            UPDATE lists SET next_cursor = ?, complete = ?, page_count = ?, revision = coalesce(?, revision)
            WHERE list_key = ?
            """,
            [
                .text(page.nextCursor), .int(page.nextCursor == nil ? 1 : 0), .int(pageIndex + 1),
                .text(page.revision), .text(key),
            ])
        note(.list(key))
        return added
    }

    /// Replaces the body of one stored item in place (a live update), keeping its position.
    /// Returns whether the item was stored.
    @discardableResult
    public func updateItem(_ id: String, in key: String, body: Data) throws(StoreError) -> Bool {
        let changed = try connection.run(
            "UPDATE list_items SET body = ? WHERE list_key = ? AND item_id = ?", [.blob(body), .text(key), .text(id)])
        if changed > 0 { note(.list(key)) }
        return changed > 0
    }

    /// Appends one item at the end of a stored list unless its id is there (a live insert).
    /// Returns whether it was added.
    @discardableResult
    public func appendItem(_ id: String, to key: String, body: Data) throws(StoreError) -> Bool {
        if try listState(key) == nil {
            try connection.run("INSERT INTO lists(list_key, fetched_at) VALUES (?, ?)", [.text(key), .date(now)])
        }
        let changed = try connection.run(
            """
            INSERT OR IGNORE INTO list_items(list_key, position, item_id, page, body)
            SELECT ?, coalesce(max(position), -1) + 1, ?, coalesce(max(page), 0), ? FROM list_items WHERE list_key = ?
            """, [.text(key), .text(id), .blob(body), .text(key)])
        if changed > 0 { note(.list(key)) }
        return changed > 0
    }

    /// The stored state of list `key`, or `nil` if it is not stored.
    public func listState(_ key: String) throws(StoreError) -> ListState? {
        guard
            let row = try connection.first(
                """
                SELECT l.*, (SELECT count(*) FROM list_items i WHERE i.list_key = l.list_key) AS item_count
                FROM lists l WHERE list_key = ?
                """, [.text(key)])
        else { return nil }
        return ListState(
            key: key, nextCursor: try row.optionalText("next_cursor"), isComplete: try row.int("complete") == 1,
            pageCount: try row.int("page_count"), itemCount: try row.int("item_count"),
            revision: try row.optionalText("revision"), fetchedAt: try row.date("fetched_at"),
            leftAt: try row.optionalDate("left_at"))
    }

    /// Up to `limit` items of list `key` from `offset`, in order. Reads only those rows (an index
    /// on the position), so the cost does not grow with the list's length.
    public func items(_ key: String, offset: Int = 0, limit: Int = .max) throws(StoreError) -> [ListItem] {
        var items: [ListItem] = []
        try connection.forEachRow(
            "SELECT item_id, position, page, body FROM list_items WHERE list_key = ? ORDER BY position LIMIT ? OFFSET ?",
            [.text(key), .int(min(limit, Int(Int64.max))), .int(offset)]
        ) { row throws(StoreError) in
            items.append(
                ListItem(
                    id: try row.text("item_id"), position: try row.int("position"), page: try row.int("page"),
                    body: try row.blob("body")))
            return true
        }
        return items
    }

    /// Forgets list `key` and its items.
    public func removeList(_ key: String) throws(StoreError) {
        try connection.run("DELETE FROM lists WHERE list_key = ?", [.text(key)])
        note(.list(key))
    }

    // MARK: Recent lists

    /// Records that the person left list `key` now, and forgets the lists left longest ago beyond
    /// `capacity` (Mainworthy keeps 40). Returns the keys forgotten.
    @discardableResult
    public func leaveList(_ key: String, capacity: Int) throws(StoreError) -> [String] {
        try connection.run("UPDATE lists SET left_at = ? WHERE list_key = ?", [.date(now), .text(key)])
        let evicted = try connection.query(
            "SELECT list_key FROM lists WHERE left_at IS NOT NULL ORDER BY left_at DESC, rowid DESC LIMIT -1 OFFSET ?",
            [.int(max(0, capacity))]
        ).map { row throws(StoreError) in try row.text("list_key") }
        for old in evicted { try removeList(old) }
        return evicted
    }

    /// The recent lists, most recently left first.
    public func recentLists() throws(StoreError) -> [String] {
        try connection.query("SELECT list_key FROM lists WHERE left_at IS NOT NULL ORDER BY left_at DESC, rowid DESC")
            .map { row throws(StoreError) in try row.text("list_key") }
    }

    // MARK: Drafts

    /// Saves (or replaces) the draft for `subject`.
    public func saveDraft(_ subject: String, body: Data) throws(StoreError) {
        try connection.run(
            "INSERT OR REPLACE INTO drafts(subject, body, updated_at) VALUES (?, ?, ?)",
            [.text(subject), .blob(body), .date(now)])
        note(.draft(subject))
    }

    /// The draft for `subject`, if any.
    public func draft(_ subject: String) throws(StoreError) -> Draft? {
        try connection.first("SELECT * FROM drafts WHERE subject = ?", [.text(subject)]).map { row throws(StoreError) in
            Draft(subject: try row.text("subject"), body: try row.blob("body"), updatedAt: try row.date("updated_at"))
        }
    }

    /// Every draft, newest first.
    public func drafts() throws(StoreError) -> [Draft] {
        try connection.query("SELECT * FROM drafts ORDER BY updated_at DESC").map { row throws(StoreError) in
            Draft(subject: try row.text("subject"), body: try row.blob("body"), updatedAt: try row.date("updated_at"))
        }
    }

    /// Discards the draft for `subject`.
    public func discardDraft(_ subject: String) throws(StoreError) {
        try connection.run("DELETE FROM drafts WHERE subject = ?", [.text(subject)])
        note(.draft(subject))
    }

    // MARK: Outbox

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

    // MARK: Documents

    /// Stores an app document under `name` (merge state with tombstones, settings).
    public func putDocument(_ name: String, body: Data) throws(StoreError) {
        try connection.run(
            "INSERT OR REPLACE INTO documents(name, body, updated_at) VALUES (?, ?, ?)",
            [.text(name), .blob(body), .date(now)])
        note(.document(name))
    }

    /// The document stored under `name`, if any.
    public func document(_ name: String) throws(StoreError) -> Data? {
        try connection.first("SELECT body FROM documents WHERE name = ?", [.text(name)])?.blob("body")
    }

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
