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
    /// `GET /api/auth/me`: the signed-in user (C-AUTH-7).
    public static let me = Request<CertainUser>.get("/api/auth/me")
    /// `GET /api/transactions?limit=5`: the overview's latest five (C-OVER-2).
    public static let latest = transactions(TransactionQuery(), limit: 5)

    /// `GET /api/budget`, for `month` or (when `nil`) the current month.
    public static func budget(_ month: BudgetMonth? = nil) -> Request<BudgetMonthReply> {
        .get("/api/budget", query: ["month": month?.description])
    }

    /// The request for a `prev`/`next` path exactly as the server wrote it (C-BUD-2): its path and its query,
    /// nothing computed. `nil` when the text is not a path on this server.
    public static func budget(following link: String) -> Request<BudgetMonthReply>? {
        guard link.hasPrefix("/"), let components = URLComponents(string: link) else { return nil }
        var query = Query()
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
