import CompanionAuth
import CompanionCore
import Foundation

/// Where the signed-in server's address (and whose account it is) is kept: outside the secret store, in the
/// defaults of the app group named by one constant, so a later share extension or shortcut reads it
/// (C-ADDR-4, C-SCOPE-2). It holds no secret: the token stays in the secret store.
///
/// Rules:
/// - The group is one constant, `appGroup`; the keychain group the token is shared through is one constant
///   too, `keychainGroup` (a `KeychainSecretStore(accessGroup:)` on Apple platforms).
/// - Both are `nil` in this package: app groups and shared keychain groups exist only on Apple platforms, and
///   there is no extension yet (the share menu and shortcuts come later). With no group, the address lives in
///   the app's own defaults, and sign-in and every tab work the same.
/// - A revocation deletes the token, never the address: the person signs in again on the same server without
///   typing it (C-TOK-6).
public struct CertainAddressBook: Sendable {
    /// The app group the address is shared through (`group.<bundle id>`); `nil`: none, the app's own defaults.
    public static let appGroup: String? = nil
    /// The keychain access group the device token is shared through; `nil`: the app's own keychain items.
    public static let keychainGroup: String? = nil

    /// The defaults suite read and written (`appGroup` in the app; a test's own suite in tests).
    public let suiteName: String?

    /// The address book in the defaults of `suiteName` (the shared group by default).
    public init(suiteName: String? = CertainAddressBook.appGroup) {
        self.suiteName = suiteName
    }

    /// The remembered server and account, if any.
    public struct Entry: Sendable, Hashable {
        /// The server's address as typed (normalised).
        public let address: String
        /// Whose account was signed in there.
        public let account: AccountKey
    }

    static let addressKey = "certain.server.address"
    static let serverKey = "certain.server.key"
    static let userKey = "certain.server.user"

    private var defaults: UserDefaults { suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard }

    /// Remembers `address` as the server of `account`.
    public func remember(_ address: ServerAddress, account: AccountKey) {
        let defaults = defaults
        defaults.set(address.description, forKey: Self.addressKey)
        defaults.set(account.serverKey, forKey: Self.serverKey)
        defaults.set(account.userID, forKey: Self.userKey)
    }

    /// The remembered server, or `nil` when none was.
    public func entry() -> Entry? {
        let defaults = defaults
        guard let address = defaults.string(forKey: Self.addressKey),
            let server = defaults.string(forKey: Self.serverKey), let user = defaults.string(forKey: Self.userKey)
        else { return nil }
        return Entry(address: address, account: AccountKey(serverKey: server, userID: user))
    }

    /// Forgets the server (the person chose another one).
    public func forget() {
        let defaults = defaults
        for key in [Self.addressKey, Self.serverKey, Self.userKey] { defaults.removeObject(forKey: key) }
    }
}

#if canImport(Security)
    extension CertainAddressBook {
        /// The secret store the device token is kept in on Apple platforms: the keychain items of `service` (the
        /// app's bundle id), shared through `keychainGroup` with a later share extension (C-SCOPE-2). Not compiled
        /// on Linux, where the kit's `FileSecretStore` keeps it.
        public static func secretStore(service: String) -> KeychainSecretStore {
            KeychainSecretStore(
                service: service, accessGroup: keychainGroup, accessibility: .afterFirstUnlockThisDeviceOnly)
        }
    }
#endif
