import Foundation

/// The link the server puts on both legs of a transfer delivered as two transactions (O-6): which leg is the
/// from-leg and which the to-leg, with their accounts, whatever the legs' signs.
public struct TransferLink: Sendable, Hashable, Codable {
    /// The link's id, shared by both legs.
    public let id: Int
    /// The from-leg's transaction id.
    public let fromID: Int
    /// The account money leaves.
    public let fromAccountID: Int
    /// The to-leg's transaction id.
    public let toID: Int
    /// The account money arrives in.
    public let toAccountID: Int

    /// A link between the legs `fromID` (on `fromAccountID`) and `toID` (on `toAccountID`).
    public init(id: Int, fromID: Int, fromAccountID: Int, toID: Int, toAccountID: Int) {
        (self.id, self.fromID, self.fromAccountID, self.toID, self.toAccountID) = (
            id, fromID, fromAccountID, toID, toAccountID
        )
    }

    enum CodingKeys: String, CodingKey {
        case id
        case fromID = "from_id"
        case fromAccountID = "from_account_id"
        case toID = "to_id"
        case toAccountID = "to_account_id"
    }
}

/// A transaction from `GET /api/transactions`, with ids rather than names (C-LOOK-3).
public struct Transaction: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The account it is booked on.
    public let accountID: Int
    /// The booking day, a calendar day (C-TIME-3).
    public let bookedOn: CalendarDate
    /// The amount, signed as the bank delivered it.
    public let amount: Amount
    /// The amount's currency.
    public let currency: String
    /// Who paid or was paid, if known.
    public let counterparty: String?
    /// The purpose line, if any.
    public let purpose: String?
    /// The category, if any.
    public let categoryID: Int?
    /// The tags.
    public let tagIDs: [Int]
    /// Set when this one transaction is a whole transfer to that account (C-XFER-1).
    public let toAccountID: Int?
    /// Set on both legs of a transfer delivered as two transactions (C-XFER-2).
    public let transferLink: TransferLink?
    /// When the server recorded it.
    public let createdAt: Date

    /// A transaction with the given fields (tests and fixtures build them this way).
    public init(
        id: Int, accountID: Int, bookedOn: CalendarDate, amount: Amount, currency: String = "EUR",
        counterparty: String? = nil, purpose: String? = nil, categoryID: Int? = nil, tagIDs: [Int] = [],
        toAccountID: Int? = nil, transferLink: TransferLink? = nil, createdAt: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.id = id
        self.accountID = accountID
        self.bookedOn = bookedOn
        self.amount = amount
        self.currency = currency
        self.counterparty = counterparty
        self.purpose = purpose
        self.categoryID = categoryID
        self.tagIDs = tagIDs
        self.toAccountID = toAccountID
        self.transferLink = transferLink
        self.createdAt = createdAt
    }

    /// The amount with its currency.
    public var money: Money { Money(amount, currency) }

    enum CodingKeys: String, CodingKey {
        case id, amount, currency, counterparty, purpose
        case accountID = "account_id"
        case bookedOn = "booked_on"
        case categoryID = "category_id"
        case tagIDs = "tag_ids"
        case toAccountID = "to_account_id"
        case transferLink = "transfer_link"
        case createdAt = "created_at"
    }
}
