#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Lists and pages inside a store transaction.
extension StoreTransaction {
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

    /// Removes one stored item (it left the list), keeping the others' order. Returns whether it was stored.
    @discardableResult
    public func removeItem(_ id: String, from key: String) throws(StoreError) -> Bool {
        let changed = try connection.run(
            "DELETE FROM list_items WHERE list_key = ? AND item_id = ?", [.text(key), .text(id)])
        if changed > 0 { note(.list(key)) }
        return changed > 0
    }

    /// The keys of the stored lists whose key starts with `prefix`, in key order.
    public func listKeys(prefix: String) throws(StoreError) -> [String] {
        try connection.query(
            "SELECT list_key FROM lists WHERE substr(list_key, 1, length(?1)) = ?1 ORDER BY list_key", [.text(prefix)]
        ).map { row throws(StoreError) in try row.text("list_key") }
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
        try forEachItem(key, offset: offset, limit: limit) { item throws(StoreError) in
            items.append(item)
            return true
        }
        return items
    }

    /// Calls `body` with up to `limit` items of list `key` from `offset`, in order, one row at a time,
    /// until it returns `false`. Only the current row is held: a caller that turns each body into its
    /// own value (decoding it) never keeps every raw body and every value alive at once, which is
    /// what a long list would cost with ``items(_:offset:limit:)``.
    public func forEachItem(
        _ key: String, offset: Int = 0, limit: Int = .max, _ body: (ListItem) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try connection.forEachRow(
            "SELECT item_id, position, page, body FROM list_items WHERE list_key = ? ORDER BY position LIMIT ? OFFSET ?",
            [.text(key), .int(min(limit, Int(Int64.max))), .int(offset)]
        ) { row throws(StoreError) in
            try body(
                ListItem(
                    id: try row.text("item_id"), position: try row.int("position"), page: try row.int("page"),
                    body: try row.blob("body")))
        }
    }

    /// Up to `limit` items of list `key` from `offset`, each body decoded as `Value` as it is read, so
    /// peak memory is the decoded values rather than the values plus every raw body. A body that does
    /// not decode throws `StoreError.encoding` naming the item.
    public func decodedItems<Value: Decodable>(
        _ key: String, as type: Value.Type, decoder: JSONDecoder = JSONDecoder(), offset: Int = 0,
        limit: Int = .max
    ) throws(StoreError) -> [Value] {
        var values: [Value] = []
        try forEachItem(key, offset: offset, limit: limit) { item throws(StoreError) in
            do {
                values.append(try decoder.decode(Value.self, from: item.body))
            } catch {
                throw .encoding(
                    "The stored item \(item.id) of list \(key) could not be read as \(Value.self): \(error)")
            }
            return true
        }
        return values
    }

    /// Forgets list `key` and its items.
    public func removeList(_ key: String) throws(StoreError) {
        try connection.run("DELETE FROM lists WHERE list_key = ?", [.text(key)])
        note(.list(key))
    }
}
