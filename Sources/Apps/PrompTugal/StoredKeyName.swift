import Foundation

/// A key the app keeps for the person.
///
/// Rule (P-KEY-1, P-DEBUG-6): a key is named by what it can do. A pasted read key (`sgit_private_read_…`,
/// `sgit_public_read_…`, bare hex) is a vault read key; a pasted vault key (`sgit_private_vault_…`) can also write,
/// and is named so, never "read key".
public enum StoredKeyName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A vault's read key.
    case vaultRead(vaultID: String)
    /// A vault key (passphrase): it reads, and it could also write.
    case vault(vaultID: String)
    /// The OpenRouter API key.
    case openRouter

    /// The account name a secret store files it under.
    public var account: String {
        switch self {
        case .vaultRead(let vaultID): return "vault-read-" + vaultID
        case .vault(let vaultID): return "vault-key-" + vaultID
        case .openRouter: return "openrouter"
        }
    }

    /// The name from an account name.
    public init?(account: String) {
        if account == "openrouter" {
            self = .openRouter
        } else if account.hasPrefix("vault-read-"), account.count > 11 {
            self = .vaultRead(vaultID: String(account.dropFirst(11)))
        } else if account.hasPrefix("vault-key-"), account.count > 10 {
            self = .vault(vaultID: String(account.dropFirst(10)))
        } else {
            return nil
        }
    }

    /// The vault id of a vault's key.
    public var vaultID: String? {
        switch self {
        case .vaultRead(let vaultID), .vault(let vaultID): return vaultID
        case .openRouter: return nil
        }
    }

    /// `vault read key`, `vault key (read and write)` or `OpenRouter key`.
    public var kind: String {
        switch self {
        case .vaultRead: return "vault read key"
        case .vault: return "vault key (read and write)"
        case .openRouter: return "OpenRouter key"
        }
    }

    /// `vault read key (vault <id>)`, `vault key (read and write) (vault <id>)` or `OpenRouter key`.
    public var description: String { vaultID.map { "\(kind) (vault \($0))" } ?? kind }

    /// Ordered by account name.
    public static func < (left: StoredKeyName, right: StoredKeyName) -> Bool { left.account < right.account }
}
