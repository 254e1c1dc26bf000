#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One row of a stored list.
public struct ListItem: Sendable, Hashable {
    /// The item's id (unique within its list).
    public var id: String
    /// Its position: items are listed by it, and a next page gets higher positions.
    public var position: Int
    /// The page it came in (0 for the first).
    public var page: Int
    /// The item as received.
    public var body: Data
}

/// A list read page by page (a cursor list or a numbered page list), as far as it is stored.
///
/// Rule: the first page replaces the list; each further page appends in order, and an id already
/// stored is not added twice (M-CASE-3, C-TXN-4).
public struct ListState: Sendable, Hashable {
    /// The list's key (a request key, or an app's own name for the list).
    public var key: String
    /// The cursor (or page number) to read next; `nil` when the list is complete.
    public var nextCursor: String?
    /// Whether the last page said there is nothing more.
    public var isComplete: Bool
    /// How many pages are stored.
    public var pageCount: Int
    /// How many items are stored.
    public var itemCount: Int
    /// The revision the server named when the list was read (Mainworthy's project `revision`).
    public var revision: String?
    /// When the first page was read.
    public var fetchedAt: Date
    /// When the person last left the list (recent lists), if ever.
    public var leftAt: Date?
}

/// One page as received, ready to be stored.
public struct ListPage: Sendable, Hashable {
    /// The items, in the server's order, each with its id.
    public var items: [(id: String, body: Data)]
    /// The cursor for the next page; `nil` means this was the last page.
    public var nextCursor: String?
    /// The revision the reply named, if any.
    public var revision: String?

    /// Creates a page.
    public init(items: [(id: String, body: Data)], nextCursor: String?, revision: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.revision = revision
    }

    /// Equal when items, cursor and revision are equal.
    public static func == (lhs: ListPage, rhs: ListPage) -> Bool {
        lhs.items.map(\.id) == rhs.items.map(\.id) && lhs.items.map(\.body) == rhs.items.map(\.body)
            && lhs.nextCursor == rhs.nextCursor && lhs.revision == rhs.revision
    }

    /// Hashes the ids, cursor and revision.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(items.map(\.id))
        hasher.combine(nextCursor)
        hasher.combine(revision)
    }
}
