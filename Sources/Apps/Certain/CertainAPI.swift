import CompanionHTTP
import Foundation

/// Certain's read endpoints as typed requests. The app only reads (C-ERR-4): every request here is a GET.
public enum CertainAPI {
    /// `GET /api/accounts`: the accounts with balances (a lookup, and the account list).
    public static let accounts = Request<[Account]>.get("/api/accounts")
    /// `GET /api/categories`: a lookup.
    public static let categories = Request<[Category]>.get("/api/categories")
    /// `GET /api/tags`: a lookup.
    public static let tags = Request<[Tag]>.get("/api/tags")
    /// `GET /api/contracts`: the contracts with the server's sums.
    public static let contracts = Request<ContractList>.get("/api/contracts")

    /// `GET /api/reports/month`: the current month's income and expenses.
    public static let monthReport = Request<MonthReport>.get("/api/reports/month")

    /// `GET /api/budget`, for `month` or (when `nil`) the current month.
    public static func budget(_ month: BudgetMonth? = nil) -> Request<BudgetMonthReply> {
        .get("/api/budget", query: ["month": month?.description])
    }

    /// The request for a `prev`/`next` path exactly as the server wrote it (C-BUD-2): its path and its query,
    /// nothing computed. `nil` when the text is not a path on this server.
    public static func budget(following link: String) -> Request<BudgetMonthReply>? {
        guard link.hasPrefix("/"), let components = URLComponents(string: link) else { return nil }
        var query: [String: String?] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value }
        return .get(components.path, query: query)
    }

    /// `GET /api/transactions` with the search and filters of `query`, from `cursor` on.
    public static func transactions(_ query: TransactionQuery, limit: Int = 50, cursor: String? = nil)
        -> Request<TransactionPage>
    {
        .get(
            "/api/transactions",
            query: [
                "q": query.search.isEmpty ? nil : query.search, "account_id": query.accountID.map(String.init),
                "category_id": query.categoryID.map(String.init), "tag_id": query.tagID.map(String.init),
                "from": query.from?.description, "to": query.to?.description, "limit": String(limit), "cursor": cursor,
            ])
    }
}

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
