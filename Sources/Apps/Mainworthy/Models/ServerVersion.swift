import Foundation

/// `GET /api/version`.
public struct ServerVersion: Sendable, Hashable, Codable {
    /// `mainworthy`.
    public var name: String
    /// The version.
    public var version: String

    /// Creates a version reply.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
