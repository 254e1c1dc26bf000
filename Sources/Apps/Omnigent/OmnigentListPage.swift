import CompanionCore
import Foundation

/// One page of an Omnigent list: `{object: "list", data, first_id, last_id, has_more}` (O-ERR-3).
public struct OmnigentListPage<Item: Decodable & Sendable & Hashable>: Decodable, Sendable, Hashable {
    /// The items of this page.
    public var data: [Item]
    /// The id of the first item, the cursor for `before`.
    public var firstID: String?
    /// The id of the last item, the cursor for `after`.
    public var lastID: String?
    /// Whether another page follows.
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case data
        case firstID = "first_id"
        case lastID = "last_id"
        case hasMore = "has_more"
    }

    /// Creates a page.
    public init(data: [Item], firstID: String? = nil, lastID: String? = nil, hasMore: Bool = false) {
        self.data = data
        self.firstID = firstID
        self.lastID = lastID
        self.hasMore = hasMore
    }
}
