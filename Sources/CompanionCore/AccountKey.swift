#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which person on which server: the server's key plus the user's id on that server. The kit's one
/// identity for everything kept per account: the stored credential, the offline database, drafts.
///
/// Rule: everything a person keeps per server (drafts, offline data, the stored credential) is filed
/// under this key, so signing in again as the same user on the same server finds it again, and another
/// user, or the same name on another server, finds none of it (two accounts never share a database
/// file, so one can never read the other's cache, drafts or outbox). Signing out never deletes data
/// filed under it; only the credential goes, unless the app's data policy says otherwise.
public struct AccountKey: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    /// `ServerAddress.serverKey` of the server: origin plus mount path.
    public let serverKey: String
    /// The user's stable id on that server (not the display name, which can change).
    public let userID: String

    /// Creates a key from a server key and a user id.
    public init(serverKey: String, userID: String) {
        self.serverKey = serverKey
        self.userID = userID
    }

    /// Creates a key for `userID` on `address`.
    public init(address: ServerAddress, userID: String) {
        self.init(serverKey: address.serverKey, userID: userID)
    }

    /// `serverKey` and `userID` joined by a space, which neither contains in a normalized address.
    public var rawValue: String { serverKey + " " + userID }

    /// The one name under which this account's things are stored: a file's base name (the secret file
    /// `<storageName>.secret`, the database `<storageName>.sqlite`) or a keychain account.
    ///
    /// Rule: 32 hex digits of a 128-bit FNV-1a hash of `rawValue` (two 64-bit lanes with different
    /// offset bases). Stable across runs and platforms (unlike `Hasher`); no user or server name shows in
    /// a directory listing, and no character of them can escape a folder. It is a name, not a secret.
    public var storageName: String {
        Self.fnv1a(rawValue, basis: 0xcbf2_9ce4_8422_2325).hexString
            + Self.fnv1a(rawValue, basis: 0x8422_2325_cbf2_9ce4).hexString
    }

    /// `user@server`, for messages.
    public var description: String { "\(userID)@\(serverKey)" }

    /// Orders by server, then user.
    public static func < (lhs: AccountKey, rhs: AccountKey) -> Bool { lhs.rawValue < rhs.rawValue }

    private static func fnv1a(_ text: String, basis: UInt64) -> Data {
        var hash = basis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return withUnsafeBytes(of: hash.bigEndian) { Data($0) }
    }
}
