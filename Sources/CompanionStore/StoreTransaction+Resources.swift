#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Cached resources inside a store transaction.
extension StoreTransaction {
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
}
