import CompanionCore
import Foundation

/// Keys in memory, with a switch that makes one unreadable as a Face ID re-enrolment would, and a count of the
/// values read (so a test can see that listing keys reads none).
public final class InMemoryKeyStore: KeyStore {
    private struct Entry {
        var secret: String
        var protection: KeyProtection
        var readable = true
    }

    private let entriesByName = Locked<[StoredKeyName: Entry]>([:])
    private let reads = Locked(0)

    /// An empty store.
    public init() {}

    /// "memory".
    public var location: String { "memory" }

    /// How many times a value was read (`load`), for tests.
    public var valueReads: Int { reads.withLock { $0 } }

    /// Stores a key.
    public func save(_ secret: String, as name: StoredKeyName, protection: KeyProtection) {
        entriesByName.withLock { $0[name] = Entry(secret: secret, protection: protection) }
    }

    /// The key, or `unavailable` after `invalidate(_:)`.
    public func load(_ name: StoredKeyName) throws(KeyStoreError) -> String? {
        reads.withLock { $0 += 1 }
        let entry = entriesByName.withLock { $0[name] }
        guard let entry else { return nil }
        guard entry.readable else { throw .unavailable(name) }
        return entry.secret
    }

    /// Removes a key.
    public func delete(_ name: StoredKeyName) {
        _ = entriesByName.withLock { $0.removeValue(forKey: name) }
    }

    /// The names, protections and availability, without reading a value.
    public func entries() -> [KeyEntry] {
        entriesByName.withLock { entries in
            entries.map { KeyEntry(name: $0.key, protection: $0.value.protection, available: $0.value.readable) }
        }.sorted { $0.name < $1.name }
    }

    /// Makes `name` unreadable while it still exists, as a Face ID re-enrolment does to a Keychain item.
    public func invalidate(_ name: StoredKeyName) {
        entriesByName.withLock { $0[name]?.readable = false }
    }
}
