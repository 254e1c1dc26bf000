import CertainCore
import Foundation
import Testing

/// The transfer row builder on hand-made lists (no server needed: these are the client's own rules).
@Suite struct TransferRowTests {
    static func day(_ text: String) -> CalendarDate {
        guard let date = CalendarDate(text) else { preconditionFailure("not a test date: \(text)") }
        return date
    }
    static func amount(_ text: String) -> Amount { Amount(exactly: text) ?? .zero }

    func leg(
        _ id: Int, account: Int, _ amount: String, link: TransferLink? = nil, to: Int? = nil, on: String = "2026-10-14"
    )
        -> Transaction
    {
        Transaction(
            id: id, accountID: account, bookedOn: Self.day(on), amount: Self.amount(amount), toAccountID: to,
            transferLink: link)
    }

    func booking(_ id: Int, _ amount: String, account: Int = 1) -> Transaction {
        leg(id, account: account, amount)
    }

    let link = TransferLink(id: 77, fromID: 501, fromAccountID: 1, toID: 502, toAccountID: 2)

    @Test("C-XFER-1: one transaction with to_account_id is one row from account_id to to_account_id")
    func onePieceTransferIsOneRow() throws {
        let rows = TransactionRows.rows([leg(510, account: 2, "-100.00", to: 1)])
        #expect(rows.count == 1)
        guard case .transfer(let row) = rows[0] else { throw Failure("not a transfer row") }
        #expect(row.fromAccountID == 2)
        #expect(row.toAccountID == 1)
        #expect(row.amount.description == "100.00 EUR")
        #expect(row.isComplete)
    }

    @Test("C-XFER-2: two legs with the same transfer_link.id, both listed, are one row")
    func bothLegsListedAreOneRow() {
        let rows = TransactionRows.rows([
            leg(501, account: 1, "-250.00", link: link), leg(502, account: 2, "250.00", link: link),
        ])
        #expect(rows.count == 1)
        #expect(rows[0].transactionIDs == [501, 502])
    }

    @Test("C-XFER-3: a lone leg keeps its own row, marked as a transfer; every transaction yields a row")
    func loneLegKeepsItsRow() throws {
        let rows = TransactionRows.rows([
            booking(1, "-3.20"), leg(501, account: 1, "-250.00", link: link), booking(2, "-9.99"),
        ])
        #expect(rows.count == 3)
        guard case .transfer(let row) = rows[1] else { throw Failure("the lone leg is not a transfer row") }
        #expect(!row.isComplete)
        #expect(row.fromAccountID == 1)
        #expect(row.toAccountID == 2)  // C-XFER-4: the other side comes from the link
        #expect(Set(rows.flatMap(\.transactionIDs)) == [1, 501, 2])
    }

    @Test("C-XFER-4: legs +250.00/+250.00 and legs -250.00/+250.00 with the same link point the same way")
    func directionComesFromTheLinkNotTheSign() throws {
        for (fromAmount, toAmount) in [("250.00", "250.00"), ("-250.00", "250.00")] {
            // The to-leg listed first, to show position does not decide direction either.
            let rows = TransactionRows.rows([
                leg(502, account: 2, toAmount, link: link), leg(501, account: 1, fromAmount, link: link),
            ])
            guard case .transfer(let row) = rows.first, rows.count == 1 else { throw Failure("not one row") }
            #expect(row.fromAccountID == 1)
            #expect(row.toAccountID == 2)
            #expect(row.amount.description == "250.00 EUR")  // C-XFER-8: magnitude, no sign
        }
        // A lone to-leg takes its other side from from_account_id.
        guard case .transfer(let lone) = TransactionRows.rows([leg(502, account: 2, "250.00", link: link)]).first else {
            throw Failure("not a transfer row")
        }
        #expect(lone.fromAccountID == 1)
        #expect(lone.toAccountID == 2)
    }

    @Test("C-XFER-5: two unlinked transactions of +42.00 and -42.00 on the same day stay two rows")
    func onlyTheLinkPairs() {
        let rows = TransactionRows.rows([booking(1, "-42.00", account: 1), booking(2, "42.00", account: 2)])
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { if case .booking = $0 { true } else { false } })
    }

    @Test("C-XFER-6: rows = transactions - pairs; the pair sits where its first leg was, other order kept")
    func pairTakesTheFirstLegsPlace() {
        let list = [
            booking(1, "-1.00"), leg(502, account: 2, "250.00", link: link), booking(2, "-2.00"),
            leg(501, account: 1, "-250.00", link: link), booking(3, "-3.00"),
        ]
        let rows = TransactionRows.rows(list)
        #expect(rows.count == list.count - 1)
        #expect(rows.map(\.id) == ["t1", "link77", "t2", "t3"])
    }

    @Test("C-XFER-7: when a later page brings the second leg, the two rows become one")
    func pairingRunsOverTheWholeLoadedList() {
        let firstPage = [booking(1, "-1.00"), leg(501, account: 1, "-250.00", link: link)]
        #expect(TransactionRows.rows(firstPage).count == 2)
        let both = TransactionRows.rows(firstPage + [booking(2, "-2.00"), leg(502, account: 2, "250.00", link: link)])
        #expect(both.map(\.id) == ["t1", "link77", "t2"])
    }

    @Test("C-XFER-8: a transfer row shows the from-leg's magnitude in the from-leg's currency, no sign")
    func transferRowAmountIsTheFromLegsMagnitude() throws {
        let usdLink = TransferLink(id: 9, fromID: 10, fromAccountID: 3, toID: 11, toAccountID: 1)
        let rows = TransactionRows.rows([
            Transaction(
                id: 11, accountID: 1, bookedOn: Self.day("2026-10-06"), amount: Self.amount("9.21"),
                transferLink: usdLink),
            Transaction(
                id: 10, accountID: 3, bookedOn: Self.day("2026-10-06"), amount: Self.amount("-10.0004"),
                currency: "USD",
                transferLink: usdLink),
        ])
        guard case .transfer(let row) = rows.first else { throw Failure("not a transfer") }
        #expect(row.amount == Money(Self.amount("10.0004"), "USD"))
        #expect(row.amount.formatted(.english) == "$10.0004")
    }
}

/// A test failure with a sentence.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
