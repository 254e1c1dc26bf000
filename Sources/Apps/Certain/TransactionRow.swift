import Foundation

/// A transfer as one row: from one account to another, with the amount's magnitude and no sign.
public struct TransferRow: Sendable, Hashable {
    /// The account money leaves (from the link, never from a sign, C-XFER-4).
    public let fromAccountID: Int
    /// The account money arrives in.
    public let toAccountID: Int
    /// The from-leg's magnitude in the from-leg's currency (C-XFER-8); a lone to-leg shows its own.
    public let amount: Money
    /// The booking day of the first listed leg.
    public let bookedOn: CalendarDate
    /// The transactions behind the row: one (one-piece transfer or a lone leg) or two (a pair).
    public let legs: [Transaction]
    /// `false` for a lone leg whose other side is not in the list (C-XFER-3).
    public let isComplete: Bool
}

/// One row of the transactions list.
public enum TransactionRow: Sendable, Hashable, Identifiable {
    /// An ordinary transaction.
    case booking(Transaction)
    /// A transfer: a one-piece transaction, a pair of linked legs, or a lone leg.
    case transfer(TransferRow)

    /// Stable across reloads: `t<id>` for a booking or a single-transaction transfer, `link<id>` for a pair.
    public var id: String {
        switch self {
        case .booking(let transaction): "t\(transaction.id)"
        case .transfer(let row):
            row.legs.count == 2 ? "link\(row.legs[0].transferLink?.id ?? row.legs[0].id)" : "t\(row.legs[0].id)"
        }
    }

    /// The ids of the transactions behind the row.
    public var transactionIDs: [Int] {
        switch self {
        case .booking(let transaction): [transaction.id]
        case .transfer(let row): row.legs.map(\.id)
        }
    }
}
