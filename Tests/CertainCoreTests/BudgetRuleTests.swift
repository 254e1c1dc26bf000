import CertainCore
import Foundation
import Testing

@Suite struct BudgetRuleTests {
    func line(_ kind: CategoryKind, planned: String, actual: String) -> BudgetCategory {
        BudgetCategory(
            categoryID: 1, kind: kind, planned: Amount(exactly: planned) ?? .zero,
            actual: Amount(exactly: actual) ?? .zero)
    }

    @Test("C-BUD-3: expense actual > planned is red, actual <= planned is not, planned 0 and actual > 0 is red")
    func expenseOverrunIsRed() {
        #expect(line(.expense, planned: "900.00", actual: "950.00").isRed)
        #expect(!line(.expense, planned: "900.00", actual: "900.00").isRed)
        #expect(!line(.expense, planned: "900.00", actual: "12.00").isRed)
        #expect(line(.expense, planned: "0.00", actual: "0.01").isRed)
    }

    @Test("C-BUD-4: savings with actual > planned is not red")
    func savingMoreIsNotRed() {
        #expect(!line(.savings, planned: "300.00", actual: "450.00").isRed)
    }

    @Test("C-BUD-5: income is never red")
    func incomeIsNeverRed() {
        #expect(!line(.income, planned: "3000.00", actual: "10.00").isRed)
        #expect(!line(.income, planned: "3000.00", actual: "3200.00").isRed)
    }

