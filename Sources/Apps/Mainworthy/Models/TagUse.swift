import Foundation

/// A tag and how many cases carry it.
public struct TagUse: Sendable, Hashable, Codable {
    /// The tag.
    public var name: String
    /// Its cases.
    public var count: Int
}
