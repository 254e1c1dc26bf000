import Foundation

/// A part of a change that is a list, with the head it describes.
public struct HeadedList<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The head the items describe.
    public var head: String
    /// The items.
    public var items: [Item]
}
