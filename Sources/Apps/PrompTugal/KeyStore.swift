import Foundation

/// One key a key store holds, as its listing says it: never the value.
public struct KeyEntry: Sendable, Hashable {
    /// Which key.
    public let name: StoredKeyName
    /// How it is protected.
    public let protection: KeyProtection
    /// Whether it can still be read: `false` when the store knows, without reading the value, that it cannot
    /// (a Face ID re-enrolment invalidated it, a damaged file).
    public let available: Bool

    /// Creates an entry.
    public init(name: StoredKeyName, protection: KeyProtection, available: Bool = true) {
        self.name = name
        self.protection = protection
        self.available = available
    }
}

/// Where the app keeps keys: the Keychain on device, a 0600 file for the terminal, memory in tests.
///
/// Rules:
/// - A key that exists but cannot be read back (Face ID re-enrolment invalidates `.biometryCurrentSet` items) is
///   `KeyStoreError.unavailable`, never `nil`: the app says "import it again" instead of showing an empty vault
///   (P-KEY-2).
/// - Listing the keys (`entries()`) never reads a value (P-KEY-1, P-DEBUG-6): the Keys panel shows which keys
///   exist from their attributes alone, so a Face ID item asks for Face ID only when the key is used, never once
///   per key on each refresh of the panel. (On device: a Keychain attributes query without `kSecReturnData`.)
public protocol KeyStore: Sendable {
    /// Where keys are kept, as the Keys panel says it ("Keychain", "file", "memory").
    var location: String { get }
    /// Stores `secret` under `name` with `protection`.
    func save(_ secret: String, as name: StoredKeyName, protection: KeyProtection) throws(KeyStoreError)
    /// The secret under `name`, `nil` when none is stored.
    func load(_ name: StoredKeyName) throws(KeyStoreError) -> String?
    /// Removes the secret under `name`.
    func delete(_ name: StoredKeyName) throws(KeyStoreError)
    /// The stored keys with their protection and availability, without reading any value.
    func entries() throws(KeyStoreError) -> [KeyEntry]
}

/// Why a key could not be stored or read.
public enum KeyStoreError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The key exists but cannot be read back.
    case unavailable(StoredKeyName)
    /// The store failed.
    case failed(String)

    /// A sentence a person can act on; never a key's value.
    public var description: String {
        switch self {
        case .unavailable(let name):
            return "The \(name) is unavailable (for example after Face ID was set up again). Import it again."
        case .failed(let reason): return "The key store failed: \(reason)"
        }
    }

    /// The same sentence.
    public var errorDescription: String? { description }
}

extension KeyStore {
    /// Stores the OpenRouter key the person entered (P-SECRET-1): trimmed of the spaces and line breaks a paste
    /// brings, under `.openRouter`, this device only, behind Face ID exactly when the person chose it
    /// (`biometric`): the choice reaches the store's request (the Keychain item's access control on device). An
    /// empty key is refused and nothing is stored.
    public func saveOpenRouterKey(_ key: String, biometric: Bool) throws(KeyStoreError) {
        let trimmed = key.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .failed("the OpenRouter key is empty; nothing was stored") }
        try save(trimmed, as: .openRouter, protection: .openRouter(biometric: biometric))
    }
}
