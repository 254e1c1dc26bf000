import Foundation

/// The cursor list shape the test servers answer with: `{object: "list", data, first_id, last_id,
/// has_more}` (the fault server's `/items`, Omnigent's lists).
public struct TestListPage<Item: Decodable & Sendable>: Decodable, Sendable {
    /// The items of this page.
    public var data: [Item]
    /// The first item's id.
    public var firstID: String?
    /// The last item's id, the cursor for the next page.
    public var lastID: String?
    /// Whether another page follows.
    public var hasMore: Bool

    enum CodingKeys: String, CodingKey {
        case data
        case firstID = "first_id"
        case lastID = "last_id"
        case hasMore = "has_more"
    }
}
