import CompanionCore
import CompanionHTTP
import Foundation

/// A native, read-only sgit vault reader.
///
/// - `pull()` fetches the ref (never cached), then only objects not already in the local cache, each checked
///   against its content address before it is decrypted or cached. Pack vaults are read through their zips.
/// - `files()`, `read(_:)` and `history(limit:)` work from the cache after a pull, offline.
///
/// All traffic is recorded in the `VaultTrafficLog`; no key ever reaches it.
public actor SGitVault {
    /// The key's vault id.
    public nonisolated let vaultID: String
    /// How many objects are fetched at once.
    public let maxConcurrentFetches: Int

    let key: VaultKey
    let source: any VaultSource
    let cache: VaultCache
    let log: VaultTrafficLog
    var state: VaultCache.State
    var treeMemo: [String: [VaultFormat.TreeEntryRecord]] = [:]
    var filesMemo: (head: String, files: [VaultFile], index: [String: VaultFile])?

    /// Opens a vault on `source`, caching under `cache` (one folder per vault).
    public init(
        key: VaultKey, source: any VaultSource, cache: URL, log: VaultTrafficLog, maxConcurrentFetches: Int = 8
    ) throws(VaultError) {
        self.key = key
        self.vaultID = key.vaultID
        self.source = source
        self.cache = try VaultCache(root: cache)
        self.log = log
        self.maxConcurrentFetches = max(1, maxConcurrentFetches)
        var state = try self.cache.loadState(vaultID: key.vaultID)
        if !self.cache.droppedPacks.isEmpty {
            // Their objects are gone: no cached history is known whole any more, and cached trees may lack blobs.
            state.complete = []
            state.packs = []
            state.rewalk = true
            try self.cache.saveState(state)
        }
        self.state = state
    }

    /// Opens a vault on an SG/Send server (the seed's initializer, with the app's client added). Every object is
    /// read by a plain `GET /api/vault/read/<vault_id>/<file id>` without credentials, never through the batch
    /// route (P-VAULT-2), and through `client`, the app's own client for `address.server`, so each request is one
    /// exchange in the app's journal (its Network panel) as well as one event in `log` (P-OPEN-24).
    ///
    /// Throws `malformedKey(.invalidVaultID)` when the key is for another vault, and `transport` when `client` is
    /// for another origin than `address.server` (its requests would go elsewhere).
    public init(
        address: VaultAddress, readKey: VaultKey, cache: URL, log: VaultTrafficLog, client: Client
    ) throws(VaultError) {
        guard address.vaultId == readKey.vaultID else { throw .malformedKey(.invalidVaultID) }
        let origin = { (url: URL) in [url.scheme?.lowercased(), url.host?.lowercased(), url.port.map(String.init)] }
        guard origin(client.baseURL) == origin(address.server) else {
            throw .transport(path: "", reason: "The client is for another server than the vault's address.")
        }
        try self.init(key: readKey, source: HTTPVaultSource(client: client, batchSize: 1), cache: cache, log: log)
    }

    /// The head commit id of the last successful pull, if any.
    public var head: String? { state.lastRef.flatMap { state.heads[$0] } }

    /// The ids of every object in the local cache: what pulls and reads stored, for tools that inspect the cache.
    public nonisolated func cachedObjectIDs() -> Set<String> { cache.objectIDs() }

    /// The stored (still encrypted) bytes of the cached object `id`, checked against its content address; `nil`
    /// when the cache lacks it or its copy fails the check (that copy is then dropped, as on `read`).
    public nonisolated func cachedObject(_ id: String) -> Data? {
        guard VaultFormat.isObjectID(id), let stored = cache.object(id) else { return nil }
        guard (try? VaultFormat.verifyContentAddress(id: id, stored: stored)) != nil else {
            cache.discard(id)
            return nil
        }
        return stored
    }

}
