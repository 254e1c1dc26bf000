#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Snapshot groups inside a store transaction.
extension StoreTransaction {
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
}
