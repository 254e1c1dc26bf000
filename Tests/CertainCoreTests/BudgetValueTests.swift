import CertainCore
import Foundation
import Testing

/// The budget's and the overview's flags on hand-made replies, each at its limit and one past it.
@Suite struct BudgetValueTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(json.utf8))
    }

    func amount(_ text: String) throws -> Amount { try #require(Amount(exactly: text)) }

    func category(_ kind: CategoryKind, _ planned: String, _ actual: String, id: Int = 1) throws -> BudgetCategory {
        BudgetCategory(categoryID: id, kind: kind, planned: try amount(planned), actual: try amount(actual))
    }

    func group(_ categories: [BudgetCategory]) throws -> BudgetGroup {
        BudgetGroup(id: 1, name: "Alltag", planned: .zero, actual: .zero, categories: categories)
    }

    @Test("C-BUD-3 C-BUD-4 C-BUD-5: red only for an expense above its plan; exactly on plan, savings or income are not")
    func redMarks() throws {
        #expect(try category(.expense, "100.00", "100.01").isRed)
        #expect(try !category(.expense, "100.00", "100.00").isRed)
        #expect(try category(.expense, "0.00", "0.01").isRed)
        #expect(try !category(.savings, "100.00", "150.00").isRed)
        #expect(try !category(.income, "100.00", "150.00").isRed)
        // A group compares its expenses' sums, below one euro too; its savings never make it red.
        #expect(try group([category(.expense, "100.00", "100.50")]).isRed)
        #expect(try !group([category(.expense, "100.00", "99.50")]).isRed)
        #expect(try !group([category(.expense, "100.00", "100.00")]).isRed)
        #expect(try !group([category(.expense, "100.00", "90.00"), category(.savings, "0.00", "500.00", id: 2)]).isRed)
        #expect(try group([category(.expense, "50.00", "60.00"), category(.expense, "50.00", "40.01", id: 2)]).isRed)
    }

    static func reply(warnings: String = "[]", complete: Bool = true, groups: String = "[]") -> String {
        #"{"month":"2026-10","currency":"EUR","prev":null,"next":null,"groups":\#(groups),"warnings":\#(warnings),"complete":\#(complete)}"#
    }

    static let rateNotice =
        #"{"code":"missing_exchange_rate","currency":"USD","date":"2026-10-12","transaction_ids":[812]}"#

    @Test(
        "C-BUD-9: a notice makes the month incomplete even when the server's flag says complete, and the flag alone too"
    )
    func incompleteByNoticeOrFlag() throws {
        #expect(try decode(BudgetMonthReply.self, Self.reply(warnings: "[\(Self.rateNotice)]")).isIncomplete)
        #expect(try decode(BudgetMonthReply.self, Self.reply(complete: false)).isIncomplete)
        #expect(try !decode(BudgetMonthReply.self, Self.reply()).isIncomplete)
    }

    @Test("C-BUD-8 C-BUD-7: notices decode each id for what it is, read as sentences, and encode back the same")
    func noticesExactly() throws {
        let json = """
            [{"code":"contract_without_category","contract_id":4,"name":"Fitnessstudio","amount":"29.90","currency":"EUR"},
             \(Self.rateNotice),
             {"code":"missing_exchange_rate","currency":"CHF","date":"2026-12-07","contract_ids":[10, 11]},
             {"code":"something_new"}]
            """
        let notices = try decode([BudgetNotice].self, json)
        let day = try #require(CalendarDate("2026-10-12"))
        #expect(
            notices == [
                .contractWithoutCategory(
                    contractID: 4, name: "Fitnessstudio", amount: Money(try amount("29.90"), "EUR")),
                .missingExchangeRate(currency: "USD", date: day, transactionIDs: [812], contractIDs: []),
                .missingExchangeRate(
                    currency: "CHF", date: try #require(CalendarDate("2026-12-07")), transactionIDs: [],
                    contractIDs: [10, 11]),
                .other(code: "something_new"),
            ])
        let english = Texts(.english)
        #expect(
            notices[0].text(english)
                == "Contract “Fitnessstudio” (€29.90) has no category and is left out of the totals.")
        #expect(
            notices[1].text(english) == "No USD exchange rate on 12 Oct 2026; those amounts are left out of the totals."
        )
        #expect(notices[3].text(english) == "Server notice: something_new")
        let again = try decode([BudgetNotice].self, String(decoding: try JSONEncoder().encode(notices), as: UTF8.self))
        #expect(again == notices)
    }

    @Test("C-CON-1 C-CON-3: a contract's own category and account are read back")
    func contractFields() throws {
        let json = #"""
            {"id":5,"name":"Putzhilfe","amount":"45.00","currency":"CHF","rhythm":"half_yearly","next_due":"2026-12-04",
             "category_id":2,"account_id":3,"monthly":"7.50","yearly":"90.00"}
            """#
        let contract = try decode(Contract.self, json)
        #expect(contract.categoryID == 2 && contract.accountID == 3 && contract.rhythm == .halfYearly)
        #expect(contract.money.description == "45.00 CHF" && contract.nextDue.description == "2026-12-04")
        #expect(contract.monthly?.description == "7.50" && contract.yearly?.description == "90.00")
    }

    @Test("C-AUTH-7: the signed-in user's optional fields are read by their names")
    func userFields() throws {
        let user = try decode(
            CertainUser.self,
            #"{"id":3,"username":"plain","display_name":"Petra","mfa_enabled":true,"must_change_password":false,"created_at":"2026-01-02T03:04:05Z"}"#
        )
        #expect(user.displayName == "Petra" && user.shownName == "Petra")
        #expect(user.mfaEnabled == true && user.mustChangePassword == false)
        #expect(user.createdAt == Date(timeIntervalSince1970: 1_767_323_045))
    }

    func month(income: String = "0.00", expenses: String = "0.00", warnings: String = "[]") throws -> MonthReport {
        try decode(
            MonthReport.self,
            #"{"month":"2026-10","currency":"EUR","income":"\#(income)","expenses":"\#(expenses)","warnings":\#(warnings)}"#
        )
    }

    @Test(
        "C-ERR-1 C-BUD-9: the overview is empty only with nothing in any section; a month notice alone marks it incomplete"
    )
    func overviewFlags() throws {
        let budget = try decode(BudgetMonthReply.self, Self.reply())
        let group = #"[{"id":1,"name":"x","planned":"1.00","actual":"0.00","categories":[]}]"#
        let day = try #require(CalendarDate("2026-10-14"))
        let booking = Transaction(id: 1, accountID: 1, bookedOn: day, amount: try amount("-1.00"))
        let nothing = Overview(month: try month(), budget: budget, accounts: [], latest: [])
        #expect(nothing.isEmpty && !nothing.isIncomplete && nothing.notices.isEmpty)
        #expect(!Overview(month: try month(income: "0.01"), budget: budget, accounts: [], latest: []).isEmpty)
        #expect(!Overview(month: try month(expenses: "1.00"), budget: budget, accounts: [], latest: []).isEmpty)
        #expect(!Overview(month: try month(), budget: budget, accounts: [], latest: [booking]).isEmpty)
        let planned = try decode(BudgetMonthReply.self, Self.reply(groups: group))
        #expect(!Overview(month: try month(), budget: planned, accounts: [], latest: []).isEmpty)
        let noted = Overview(
            month: try month(warnings: "[\(Self.rateNotice)]"), budget: budget, accounts: [], latest: [])
        #expect(noted.isIncomplete && noted.notices.count == 1)
        let flagged = try decode(BudgetMonthReply.self, Self.reply(complete: false))
        #expect(Overview(month: try month(), budget: flagged, accounts: [], latest: []).isIncomplete)
        // The same notice in the report and the budget is shown once.
        let both = try decode(BudgetMonthReply.self, Self.reply(warnings: "[\(Self.rateNotice)]"))
        #expect(
            Overview(month: try month(warnings: "[\(Self.rateNotice)]"), budget: both, accounts: [], latest: []).notices
                .count == 1)
    }
}
