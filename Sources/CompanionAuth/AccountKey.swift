import CompanionCore
import CompanionCrypto
import Foundation

/// Which person on which server: the server's key plus the user's id on that server.
///
/// Rule: everything a person keeps per server (drafts, offline data, the stored credential) is filed
/// under this key, so signing in again as the same user on the same server finds it again, and another
/// user, or the same name on another server, finds none of it. Signing out never deletes data filed
/// under it; only the credential goes.
public struct AccountKey: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    /// `ServerAddress.serverKey` of the server.
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

    /// A name safe for a file or keychain account: the hex SHA-256 of `rawValue`, so no user name leaks
    /// into a directory listing and no character of it can escape a folder.
    public var storageName: String {
        Hash.sha256(Data(rawValue.utf8)).hexString
    }

    /// `user@server`, for messages.
    public var description: String { "\(userID)@\(serverKey)" }

    /// Orders by server, then user.
    public static func < (lhs: AccountKey, rhs: AccountKey) -> Bool { lhs.rawValue < rhs.rawValue }
}
