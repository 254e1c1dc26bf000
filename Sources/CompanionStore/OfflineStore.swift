import CompanionCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a store keeps its database.
public enum StoreLocation: Sendable, Hashable {
    /// A file in this folder, named after the scope (`AccountKey.fileName`).
    case directory(URL)
    /// In memory only: gone when the process ends (Mainworthy keeps drafts and recent lists this way,
    /// M-DRAFT-3).
    case memory
}

/// The offline store of one server and account: cached replies, snapshot groups, paged and recent
/// lists, drafts and the outbox, in one SQLite database.
///
/// Rule: one database per server and account (`AccountKey`), so nothing leaks between accounts;
/// every change runs in a transaction (all or nothing) and is published on `changes()` after it
/// commits. Time comes from the injected clock, so ages are testable.
public final class OfflineStore: Sendable {
    /// Whose data this is.
    public let scope: AccountKey
    /// Where it lives.
    public let location: StoreLocation
    /// The database.
    public let database: Database
    /// The time source for fetch times, draft times and ages.
    public let clock: any WallClock
    private let feed = ChangeFeed()

    /// Opens (creating if needed) the store for `scope` at `location`, applying migrations.
    public init(scope: AccountKey, location: StoreLocation, clock: any WallClock = SystemWallClock())
        throws(StoreError)
    {
        self.scope = scope
        self.location = location
        self.clock = clock
        let path: String
        switch location {
        case .memory:
            path = ":memory:"
        case .directory(let folder):
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .openFailed(path: folder.path, code: 0, message: "the folder could not be created")
            }
            path = folder.appendingPathComponent(scope.storageName + ".sqlite").path
        }
        self.database = try Database(path: path, migrations: Schema.migrations)
    }

    /// The database file, for a file store.
    public var fileURL: URL? {
        guard case .directory(let folder) = location else { return nil }
        return folder.appendingPathComponent(scope.storageName + ".sqlite")
    }

    /// Runs `body` in one write transaction and publishes its changes after the commit.
    public func write<T: Sendable>(_ body: @escaping @Sendable (StoreTransaction) throws(StoreError) -> T)
        async throws(StoreError) -> T
    {
        let now = clock.now()
        let (value, changes) = try await database.write { connection throws(StoreError) in
            let transaction = StoreTransaction(connection: connection, now: now)
            let value = try body(transaction)
            return (value, transaction.changes)
        }
        feed.publish(changes)
        return value
    }

    /// Runs `body` in one read transaction: everything it reads is from one consistent state.
    public func read<T: Sendable>(_ body: @escaping @Sendable (StoreTransaction) throws(StoreError) -> T)
        async throws(StoreError) -> T
    {
        let now = clock.now()
        return try await database.read { connection throws(StoreError) in
            try body(StoreTransaction(connection: connection, now: now))
        }
    }

    /// Every committed change, as it happens.
    public func changes() -> AsyncStream<StoreChange> { feed.subscribe() }

    /// The number of pending outbox entries now and after every outbox change.
    public func pendingCounts() async throws(StoreError) -> AsyncStream<Int> {
        let changes = feed.subscribe()
        let current = try await read { transaction throws(StoreError) in try transaction.pendingCount() }
        return AsyncStream { continuation in
            continuation.yield(current)
            let task = Task {
                for await change in changes {
                    if case .outbox(let pending) = change { continuation.yield(pending) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Conveniences

    /// The cached resource for `key`.
    public func resource(_ key: String) async throws(StoreError) -> CachedResource? {
        try await read { transaction throws(StoreError) in try transaction.resource(key) }
    }

    /// Stores a cached resource.
    public func put(_ resource: CachedResource) async throws(StoreError) {
        try await write { transaction throws(StoreError) in try transaction.put(resource) }
    }

    /// Snapshot group `name`: the whole of one write, never a mix of two.
    public func group(_ name: String) async throws(StoreError) -> SnapshotGroup? {
        try await read { transaction throws(StoreError) in try transaction.group(name) }
    }

    /// Writes snapshot group `name` in one transaction.
    public func writeGroup(_ name: String, fetchedAt: Date, members: [String: CachedResource])
        async throws(StoreError)
    {
        try await write { transaction throws(StoreError) in
            try transaction.writeGroup(name, fetchedAt: fetchedAt, members: members)
        }
    }

    /// List `key`'s state and its first `limit` items, read together.
    public func list(_ key: String, limit: Int = .max) async throws(StoreError) -> (ListState, [ListItem])? {
        try await read { transaction throws(StoreError) in
            guard let state = try transaction.listState(key) else { return nil }
            return (state, try transaction.items(key, limit: limit))
        }
    }

    /// Saves a draft.
    public func saveDraft(_ subject: String, body: Data) async throws(StoreError) {
        try await write { transaction throws(StoreError) in try transaction.saveDraft(subject, body: body) }
    }

    /// The draft for `subject`.
    public func draft(_ subject: String) async throws(StoreError) -> Draft? {
        try await read { transaction throws(StoreError) in try transaction.draft(subject) }
    }

    /// The outbox in queue order.
    public func outbox() async throws(StoreError) -> [OutboxEntry] {
        try await read { transaction throws(StoreError) in try transaction.outbox() }
    }

    /// Deletes every cached resource, group and list; drafts and the outbox are kept unless
    /// `everything` is set (they hold what the person typed).
    public func clearCache(everything: Bool = false) async throws(StoreError) {
        try await write { transaction throws(StoreError) in
            try transaction.connection.execute(
                "DELETE FROM resources; DELETE FROM snapshot_groups; DELETE FROM list_items; DELETE FROM lists;"
                    + (everything ? " DELETE FROM drafts; DELETE FROM outbox; DELETE FROM documents;" : ""))
            transaction.note(.cleared)
        }
    }

    /// `PRAGMA integrity_check`: "ok", or what is damaged.
    public func integrityCheck() async throws(StoreError) -> String {
        try await database.query("PRAGMA integrity_check").compactMap { try? $0.text("integrity_check") }
            .joined(separator: "; ")
    }

    /// Deletes the store's files (for a sign-out that wipes, C-OFF-5). The store must not be used after.
    public static func deleteFiles(scope: AccountKey, in folder: URL) throws(StoreError) {
        for suffix in ["", "-wal", "-shm"] {
            let url = folder.appendingPathComponent(scope.storageName + ".sqlite" + suffix)
            if FileManager.default.fileExists(atPath: url.path) {
                do { try FileManager.default.removeItem(at: url) } catch {
                    throw .invalidArgument("\(url.lastPathComponent) could not be deleted")
                }
            }
        }
    }
}
