import Foundation

/// Where a vault lives: its id and the server that holds it.
public struct VaultAddress: Sendable, Hashable {
    /// The vault id.
    public let vaultId: String
    /// The server's base URL; `https://dev.send.sgraph.ai` unless given.
    public let server: URL

    /// Creates an address; the server defaults to `HTTPVaultSource.defaultServer`.
    public init(vaultId: String, server: URL = HTTPVaultSource.defaultServer) {
        self.vaultId = vaultId
        self.server = server
    }
}
