import CompanionCore
import Foundation

/// Where stored credentials live: the Keychain on Apple platforms, an encrypted file per account on
/// Linux, memory in tests.
///
/// Rules: one credential per account (saving replaces); a store never holds a password (the type it
/// stores has no place for one); reading a damaged entry is a typed error that leaves other entries alone.
public protocol SecretStore: Sendable {
    /// The credential stored for `account`, or `nil` when there is none.
    func load(_ account: AccountKey) throws(SecretStoreError) -> StoredCredential?
    /// Stores `credential` under its account, replacing what was there, atomically.
    func save(_ credential: StoredCredential) throws(SecretStoreError)
    /// Removes the credential for `account`; removing a missing one is not an error.
    func delete(_ account: AccountKey) throws(SecretStoreError)
    /// The accounts that have a stored credential, sorted.
    func accounts() throws(SecretStoreError) -> [AccountKey]
    /// The record stored under `key` (a server's network settings, a client identity), or `nil`.
    func loadRecord(_ key: SecretRecordKey) throws(SecretStoreError) -> Data?
    /// Stores `data` under `key`, replacing what was there, atomically.
    func saveRecord(_ data: Data, for key: SecretRecordKey) throws(SecretStoreError)
    /// Removes the record under `key`; removing a missing one is not an error.
    func deleteRecord(_ key: SecretRecordKey) throws(SecretStoreError)
    /// The keys of the stored records of `kind`, sorted.
    func recordKeys(_ kind: SecretRecordKey.Kind) throws(SecretStoreError) -> [SecretRecordKey]
}

extension SecretStore {
    /// A store that keeps no records has none.
    public func loadRecord(_ key: SecretRecordKey) throws(SecretStoreError) -> Data? { nil }
    /// A store that keeps no records refuses to save one.
    public func saveRecord(_ data: Data, for key: SecretRecordKey) throws(SecretStoreError) {
        throw .unavailable(detail: "this store keeps no \(key.kind.rawValue) records")
    }
    /// A store that keeps no records has nothing to remove.
    public func deleteRecord(_ key: SecretRecordKey) throws(SecretStoreError) {}
    /// A store that keeps no records lists none.
    public func recordKeys(_ kind: SecretRecordKey.Kind) throws(SecretStoreError) -> [SecretRecordKey] { [] }
}

/// Where a secret-store record that is not a credential is filed: a server's network settings (by server key)
/// or a client identity (by its id). Kept beside the credentials, sealed the same way.
public struct SecretRecordKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// What a record holds.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// One server's `ServerNetwork` (trust, identity assignment, proxy credential, internal address), by
        /// server key.
        case network
        /// One `ClientIdentity`, by its id.
        case identity
        /// One account's registration of this device with its server (webhook ids and keys), by account.
        case device
    }

    /// What it holds.
    public var kind: Kind
    /// The server key or identity id.
    public var name: String

    /// Creates a key.
    public init(_ kind: Kind, _ name: String) {
        self.kind = kind
        self.name = name
    }

    /// The text the record is sealed against (its authenticated data).
    public var rawValue: String { "record \(kind.rawValue) \(name)" }

    /// The storage name (a hash, as for accounts). A server key always has a scheme, so `record:<kind>` can
    /// never be an account's server key and the two name spaces never meet.
    public var storageName: String { AccountKey(serverKey: "record:\(kind.rawValue)", userID: name).storageName }

    /// Kind and name.
    public var description: String { "\(kind.rawValue) \(name)" }

    /// Orders by kind, then name.
    public static func < (lhs: SecretRecordKey, rhs: SecretRecordKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why a secret store failed.
public enum SecretStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store could not be read or written (`detail` names the operation, never a secret).
    case unavailable(detail: String)
    /// An entry exists but could not be decrypted or decoded; it was left in place.
    case damaged(account: String)
    /// The key file is missing or has the wrong size, so nothing can be decrypted.
    case badKey(detail: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .unavailable(let detail):
            return "The secure storage could not be used (\(detail)). Check the folder's permissions and free space."
        case .damaged(let account):
            return "The stored sign-in for \(account) is damaged and was not used. Sign in again to replace it."
        case .badKey(let detail):
            return "The key of the secure storage is unusable (\(detail)). Sign in again to start a new store."
        }
    }
}

/// A store in memory, for tests and previews. Thread-safe.
public final class InMemorySecretStore: SecretStore {
    private let entries = Locked<[AccountKey: StoredCredential]>([:])
    private let records = Locked<[SecretRecordKey: Data]>([:])

    /// Creates an empty store.
    public init() {}

    /// The stored credential for `account`.
    public func load(_ account: AccountKey) -> StoredCredential? { entries.withLock { $0[account] } }

    /// Stores `credential`, replacing the account's previous one.
    public func save(_ credential: StoredCredential) { entries.withLock { $0[credential.account] = credential } }

    /// Removes the account's credential.
    public func delete(_ account: AccountKey) { _ = entries.withLock { $0.removeValue(forKey: account) } }

    /// The accounts with a credential.
    public func accounts() -> [AccountKey] { entries.withLock { $0.keys.sorted() } }

    /// The record under `key`.
    public func loadRecord(_ key: SecretRecordKey) -> Data? { records.withLock { $0[key] } }

    /// Stores a record.
    public func saveRecord(_ data: Data, for key: SecretRecordKey) { records.withLock { $0[key] = data } }

    /// Removes a record.
    public func deleteRecord(_ key: SecretRecordKey) { _ = records.withLock { $0.removeValue(forKey: key) } }

    /// The record keys of `kind`.
    public func recordKeys(_ kind: SecretRecordKey.Kind) -> [SecretRecordKey] {
        records.withLock { $0.keys.filter { $0.kind == kind }.sorted() }
    }
}
