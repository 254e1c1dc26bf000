import CompanionApp
import CompanionHTTP
import CompanionSync
import Foundation

/// The lookups of one signed-in account, held in app state and shared by every screen (C-LOOK-1, C-LOOK-4).
///
/// Rules:
/// - Categories, tags and accounts are one snapshot group (`snapshot`), read and stored through the kit's
///   `SnapshotSync`, all or nothing, with one fetch time; offline they come back from the store (C-OFF-2).
/// - They are loaded at sign-in, on pull-to-refresh of the overview, and once when a reply names an id they
///   do not know (O-8). That reload is single-flight: screens that meet unknown ids at the same time share
///   one reload, and an id still unknown after a reload that succeeded never causes another (it shows the
///   neutral placeholder). A reload that failed marks nothing: the next read that names the ids tries again.
/// - The overview's accounts reply replaces the accounts lookup (C-OVER-6).
/// - A refusal that ends the sign-in forgets them (the offline copy is wiped with the account's data).
public actor CertainLookups {
    /// The snapshot group of the three lookups.
    public static let snapshot = Snapshot<Lookups>(
        "lookups",
        members: ["accounts": CertainAPI.accounts, "categories": CertainAPI.categories, "tags": CertainAPI.tags]
    ) { members throws(HTTPError) in
        Lookups(
            accounts: try members.value(CertainAPI.accounts), categories: try members.value(CertainAPI.categories),
            tags: try members.value(CertainAPI.tags))
    }

    private let bundle: ServerBundle
    private var value: Lookups?
    private var fetchedAt: Date?
    private var reloading: Task<Loaded<Lookups>, any Error>?
    private var attempted = Set<String>()
    /// How many reloads succeeded in this process: a caller that waited while one succeeded does not start another.
    private var successfulReloads = 0
    /// When the last reload that succeeded was fetched: ids read from the server before then, and still unknown,
    /// were left unknown by it.
    private var reloadedAt: Date?

    /// The lookups of `bundle`'s account.
    public init(bundle: ServerBundle) {
        self.bundle = bundle
    }

    /// The lookups as known now: loaded in this process, else the stored copy, else empty.
    public var current: Lookups {
        get async {
            await loadStored()
            return value ?? Lookups()
        }
    }

    /// When the lookups shown were fetched; `nil` before any load.
    public var time: Date? {
        get async {
            await loadStored()
            return fetchedAt
        }
    }

    /// Loads categories, tags and accounts together and stores them as one group; callers that arrive while a
    /// load runs share it. A failure keeps what was known (the stored copy when nothing was).
    @discardableResult
    public func reload() async throws -> Lookups {
        if let reloading { return try await reloading.value.value }
        let bundle = self.bundle
        let task = Task { () throws -> Loaded<Lookups> in
            var latest: Loaded<Lookups>?
            for try await loaded in bundle.snapshots.load(Self.snapshot, policy: .fresh) { latest = loaded }
            guard let latest else { throw SyncError.notCached(key: Self.snapshot.name) }
            return latest
        }
        reloading = task
        defer { reloading = nil }
        do {
            let loaded = try await task.value
            value = loaded.value
            fetchedAt = loaded.fetchedAt
            reloadedAt = loaded.fetchedAt
            successfulReloads += 1
            return loaded.value
        } catch {
            if let failure = SyncError.httpFailure(in: error), bundle.endsSignIn(failure) {
                forget()
            } else {
                await loadStored()
            }
            throw error
        }
    }

    /// The lookups, made sure to know the given ids: an unknown id triggers one reload, shared by every caller
    /// and never repeated for an id that a successful reload left unknown (C-LOOK-4). `readAt` is when the ids
    /// were read from the server (a screen's `fetchedAt`): a reload that succeeded with a reply fetched after that
    /// left them unknown, so they show the placeholder and cause no reload of their own, however late this call
    /// comes (a screen whose page arrived before another screen's reload ended, and asks after it).
    public func resolving(
        accounts: [Int] = [], categories: [Int] = [], tags: [Int] = [], readAt: Date? = nil
    ) async -> Lookups {
        let seen = successfulReloads
        if let reloading { _ = try? await reloading.value }  // a reload under way may already know them
        await loadStored()
        let known = value ?? Lookups()
        let missing = known.unknown(accounts: accounts, categories: categories, tags: tags).subtracting(attempted)
        guard !missing.isEmpty else { return known }
        attempted.formUnion(missing)
        // A reload that succeeded while this call waited (another screen's) read the server after these ids were
        // met: it left them unknown, so they show the placeholder and cause no reload of their own.
        guard successfulReloads == seen else { return known }
        if let readAt, let reloadedAt, reloadedAt > readAt { return known }
        do {
            _ = try await reload()
        } catch {
            // A reload that failed told nothing about these ids: a later read tries again (no "Unknown" for good).
            attempted.subtract(missing)
        }
        return value ?? Lookups()
    }

    /// Replaces the accounts lookup with a fresher reply (the overview's accounts, C-OVER-6).
    public func updateAccounts(_ accounts: [Account]) async {
        await loadStored()
        var updated = value ?? Lookups()
        updated.accounts = accounts
        value = updated
    }

    /// Forgets the lookups held in memory (the sign-in ended; the stored copy went with the account's data).
    public func forget() {
        value = nil
        fetchedAt = nil
        attempted.removeAll()
    }

    /// Before the first load in this process: the lookups kept offline, if any.
    private func loadStored() async {
        guard value == nil, let stored = try? await bundle.snapshots.stored(Self.snapshot) else { return }
        value = stored.value
        fetchedAt = stored.fetchedAt
    }
}
