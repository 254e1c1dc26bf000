import CompanionApp
import Foundation

/// The loaded transactions: the submitted query, every page loaded so far, and their rows.
public struct TransactionList: Sendable, Hashable, Encodable {
    /// The query these pages answer.
    public let query: TransactionQuery
    /// Every transaction loaded, in the server's order, each id once (C-TXN-4).
    public let items: [Transaction]
    /// The cursor of the next page; `nil`: the end (C-TXN-4).
    public let nextCursor: String?

    /// The first page of `query`.
    public init(query: TransactionQuery, page: TransactionPage) {
        self.init(query: query, items: [], nextCursor: nil)
        self = appending(page)
    }

    /// The pages of `query` as the kit's paged list holds them (every page read, each id once).
    init(query: TransactionQuery, paged: Paged<Transaction>) {
        self.init(query: query, items: paged.items, nextCursor: paged.nextCursor)
    }

    private init(query: TransactionQuery, items: [Transaction], nextCursor: String?) {
        self.query = query
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The rows, paired over the whole loaded list (C-XFER-7).
    public var rows: [TransactionRow] { TransactionRows.rows(items) }

    /// The list with `page` appended, dropping ids already loaded.
    public func appending(_ page: TransactionPage) -> TransactionList {
        var known = Set(items.map(\.id))
        let added = page.items.filter { known.insert($0.id).inserted }
        return TransactionList(query: query, items: items + added, nextCursor: page.nextCursor)
    }

    /// `{"query", "items", "next_cursor"}`; the cursor is absent at the end.
    enum CodingKeys: String, CodingKey {
        case query, items
        case nextCursor = "next_cursor"
    }
}
