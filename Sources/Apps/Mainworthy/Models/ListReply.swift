import Foundation

/// A list reply: `items`, and for paged lists `next_cursor` and the project's `revision`.
public struct ListReply<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The items of this page.
    public var items: [Item]
    /// The cursor of the next page; `nil` at the end.
    public var nextCursor: String?
    /// The project's revision when the page was read.
    public var revision: Int?

    /// Creates a list reply.
    public init(items: [Item], nextCursor: String? = nil, revision: Int? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey {
        case items, revision
        case nextCursor = "next_cursor"
    }
}
