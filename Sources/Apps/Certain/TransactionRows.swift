import Foundation

/// Turns a loaded list of transactions into rows: the client's half of transfers (the server leaves it to us).
///
/// Rules, with their reasons:
/// - A transaction with `to_account_id` is one transfer row from its account to that one (C-XFER-1).
/// - Two legs sharing a `transfer_link.id`, both in the list, are one row (C-XFER-2): two rows would show the
///   same money twice. The row sits where the first leg was; other order is kept (C-XFER-6).
/// - A leg whose partner is not in the list keeps its own row, marked as a transfer (C-XFER-3): otherwise an
///   account filter, a search or a page boundary would make money that does belong here vanish.
/// - The direction comes from the link's `from_id`/`to_id`, never from a sign: some banks send both legs
///   positive (C-XFER-4). Only the link pairs; equal and opposite amounts on a day stay two rows (C-XFER-5).
/// - Pairing runs over the whole loaded list, so a later page's second leg merges with the first (C-XFER-7).
public enum TransactionRows {
    /// The rows for `transactions`, in their order. Every transaction yields a row or joins one.
    public static func rows(_ transactions: [Transaction]) -> [TransactionRow] {
        var byLink: [Int: [Transaction]] = [:]
        for transaction in transactions {
            if let link = transaction.transferLink { byLink[link.id, default: []].append(transaction) }
        }
        // The ids of the legs already in a row: a leg is in one row only, even when the two legs' links disagree
        // or a third transaction carries the same link (found by fuzzing: it was shown twice, or not at all).
        var placed = Set<Int>()
        var rows: [TransactionRow] = []
        rows.reserveCapacity(transactions.count)
        for transaction in transactions {
            if let link = transaction.transferLink {
                guard !placed.contains(transaction.id) else { continue }
                let legs = byLink[link.id] ?? [transaction]
                let from = legs.first { $0.id == link.fromID }
                let to = legs.first { $0.id == link.toID }
                if let from, let to, from.id != to.id, transaction.id == from.id || transaction.id == to.id,
                    !placed.contains(from.id), !placed.contains(to.id)
                {
                    placed.formUnion([from.id, to.id])
                    rows.append(
                        .transfer(
                            TransferRow(
                                fromAccountID: link.fromAccountID, toAccountID: link.toAccountID,
                                amount: from.money.magnitude, bookedOn: transaction.bookedOn,
                                legs: transaction.id == from.id ? [from, to] : [to, from], isComplete: true)))
                } else {
                    placed.insert(transaction.id)
                    rows.append(
                        .transfer(
                            TransferRow(
                                fromAccountID: link.fromAccountID, toAccountID: link.toAccountID,
                                amount: transaction.money.magnitude, bookedOn: transaction.bookedOn,
                                legs: [transaction], isComplete: false)))
                }
            } else if let target = transaction.toAccountID {
                rows.append(
                    .transfer(
                        TransferRow(
                            fromAccountID: transaction.accountID, toAccountID: target,
                            amount: transaction.money.magnitude, bookedOn: transaction.bookedOn,
                            legs: [transaction], isComplete: true)))
            } else {
                rows.append(.booking(transaction))
            }
        }
        return rows
    }
}
