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
}
