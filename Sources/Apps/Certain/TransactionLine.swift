import Foundation

/// One row of a transactions list as a person reads it: names from the lookups, never ids.
///
/// Rules: a booking shows its counterparty (else its purpose), its signed amount, its category's name and its
/// tags' names (`tagNames`, beside `categoryName`); a transfer shows "from → to" by the accounts' names, the
/// from-leg's amount without sign (C-XFER-8), and whether its other leg is listed (C-XFER-3). An id the
/// lookups do not know shows as the neutral placeholder (C-LOOK-4). The overview's latest five and the
/// transactions tab make their lines the same way (C-OVER-5).
public struct TransactionLine: Sendable, Hashable, Encodable, Identifiable {
    /// Whether the line is an ordinary booking or a transfer.
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// An ordinary transaction.
        case booking
        /// A transfer (one piece, a pair, or a lone leg).
        case transfer
    }

    /// The row's stable id (`t<id>`, `link<id>`).
    public let id: String
    /// Booking or transfer.
    public let kind: Kind
    /// The transactions behind the line.
    public let transactionIDs: [Int]
    /// The booking day.
    public let bookedOn: CalendarDate
    /// What the line is titled: the counterparty or purpose of a booking (`-` when it has neither); the
    /// sentence "Transfer from … to …" of a transfer.
    public let title: String
    /// The amount: signed for a booking, the from-leg's magnitude for a transfer.
    public let amount: Amount
    /// The amount's currency.
    public let currency: String
    /// The amount with its currency.
    public var money: Money { Money(amount, currency) }
    /// The booking's category, if it has one.
    public let categoryID: Int?
    /// The category's name (or the placeholder); `nil` when the booking has no category.
    public let categoryName: String?
    /// The booking's tags, in the server's order.
    public let tagIDs: [Int]
    /// The tags' names, each unknown one as the placeholder.
    public let tagNames: [String]
    /// A transfer's accounts: ids and names.
    public let fromAccountID: Int?
    /// The name of the account money leaves.
    public let fromAccountName: String?
    /// The account money arrives in.
    public let toAccountID: Int?
    /// The name of the account money arrives in.
    public let toAccountName: String?
    /// For a transfer: `false` when only one leg is listed. Always `true` for a booking.
    public let isComplete: Bool

    /// The line of `row`, named by `lookups` in `texts`' language.
    public init(_ row: TransactionRow, lookups: Lookups, texts: Texts) {
        id = row.id
        transactionIDs = row.transactionIDs
        switch row {
        case .booking(let item):
            kind = .booking
            bookedOn = item.bookedOn
            title = item.counterparty ?? item.purpose ?? "-"
            (amount, currency) = (item.amount, item.currency)
            categoryID = item.categoryID
            categoryName = item.categoryID.map { lookups.categoryName($0, texts) }
            tagIDs = item.tagIDs
            tagNames = lookups.tagNames(item.tagIDs, texts)
            (fromAccountID, fromAccountName, toAccountID, toAccountName) = (nil, nil, nil, nil)
            isComplete = true
        case .transfer(let transfer):
            kind = .transfer
            bookedOn = transfer.bookedOn
            let from = lookups.accountName(transfer.fromAccountID, texts)
            let to = lookups.accountName(transfer.toAccountID, texts)
            title = texts.format("transfer.row", from, to)
            (amount, currency) = (transfer.amount.amount, transfer.amount.currency)
            // A transfer's own category and tags are those of its legs, which a transfer row does not show.
            (categoryID, categoryName, tagIDs, tagNames) = (nil, nil, [], [])
            (fromAccountID, fromAccountName) = (transfer.fromAccountID, from)
            (toAccountID, toAccountName) = (transfer.toAccountID, to)
            isComplete = transfer.isComplete
        }
    }

    /// The lines of `rows`.
    public static func lines(_ rows: [TransactionRow], lookups: Lookups, texts: Texts) -> [TransactionLine] {
        rows.map { TransactionLine($0, lookups: lookups, texts: texts) }
    }

    /// The line as one line of text: `14.10.2026  REWE  -23,40 €  [Lebensmittel]  #Urlaub #Unbekannt`, a
    /// transfer `14.10.2026  Übertrag von Girokonto an Tagesgeld  250,00 €` (plus the partial mark).
    public func text(_ texts: Texts) -> String {
        let language = texts.language
        let shown = money.formatted(language, signed: kind == .booking)
        var line = "\(bookedOn.formatted(language))  \(title)  \(shown)"
        if let categoryName { line += "  [\(categoryName)]" }
        if !tagNames.isEmpty { line += "  " + tagNames.map { "#" + $0 }.joined(separator: " ") }
        if !isComplete { line += "  (\(texts["transfer.partial"]))" }
        return line
    }

    /// `{"id", "kind", "transaction_ids", "booked_on", "title", "amount", "currency", "category_id",
    /// "category_name", "tag_ids", "tag_names", "from_account_id", "from_account_name", "to_account_id",
    /// "to_account_name", "complete"}`; a member that does not apply is absent.
    enum CodingKeys: String, CodingKey {
        case id, kind, title, amount, currency
        case isComplete = "complete"
        case transactionIDs = "transaction_ids"
        case bookedOn = "booked_on"
        case categoryID = "category_id"
        case categoryName = "category_name"
        case tagIDs = "tag_ids"
        case tagNames = "tag_names"
        case fromAccountID = "from_account_id"
        case fromAccountName = "from_account_name"
        case toAccountID = "to_account_id"
        case toAccountName = "to_account_name"
    }
}
