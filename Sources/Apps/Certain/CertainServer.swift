import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// A value read from the offline store, with the time it was fetched.
public struct Stored<Value: Sendable>: Sendable {
    /// The value.
    public let value: Value
    /// When the server sent it.
    public let fetchedAt: Date
}

/// One signed-in Certain account on one server: the client that carries its device token, its offline data
/// and the lookups every screen resolves names from.
///
/// Rules:
/// - Lookups are loaded at sign-in, on pull-to-refresh of the overview, and once (single-flight, shared by
///   every screen that asks) when a reply names an id they do not know (C-LOOK-1, C-LOOK-4, O-8).
/// - Offline data belongs to this server and user only (C-OFF-4); a revoked token (401) wipes it (C-OFF-5:
///   Certain's policy, because the token is a full access and revocation is the answer to a lost phone).
public actor CertainConnection {
    /// The client; its middleware carries the device token.
    public nonisolated let client: Client
    /// The language of texts and of the server's sentences.
    public nonisolated let language: Language
    /// The texts in `language`.
    public nonisolated let texts: Texts
    /// The time source for fetch times and ages.
    public nonisolated let clock: any WallClock

    private var store: OfflineStore?
    private var lookupsValue: Lookups?
    private var reloading: Task<Lookups, any Error>?
    private var attemptedUnknown = Set<String>()
    /// Whether the server revoked the token (and the offline data is gone).
    public private(set) var isRevoked = false

    /// A connection through `client` (which must carry the credential) keeping offline data in `store`
    /// (`nil`: none).
    public init(client: Client, store: OfflineStore?, language: Language) {
        self.client = client
        self.store = store
        self.language = language
        self.texts = Texts(language)
        self.clock = client.configuration.clock
    }

    /// Sends `request`; a refusal that ends the sign-in (Certain's revocation rule: 401, and a 403 or 410 that
    /// is not a mere permission refusal) means the token no longer works: the offline data is wiped (C-OFF-5).
    public func fetch<Response>(_ request: Request<Response>) async throws(HTTPError) -> Response {
        do {
            return try await client.send(request)
        } catch {
            if Self.endsSignIn(error) { await revoked() }
            throw error
        }
    }

    /// Whether `error` is the server ending this sign-in.
    static func endsSignIn(_ error: HTTPError) -> Bool {
        guard let status = error.statusCode else { return false }
        return RevocationRule.certain.ends(status: status, envelope: error.envelope)
    }

    // MARK: Lookups

    /// The lookups as loaded (empty before the first load; then from the offline store when offline).
    public var lookups: Lookups { lookupsValue ?? Lookups() }

    /// Loads categories, tags and accounts together, single-flight: callers that arrive while a load runs
    /// share it (C-LOOK-1, C-LOOK-4). Stored offline on success (C-OFF-2).
    @discardableResult
    public func reloadLookups() async throws -> Lookups {
        if let reloading { return try await reloading.value }
        let task = Task { [client] () throws -> Lookups in
            async let accounts = client.send(CertainAPI.accounts)
            async let categories = client.send(CertainAPI.categories)
            async let tags = client.send(CertainAPI.tags)
            return Lookups(accounts: try await accounts, categories: try await categories, tags: try await tags)
        }
        reloading = task
        defer { reloading = nil }
        do {
            let value = try await task.value
            lookupsValue = value
            try? await save("lookups", value)
            return value
        } catch let error as HTTPError {
            if Self.endsSignIn(error) { await revoked() }
            if lookupsValue == nil, let stored: Stored<Lookups> = await stored("lookups") {
                lookupsValue = stored.value
            }
            throw error
        }
    }

    /// Makes sure the lookups know the given ids: an unknown id triggers one reload, shared by every caller
    /// (single-flight) and never repeated for an id that stays unknown (C-LOOK-4). Returns the lookups.
    public func resolving(accounts: [Int] = [], categories: [Int] = [], tags: [Int] = []) async -> Lookups {
        if let reloading { _ = try? await reloading.value }  // a reload under way may already know them
        await loadStoredLookups()
        let missing = lookups.unknown(accounts: accounts, categories: categories, tags: tags)
            .subtracting(attemptedUnknown)
        guard !missing.isEmpty else { return lookups }
        attemptedUnknown.formUnion(missing)
        _ = try? await reloadLookups()
        return lookups
    }

    /// Replaces the accounts lookup with a fresher reply (the overview's accounts, C-OVER-6).
    public func updateAccounts(_ accounts: [Account]) async {
        await loadStoredLookups()
        var value = lookups
        value.accounts = accounts
        lookupsValue = value
        try? await save("lookups", value)
    }

    /// Before the first load in this process: the lookups kept offline, if any.
    private func loadStoredLookups() async {
        if lookupsValue == nil, let stored: Stored<Lookups> = await stored("lookups") { lookupsValue = stored.value }
    }

    // MARK: Offline data

    /// Stores `value` under `key` with the fetch time `fetchedAt` (now by default).
    public func save<Value: Encodable & Sendable>(_ key: String, _ value: Value, fetchedAt: Date? = nil) async throws {
        guard let store else { return }
        let body = try JSONEncoder().encode(value)
        try await store.put(CachedResource(key: "certain:" + key, body: body, fetchedAt: fetchedAt ?? clock.now()))
    }

    /// The value stored under `key`, with its fetch time; `nil` when there is none or it does not decode.
    public func stored<Value: Decodable & Sendable>(_ key: String) async -> Stored<Value>? {
        guard let store, let resource = try? await store.resource("certain:" + key),
            let value = try? JSONDecoder().decode(Value.self, from: resource.body)
        else { return nil }
        return Stored(value: value, fetchedAt: resource.fetchedAt)
    }

    /// Deletes this server and user's offline data, in memory and on disk (C-OFF-5).
    public func wipeOfflineData() async {
        guard let store else { return }
        self.store = nil
        lookupsValue = nil
        try? await store.clearCache(everything: true)
        if case .directory(let folder) = store.location {
            try? OfflineStore.deleteFiles(scope: store.scope, in: folder)
        }
    }

    private func revoked() async {
        isRevoked = true
        await wipeOfflineData()
    }
}
