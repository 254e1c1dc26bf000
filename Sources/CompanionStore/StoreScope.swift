import Foundation

/// Whose data a store holds: one server (by its server key) and one account on it.
///
/// Rule: everything offline is keyed by server and account. Two accounts on the same server, or
/// the same account name on two servers, never share a database file, so one can never read the
/// other's cache, drafts or outbox (C-OFF-4, M-DRAFT-2). The same user signing in again on the
/// same server gets the same file back.
public struct StoreScope: Sendable, Hashable, CustomStringConvertible {
    /// The server key (`ServerAddress.serverKey`): origin plus mount path.
    public let serverKey: String
    /// The account's stable id on that server (a user id, not a display name).
    public let accountID: String

    /// Creates a scope.
    public init(serverKey: String, accountID: String) {
        self.serverKey = serverKey
        self.accountID = accountID
    }

    /// The database file name: a readable prefix plus a 64-bit hash of both parts, so names that
    /// sanitise alike still get different files.
    public var fileName: String {
        let readable = (serverKey + "_" + accountID).map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let prefix = String(String(readable).prefix(48))
        return "\(prefix)-\(Self.hexHash(serverKey + "\u{0}" + accountID)).sqlite"
    }

    /// "account at server", for reports.
    public var description: String { "\(accountID) at \(serverKey)" }

    /// FNV-1a, 64 bit: stable across runs and platforms (unlike `Hasher`).
    static func hexHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
