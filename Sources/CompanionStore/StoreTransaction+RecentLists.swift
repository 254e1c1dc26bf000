#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Recent lists inside a store transaction.
extension StoreTransaction {
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
}
