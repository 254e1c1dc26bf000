import Foundation

/// A tag from `GET /api/tags`.
public struct Tag: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The name ("Fixkosten").
    public let name: String
}
