import Foundation

/// What the transactions list asks the server for: the search text and the filters (C-TXN-1). The server
/// searches and filters; the client never does either on a list.
public struct TransactionQuery: Sendable, Hashable, Codable {
    /// The submitted search text (empty: no search).
    public var search: String
    /// Only transactions touching this account (either side of a transfer).
    public var accountID: Int?
    /// Only this category.
    public var categoryID: Int?
    /// Only this tag.
    public var tagID: Int?
    /// From this day on.
    public var from: CalendarDate?
    /// Up to this day.
    public var to: CalendarDate?

    /// A query with the given search and filters.
    public init(
        search: String = "", accountID: Int? = nil, categoryID: Int? = nil, tagID: Int? = nil,
        from: CalendarDate? = nil, to: CalendarDate? = nil
    ) {
        self.search = search
        self.accountID = accountID
        self.categoryID = categoryID
        self.tagID = tagID
        self.from = from
        self.to = to
    }

    enum CodingKeys: String, CodingKey {
        case search, from, to
        case accountID = "account_id"
        case categoryID = "category_id"
        case tagID = "tag_id"
    }
}
