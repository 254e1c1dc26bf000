/// One file in a commit.
public struct VaultFile: Sendable, Hashable, Identifiable {
    /// The path inside the vault, `/`-separated.
    public let path: String
    /// The plaintext size in bytes.
    public let size: Int
    /// The blob's object id.
    public let blobID: String
    /// The MIME type the writer recorded (`application/octet-stream` when none).
    public let contentType: String
    /// The first 12 hex digits of sha256(plaintext), as recorded.
    public let contentHash: String
    /// Whether the writer flagged the blob as large (over 4 MiB encrypted).
    public let isLarge: Bool

    /// The path.
    public var id: String { path }
}