    @Test("C-BUD-6 O-5: a group is red iff its expense categories' actual sum exceeds their planned sum")
    func groupRedBySummedExpenses() {
        func group(_ lines: [BudgetCategory]) -> BudgetGroup {
            BudgetGroup(id: 1, name: "Wohnen", planned: .zero, actual: .zero, categories: lines)
        }
        // 900/950 over by 50, 100/40 under by 60: made up → category red, group not.
        let madeUp = group([
            line(.expense, planned: "900.00", actual: "950.00"), line(.expense, planned: "100.00", actual: "40.00"),
        ])
        #expect(madeUp.categories[0].isRed)
        #expect(!madeUp.isRed)
        // The example of the reference reply: Miete 900/950 and savings 300/300 → red (savings do not count).
        #expect(
            group([
                line(.expense, planned: "900.00", actual: "950.00"),
                line(.savings, planned: "300.00", actual: "300.00"),
            ]).isRed)
        // Savings far over plan cannot make a group red, nor income under plan.
        #expect(
            !group([line(.savings, planned: "1.00", actual: "999.00"), line(.income, planned: "9.00", actual: "0.00")])
                .isRed)
    }

    @Test("C-BUD-1 C-BUD-7 C-BUD-8 C-BUD-9 C-ERR-3: the reference reply decodes as sent, with its notices")
    func referenceBudgetReplyDecodes() throws {
        let json = #"""
            {"month":"2026-10","currency":"EUR","prev":"/api/budget?month=2026-08","next":null,
             "groups":[{"id":1,"name":"Wohnen","planned":"1200.00","actual":"1250.00",
                        "categories":[{"category_id":3,"kind":"expense","planned":"900.00","actual":"950.00"},
                                      {"category_id":9,"kind":"savings","planned":"300.00","actual":"300.00"}]}],
             "warnings":[{"code":"contract_without_category","contract_id":4,"name":"Fitnessstudio","amount":"29.90","currency":"EUR"},
                         {"code":"missing_exchange_rate","currency":"USD","date":"2026-10-12","transaction_ids":[812]},
                         {"code":"something_new","extra":1}],
             "complete":false, "unknown_extra_field": true}
            """#
        let reply = try JSONDecoder().decode(BudgetMonthReply.self, from: Data(json.utf8))
        #expect(reply.prev == "/api/budget?month=2026-08")
        #expect(reply.next == nil)
        #expect(reply.previousMonth == BudgetMonth(year: 2026, month: 8))  // the label reads the link's month
        #expect(reply.nextMonth == nil)
        #expect(reply.groups[0].planned.description == "1200.00")  // C-BUD-10: the server's sums, as sent
        #expect(reply.groups[0].categories.map(\.actual.description) == ["950.00", "300.00"])
        #expect(reply.isIncomplete)
        let german = Texts(.german)
        let english = Texts(.english)
        #expect(reply.warnings[0].text(german).contains("Fitnessstudio"))
        #expect(reply.warnings[0].text(german).contains("29,90\u{00A0}€"))
        #expect(reply.warnings[1].text(english).contains("USD"))
        #expect(reply.warnings[1].text(english).contains("12 Oct 2026"))
        #expect(reply.warnings[2] == .other(code: "something_new"))
        let clean =
            #"{"month":"2026-11","currency":"EUR","prev":null,"next":null,"groups":[],"warnings":[],"complete":true}"#
        let empty = try JSONDecoder().decode(BudgetMonthReply.self, from: Data(clean.utf8))
        #expect(!empty.isIncomplete)
        #expect(empty.isEmpty)
    }

    @Test("C-BUD-10: a group shows the server's sums, even where its categories add up to something else")
    func groupSumsAreTheServers() throws {
        // The server's group sum counts what the listed categories do not (1030 + 170 of an unlisted plan).
        let json = #"""
            {"id":1,"name":"Wohnen","planned":"1200.00","actual":"1250.00",
             "categories":[{"category_id":3,"kind":"expense","planned":"900.00","actual":"950.00"},
                           {"category_id":9,"kind":"savings","planned":"130.00","actual":"100.00"}]}
            """#
        let group = try JSONDecoder().decode(BudgetGroup.self, from: Data(json.utf8))
        #expect(group.planned.description == "1200.00" && group.actual.description == "1250.00")
        #expect(Money(group.planned, "EUR").formatted(.german) == "1.200,00\u{00A0}€")
        let listed = group.categories.map(\.planned).reduce(Amount.zero, +)
        #expect(listed.description == "1030.00" && group.planned != listed)
        // The red mark compares; it shows no sum: 950 spent against 900 planned is red.
        #expect(group.isRed)
        let encoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(group)) as? [String: Any]
        #expect(encoded?["planned"] as? String == "1200.00" && encoded?["actual"] as? String == "1250.00")
    }

    @Test("C-ERR-3: a missing required field is a decode error naming its path")
    func missingFieldNamesItsPath() {
        let json =
            #"{"month":"2026-10","currency":"EUR","prev":null,"next":null,"groups":[{"id":1,"name":"x","planned":"1.00","actual":"1.00","categories":[{"category_id":3,"planned":"1.00","actual":"1.00"}]}],"warnings":[],"complete":true}"#
        do {
            _ = try JSONDecoder().decode(BudgetMonthReply.self, from: Data(json.utf8))
            Issue.record("decoded without a kind")
        } catch let DecodingError.keyNotFound(key, context) {
            #expect(key.stringValue == "kind")
            #expect(context.codingPath.map(\.stringValue) == ["groups", "Index 0", "categories", "Index 0"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("C-CON-1 C-CON-2 C-CON-3 O-11: contracts decode with rhythm, next due and the server's sums")
    func contractsDecode() throws {
        let json = #"""
            {"currency":"EUR","monthly_total":"131.40","yearly_total":"1576.80","warnings":[],
             "items":[{"id":4,"name":"Fitnessstudio","amount":"29.90","currency":"EUR","rhythm":"monthly","next_due":"2026-11-01",
                       "category_id":null,"account_id":1,"monthly":"29.90","yearly":"358.80"},
                      {"id":5,"name":"Putzhilfe","amount":"45.00","currency":"EUR","rhythm":"half_yearly","next_due":"2026-12-04",
                       "category_id":2,"account_id":1,"monthly":"7.50","yearly":"90.00"}]}
            """#
        let list = try JSONDecoder().decode(ContractList.self, from: Data(json.utf8))
        #expect(list.monthlyTotal.description == "131.40")
        #expect(list.yearlyTotal.description == "1576.80")
        #expect(list.items[0].categoryID == nil)
        #expect(list.items[0].nextDue.formatted(.german) == "01.11.2026")
        #expect(list.items[1].rhythm == .halfYearly)
        #expect(Rhythm.allCases.map(\.periodsPerYear) == [52, 12, 4, 2, 1])
        #expect(Texts(.german)[Rhythm.halfYearly.textKey] == "halbjährlich")
    }
}
