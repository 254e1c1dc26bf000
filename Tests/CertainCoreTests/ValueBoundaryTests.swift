import CertainCore
import Foundation
import Testing

/// Exact values at the edges of the core's pure types: each assertion here fails when one character of the rule
/// it cites is changed (a bound one past its limit, a sign read twice, a wire name).
@Suite struct ValueBoundaryTests {
    @Test("C-MONEY-1: zero is exactly 0.00; a leading plus is read as the amount, any other character refused")
    func amountEdges() throws {
        #expect(Amount.zero.value == 0 && Amount.zero.description == "0.00" && !Amount.zero.isNegative)
        let plus = try #require(Amount(exactly: "+12.30"))
        #expect(plus.description == "12.30" && plus == Amount(exactly: "12.3"))
        for text in ["12a", "1a.00", "1.0a", "a1", "+-1", "--1", "1 .00", "١٢"] {
            #expect(Amount(exactly: text) == nil, "\(text)")
        }
        // A negative amount below one, and the sum's scale: the longer of the two.
        #expect(try #require(Amount(exactly: "-0.01")).isNegative)
        #expect(try #require(Amount(exactly: "-0.01")).magnitude.description == "0.01")
        let long = try #require(Amount(exactly: "1.125"))
        #expect((long + Amount.zero).description == "1.125")
        #expect(Amount(Decimal(string: "7", locale: Locale(identifier: "en_US_POSIX")) ?? 0).description == "7.00")
        #expect(Amount(Decimal(1), scale: 3).description == "1.000")
    }

