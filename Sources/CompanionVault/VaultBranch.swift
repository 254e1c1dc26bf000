/// A named branch of the vault.
public struct VaultBranch: Sendable, Hashable {
    /// The branch name, e.g. `current`.
    public let name: String
    /// The ref's file id.
    public let refFileID: String
}
