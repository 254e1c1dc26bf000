import Foundation

/// One line of the Keys panel: which key, where it is kept and how it is protected; never its value.
///
/// Rule (P-DEBUG-6, P-KEY-1, P-KEY-3): the description is built from the store's listing only (the key's name,
/// protection and availability), so no value is read to show it and no part of one can reach the panel.
public struct KeyDescription: Sendable, Hashable, Identifiable {
    /// Which key.
    public let name: StoredKeyName
    /// Where it is kept.
    public let location: String
    /// How it is protected.
    public let protection: KeyProtection
    /// Whether it can be read now (false after a Face ID re-enrolment).
    public let available: Bool

    /// The key's account name.
    public var id: String { name.account }

    /// `vault read key`, `vault key (read and write)` or `OpenRouter key`.
    public var kind: String { name.kind }

    /// The vault id of a vault's key.
    public var vaultID: String? { name.vaultID }

    /// The descriptions of every key in `store`, from its listing alone.
    public static func all(in store: any KeyStore) -> [KeyDescription] {
        ((try? store.entries()) ?? []).map { entry in
            KeyDescription(
                name: entry.name, location: store.location, protection: entry.protection, available: entry.available)
        }
    }

    /// One line: `vault read key (vault abcd1234) · Keychain · Face ID (current enrolment), this device only`.
    public var line: String {
        "\(name) · \(location) · \(protection.summary)" + (available ? "" : " · unavailable, import it again")
    }
}
