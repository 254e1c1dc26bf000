import CertainCore
import CompanionHTTP
import Foundation
import Testing

/// The decoded fields of Certain's replies read back one by one, a line's text and flags exactly, and the
/// sentence an error becomes: pure values, no server.
@Suite struct WireAndLineTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(json.utf8))
    }

    static let lookupsJSON = #"""
        {"accounts": [
            {"id": 1, "name": "Girokonto", "kind": "checking", "currency": "EUR", "balance": "100.00",
             "archived": false, "created_at": "2026-01-02T03:04:05Z"},
            {"id": 2, "name": "Tagesgeld", "kind": "savings", "currency": "EUR", "balance": "0.00",
             "archived": true, "created_at": "2026-01-02T03:04:05Z"}],
         "categories": [{"id": 7, "name": "Lebensmittel", "group_id": 3, "group_name": "Alltag", "kind": "expense"}],
         "tags": [{"id": 9, "name": "Urlaub"}]}
        """#

    @Test("C-ERR-3 C-LOOK-3: accounts, categories and tags decode every field by its snake_case name")
    func lookupsDecode() throws {
        let lookups = try decode(Lookups.self, Self.lookupsJSON)
        let account = try #require(lookups.account(2))
        #expect(account.name == "Tagesgeld" && account.kind == "savings" && account.archived)
        #expect(account.createdAt == Date(timeIntervalSince1970: 1_767_323_045))
        #expect(account.money.description == "0.00 EUR")
        let category = try #require(lookups.category(7))
        #expect(category.groupID == 3 && category.groupName == "Alltag" && category.kind == .expense)
        #expect(lookups.tag(9)?.name == "Urlaub")
        #expect(
            lookups.unknown(accounts: [1, 5], categories: [7, 8], tags: [9, 10]) == [
                "account:5", "category:8", "tag:10",
            ])
        #expect(lookups.unknown(accounts: [1], categories: [7], tags: [9]).isEmpty)
    }

    @Test("C-ERR-3 C-XFER-2: a transaction decodes its account, day, category, tags, transfer link and creation")
    func transactionDecodes() throws {
        let json = #"""
            {"id": 501, "account_id": 1, "booked_on": "2026-10-14", "amount": "-250.00", "currency": "EUR",
             "counterparty": null, "purpose": "Sparen", "category_id": 7, "tag_ids": [9, 4], "to_account_id": 2,
             "transfer_link": {"id": 77, "from_id": 501, "from_account_id": 1, "to_id": 502, "to_account_id": 2},
             "created_at": "2026-10-14T08:00:00Z"}
            """#
        let item = try decode(Transaction.self, json)
        #expect(item.accountID == 1 && item.bookedOn.description == "2026-10-14")
        #expect(item.categoryID == 7 && item.tagIDs == [9, 4] && item.toAccountID == 2)
        #expect(item.transferLink == TransferLink(id: 77, fromID: 501, fromAccountID: 1, toID: 502, toAccountID: 2))
        #expect(item.createdAt == Date(timeIntervalSince1970: 1_791_964_800))
        #expect(item.money.description == "-250.00 EUR" && item.purpose == "Sparen" && item.counterparty == nil)
        let made = Transaction(id: 1, accountID: 1, bookedOn: item.bookedOn, amount: .zero)
        #expect(made.createdAt == Date(timeIntervalSince1970: 0) && made.currency == "EUR" && made.tagIDs.isEmpty)
    }

    @Test(
        "C-LOOK-4 C-XFER-3 C-XFER-8: a booking's line is signed and complete; a transfer's unsigned, marked when alone")
    func linesReadExactly() throws {
        let lookups = try decode(Lookups.self, Self.lookupsJSON)
        let day = try #require(CalendarDate("2026-10-14"))
        let rewe = Transaction(
            id: 1, accountID: 1, bookedOn: day, amount: try #require(Amount(exactly: "-23.40")), counterparty: "REWE",
            categoryID: 7, tagIDs: [9, 4])
        let plain = Transaction(id: 2, accountID: 1, bookedOn: day, amount: try #require(Amount(exactly: "5.00")))
        let link = TransferLink(id: 77, fromID: 501, fromAccountID: 1, toID: 502, toAccountID: 2)
        let lone = Transaction(
            id: 501, accountID: 1, bookedOn: day, amount: try #require(Amount(exactly: "-250.00")), transferLink: link)
        let german = Texts(.german)
        let lines = TransactionLine.lines(TransactionRows.rows([rewe, plain, lone]), lookups: lookups, texts: german)
        #expect(lines.count == 3)
        #expect(lines[0].kind == .booking && lines[0].isComplete && lines[0].id == "t1")
        #expect(lines[0].text(german) == "14.10.2026  REWE  -23,40\u{00A0}€  [Lebensmittel]  #Urlaub #Unbekannt")
        #expect(lines[0].tagNames == ["Urlaub", "Unbekannt"] && lines[0].categoryName == "Lebensmittel")
        #expect(lines[1].title == "-" && lines[1].categoryName == nil && lines[1].isComplete)
        #expect(lines[1].text(german) == "14.10.2026  -  5,00\u{00A0}€")
        #expect(lines[2].kind == .transfer && !lines[2].isComplete && lines[2].transactionIDs == [501])
        #expect(lines[2].fromAccountName == "Girokonto" && lines[2].toAccountName == "Tagesgeld")
        #expect(
            lines[2].text(german)
                == "14.10.2026  Übertrag von Girokonto an Tagesgeld  250,00\u{00A0}€  (Gegenbuchung nicht in der Liste)"
        )
        let pair = TransactionRows.rows([
            lone,
            Transaction(
                id: 502, accountID: 2, bookedOn: day, amount: try #require(Amount(exactly: "250.00")),
                transferLink: link),
        ])
        guard case .transfer(let row) = try #require(pair.first) else { throw Failure("not a transfer") }
        #expect(pair.count == 1 && row.isComplete && row.legs.map(\.id) == [501, 502])
        #expect(pair[0].id == "link77" && lines[2].id == "t501")
        let line = TransactionLine(try #require(pair.first), lookups: lookups, texts: Texts(.english))
        #expect(
            line.isComplete
                && line.text(Texts(.english)) == "14 Oct 2026  Transfer from Girokonto to Tagesgeld  €250.00")
    }

    @Test("C-ERR-2: the server's detail word for word; a 422 list as field: message; otherwise the kit's sentence")
    func errorSentences() {
        func failure(_ envelope: ServerErrorEnvelope?) -> HTTPError {
            .status(.init(method: "GET", url: "https://certain.example/api/budget", status: 422, envelope: envelope))
        }
        let detail = failure(ServerErrorEnvelope(message: "Monat fehlt.", details: ["detail": "Monat fehlt."]))
        #expect(CertainServer.sentence(detail) == "Monat fehlt.")
        let fields = failure(
            ServerErrorEnvelope(
                fieldProblems: [
                    .init(field: "query.month", message: "bad"), .init(field: "limit", message: "too big"),
                ],
                details: ["detail": []]))
        #expect(CertainServer.sentence(fields) == "query.month: bad; limit: too big")
        for bare in [
            failure(ServerErrorEnvelope(message: "", details: ["detail": ""])),
            failure(ServerErrorEnvelope(message: "Proxy page title")), failure(nil),
        ] {
            #expect(CertainServer.sentence(bare) == bare.description)
            #expect(!bare.description.isEmpty)
        }
    }

    @Test(
        "C-TXN-4 C-XFER-7: a page's next_cursor is read, a list keeps it and writes it back; a later page adds only new ids"
    )
    func pagesAndCursors() throws {
        let day = try #require(CalendarDate("2026-10-14"))
        let first = Transaction(id: 1, accountID: 1, bookedOn: day, amount: .zero)
        let second = Transaction(id: 2, accountID: 1, bookedOn: day, amount: .zero)
        let page = try decode(TransactionPage.self, #"{"items": [], "next_cursor": "c2"}"#)
        #expect(page.nextCursor == "c2")
        let list = TransactionList(query: TransactionQuery(), page: TransactionPage(items: [first], nextCursor: "c2"))
        let members = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(list)) as? [String: Any]
        #expect(members?["next_cursor"] as? String == "c2")
        let more = list.appending(TransactionPage(items: [first, second], nextCursor: nil))
        #expect(more.items.map(\.id) == [1, 2] && more.nextCursor == nil)
    }
}
