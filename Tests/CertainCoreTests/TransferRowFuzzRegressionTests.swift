import CertainCore
import Foundation
import Testing

/// Inputs FuzzCertainValues found (Fuzz/Corpus/FuzzCertainValues/regression-*): transaction pages whose transfer
/// links disagree. Whatever the server sends, each transaction of the list is in exactly one row: shown twice, its
/// money would count twice; not shown, it would vanish (C-XFER-3: every transaction yields a row or joins one).
@Suite struct TransferRowFuzzRegressionTests {
    static func transaction(_ id: Int, account: Int, _ amount: String, link: TransferLink) -> Transaction {
        guard let day = CalendarDate(year: 2026, month: 10, day: 14) else { preconditionFailure("not a day") }
        return Transaction(
            id: id, accountID: account, bookedOn: day, amount: Amount(exactly: amount) ?? .zero, transferLink: link)
    }

    /// The ids of every row's legs, in row order.
    static func placed(_ rows: [TransactionRow]) -> [Int] { rows.flatMap(\.transactionIDs) }

    @Test("C-XFER-3: legs whose links disagree (one names itself as both sides) are each in one row")
    func disagreeingLinks() {
        // The fuzzer's input: leg 1's link says 1 → 1, leg 2's says 1 → 2. Leg 1 was shown alone and again as the
        // from-leg of leg 2's pair.
        let rows = TransactionRows.rows([
            Self.transaction(
                1, account: 1, "-250.00",
                link: TransferLink(id: 9, fromID: 1, fromAccountID: 1, toID: 1, toAccountID: 2)),
            Self.transaction(
                2, account: 2, "250.00", link: TransferLink(id: 9, fromID: 1, fromAccountID: 1, toID: 2, toAccountID: 2)
            ),
        ])
        #expect(Self.placed(rows).sorted() == [1, 2])
    }

    @Test("C-XFER-2, C-XFER-3: a third transaction carrying a pair's link keeps its own row; the pair is one row")
    func thirdLegWithTheSameLink() {
        let link = TransferLink(id: 9, fromID: 1, fromAccountID: 1, toID: 2, toAccountID: 2)
        let rows = TransactionRows.rows([
            Self.transaction(3, account: 3, "-5.00", link: link),
            Self.transaction(1, account: 1, "-250.00", link: link),
            Self.transaction(2, account: 2, "250.00", link: link),
        ])
        #expect(Self.placed(rows) == [3, 1, 2])
        #expect(rows.count == 2)
        #expect(rows.last?.transactionIDs == [1, 2])
    }
}