    @Test("C-MONEY-1: a currency's own digits: trailing zeros beyond them are dropped, others kept")
    func shownScaleOfMoney() throws {
        func money(_ text: String, _ currency: String) throws -> Money {
            Money(try #require(Amount(exactly: text)), currency)
        }
        #expect(try money("12.3400", "EUR").shownScale == 2)
        #expect(try money("12.3450", "EUR").shownScale == 3)
        #expect(try money("12.3400", "EUR").formatted(.german) == "12,34\u{00A0}€")
        #expect(try money("3500.00", "JPY").shownScale == 0)
        #expect(try money("0", "EUR").formatted(.english) == "€0.00")
        #expect(try money("-0.5", "GBP").formatted(.english) == "-£0.50")
        #expect(try money("-0.5", "GBP").formatted(.english, signed: false) == "£0.50")
        #expect(try money("999", "EUR").formatted(.german) == "999,00\u{00A0}€")
        #expect(try money("1000", "EUR").formatted(.german) == "1.000,00\u{00A0}€")
        #expect(try money("123456", "USD").formatted(.english) == "$123,456.00")
        #expect(try money("-1.5", "EUR").description == "-1.50 EUR")
        #expect(try money("-1.5", "EUR").magnitude.description == "1.50 EUR")
    }

    @Test("C-TIME-3: every month's last day exists and the day after it does not; year 0000 to 9999")
    func monthLengths() {
        let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for (index, length) in lengths.enumerated() {
            let month = String(format: "%02d", index + 1)
            #expect(CalendarDate("2026-\(month)-01") != nil, "\(month)")
            #expect(CalendarDate("2026-\(month)-\(length)") != nil, "\(month)-\(length)")
            #expect(CalendarDate("2026-\(month)-\(length + 1)") == nil, "\(month)-\(length + 1)")
            #expect(CalendarDate(year: 2026, month: index + 1, day: length)?.day == length)
        }
        #expect(CalendarDate("2024-02-29") != nil && CalendarDate("2024-02-30") == nil)
        #expect(CalendarDate("2026-02-00") == nil && CalendarDate("2026-00-10") == nil)
        #expect(CalendarDate("0000-01-01")?.description == "0000-01-01")
        #expect(CalendarDate("9999-12-31")?.description == "9999-12-31")
        #expect(CalendarDate(year: 10000, month: 1, day: 1) == nil && CalendarDate(year: -1, month: 1, day: 1) == nil)
        // Only ASCII digits between single dashes.
        for text in ["2026--10-14", "2026-+1-14", "+202-10-14", "2026-10-1a", "2026-10-14-"] {
            #expect(CalendarDate(text) == nil, "\(text)")
        }
        let day = CalendarDate("2026-01-05")
        #expect(day?.year == 2026 && day?.month == 1 && day?.day == 5)
        #expect(day?.formatted(.english) == "5 Jan 2026" && day?.formatted(.german) == "05.01.2026")
        #expect(CalendarDate("2026-12-31")?.formatted(.english) == "31 Dec 2026")
        #expect(CalendarDate("2026-10-14")?.budgetMonth == BudgetMonth("2026-10"))
    }

    @Test("C-TIME-3: days order by year, then month, then day; a day is not before itself")
    func dayOrder() throws {
        let day = try #require(CalendarDate("2026-10-14"))
        #expect(!(day < day))
        #expect(try #require(CalendarDate("2026-10-13")) < day)
        #expect(try #require(CalendarDate("2026-09-30")) < day)
        #expect(try #require(CalendarDate("2025-12-31")) < day)
        let before = try #require(CalendarDate("2026-10-13"))
        #expect(!(day < before))
    }

    @Test("C-BUD-2: a month is YYYY-MM from January to December, nothing else; names for every month")
    func monthEdges() throws {
        #expect(BudgetMonth("2026-01")?.month == 1 && BudgetMonth("2026-01")?.year == 2026)
        #expect(BudgetMonth("2026-12")?.description == "2026-12")
        for text in ["2026-00", "2026-13", "2026--10", "2026-1", "2026-010", "226-10", "2026-10-01", "2026"] {
            #expect(BudgetMonth(text) == nil, "\(text)")
        }
        #expect(BudgetMonth(year: 2026, month: 12).month == 12 && BudgetMonth(year: 2026, month: 2).month == 2)
        #expect(BudgetMonth(year: 2026, month: 1).formatted(.german) == "Januar 2026")
        #expect(BudgetMonth(year: 2026, month: 12).formatted(.english) == "December 2026")
        let month = try #require(BudgetMonth("2026-10"))
        let january = try #require(BudgetMonth("2027-01"))
        #expect(!(month < month) && month < january)
    }

    @Test("C-TEXT-3: a bare language tag counts, first one wins; the Accept-Language header follows the language")
    func languageTags() {
        #expect(Language.resolve(preferred: ["de", "en"]) == .german)
        #expect(Language.resolve(preferred: ["en", "de"]) == .english)
        #expect(Language.resolve(preferred: ["EN_gb", "de"]) == .english)
        #expect(Language.resolve(preferred: ["deu", "en"]) == .english, "deu is not de")
        #expect(Language.resolve(preferred: ["eng", "fr"]) == .german, "eng is not en")
        #expect(Language.german.rawValue == "de" && Language.english.rawValue == "en")
        #expect(Language.german.acceptLanguage == "de-DE, de;q=0.9")
        #expect(Language.english.acceptLanguage == "en-US, en;q=0.9")
    }

    @Test("C-TEXT-2 C-ERR-2: the server's error codes are read by their exact wire names")
    func serverErrorCodeWireNames() {
        #expect(
            ServerErrorCode.allCases.map(\.rawValue) == [
                "not_authenticated", "invalid_credentials", "invalid_code", "session_expired", "token_revoked",
                "password_change_required", "mfa_setup_required", "token_cannot_mint", "cookie_required",
                "not_found", "weak_password", "idempotency_key_reused",
            ])
        #expect(ServerErrorCode.tokenRevoked.textKey == "code.token_revoked")
        // C-TEXT-1: line numbers count from 1, up to the catalog's last line.
        for language in Language.allCases {
            #expect(Texts.lines(of: language).first?.line == 1)
            #expect(Texts.lines(of: language).last?.line == Texts.lineCount(of: language))
        }
    }

    @Test("C-TOK-10: a token's name is cut at the server's 200 characters, and a name of exactly 200 is kept whole")
    func tokenNameLimit() {
        let long = TokenName.make(device: String(repeating: "x", count: 300))
        #expect(long.count == 200 && long.hasPrefix("Certain für iOS (x"))
        let app = String(repeating: "a", count: 200)
        #expect(TokenName.make(app: app, device: "") == app)
        #expect(TokenName.make(app: "A", device: " Pixel ") == "A (Pixel)")
    }
}
