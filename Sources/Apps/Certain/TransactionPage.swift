import Foundation

/// One page of `GET /api/transactions`: the items and the opaque cursor of the next page (`nil` at the end).
public struct TransactionPage: Sendable, Hashable, Codable {
    /// The transactions, newest first.
    public let items: [Transaction]
    /// The cursor of the next page, `nil` when this is the last.
    public let nextCursor: String?

    /// A page of `items`.
    public init(items: [Transaction], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }
}
