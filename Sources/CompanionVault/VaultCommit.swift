import Foundation

/// One commit, with its message decrypted.
public struct VaultCommit: Sendable, Hashable, Identifiable {
    /// The commit's object id.
    public let id: String
    /// Its root tree.
    public let treeID: String
    /// Its parents: none for the first commit, two for a merge.
    public let parents: [String]
    /// When it was made, in milliseconds since 1970.
    public let timestampMs: Int64
    /// The decrypted message (empty when the commit has none).
    public let message: String
    /// The branch that wrote it (metadata only).
    public let branchID: String?

    /// When it was made.
    public var date: Date { Date(timeIntervalSince1970: Double(timestampMs) / 1_000) }
}
