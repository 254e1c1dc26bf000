import CompanionCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps one open store per server and account for the life of the process.
///
/// Rule: signing out closes nothing here, so the same user signing in again on the same server
/// gets the same store, with its drafts (M-DRAFT-2), even when it lives in memory only. Another
/// account or server gets a different store and sees none of it.
public actor StoreRegistry {
    private let location: StoreLocation
    private let clock: any WallClock
    private var stores: [AccountKey: OfflineStore] = [:]

    /// Creates a registry whose stores live at `location`.
    public init(location: StoreLocation, clock: any WallClock = SystemWallClock()) {
        self.location = location
        self.clock = clock
    }

    /// The store for `scope`, opened on first use.
    public func store(for scope: AccountKey) throws(StoreError) -> OfflineStore {
        if let store = stores[scope] { return store }
        let store = try OfflineStore(scope: scope, location: location, clock: clock)
        stores[scope] = store
        return store
    }

    /// Deletes the data of `scope`: the wipe-on-revocation policy an app may choose (C-OFF-5).
    ///
    /// A store still held elsewhere (a screen's server parts) is emptied first, drafts and outbox included, so
    /// it shows nothing that was deleted; then the registry forgets it and a file store's files are removed.
    /// The next `store(for:)` opens a new, empty one.
    public func wipe(_ scope: AccountKey) async throws(StoreError) {
        if let open = stores.removeValue(forKey: scope) { try await open.clearCache(everything: true) }
        if case .directory(let folder) = location { try OfflineStore.deleteFiles(scope: scope, in: folder) }
    }

    /// Where this registry's stores live.
    public var storeLocation: StoreLocation { location }
}
