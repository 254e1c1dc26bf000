import CompanionHTTP
import CompanionSync
import Foundation

/// A list the server hands out page by page, as an app registers it: how to ask for a page, and what a page
/// holds. `ServerBundle.feed(_:)` keeps it in the account's store (the kit's paged lists) and shows it.
///
/// Rule: the first page replaces the stored list; each next page is asked for with the cursor the last one
/// gave and appended, an item whose id is stored already is not added twice; a page without a next cursor ends
/// the list.
public struct PagedList<Page: Sendable, Item: Codable & Sendable & Equatable>: Sendable {
    /// The key the list is stored under.
    public var key: String
    /// The request for the page after `cursor` (`nil`: the first page).
    public var page: @Sendable (_ cursor: String?) -> Request<Page>
    /// The items of a page, in the server's order.
    public var items: @Sendable (Page) -> [Item]
    /// An item's id, unique in the list.
    public var id: @Sendable (Item) -> String
    /// The cursor of the page after this one; `nil` on the last page.
    public var nextCursor: @Sendable (Page) -> String?
    /// The revision a page names, if any (a project's revision).
    public var revision: @Sendable (Page) -> String?

    /// A list; its key is the first page's cache key under `list:` unless one is given.
    public init(
        key: String? = nil, page: @escaping @Sendable (_ cursor: String?) -> Request<Page>,
        items: @escaping @Sendable (Page) -> [Item], id: @escaping @Sendable (Item) -> String,
        nextCursor: @escaping @Sendable (Page) -> String?,
        revision: @escaping @Sendable (Page) -> String? = { _ in nil }
    ) {
        self.key = key ?? "list:" + CachedFetcher.key(for: page(nil))
        self.page = page
        self.items = items
        self.id = id
        self.nextCursor = nextCursor
        self.revision = revision
    }
}

extension PagedList where Item: Identifiable, Item.ID == String {
    /// A list of items identified by their own `id`.
    public init(
        key: String? = nil, page: @escaping @Sendable (_ cursor: String?) -> Request<Page>,
        items: @escaping @Sendable (Page) -> [Item], nextCursor: @escaping @Sendable (Page) -> String?,
        revision: @escaping @Sendable (Page) -> String? = { _ in nil }
    ) {
        self.init(key: key, page: page, items: items, id: \.id, nextCursor: nextCursor, revision: revision)
    }
}

/// A paged list as far as it is stored: what a paged feed shows.
public struct Paged<Item: Sendable & Equatable>: Sendable, Equatable {
    /// The items of every page read, in order, no id twice.
    public var items: [Item]
    /// The cursor of the next page; `nil` when the list is complete.
    public var nextCursor: String?
    /// The revision the first page named, if any.
    public var revision: String?

    /// A list as far as it is read.
    public init(items: [Item], nextCursor: String? = nil, revision: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.revision = revision
    }

    /// Whether a next page can be read.
    public var hasMore: Bool { nextCursor != nil }
}

extension Paged: Encodable where Item: Encodable {
    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
        case revision
    }

    /// Encodes the items, the next cursor and the revision (`null` where there is none).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
        try container.encode(revision, forKey: .revision)
    }
}
