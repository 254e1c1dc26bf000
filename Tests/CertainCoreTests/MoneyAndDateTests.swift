import CertainCore
import Foundation
import Testing

@Suite struct MoneyAndDateTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test("C-MONEY-1: \"0.10\" + \"0.20\" is exactly \"0.30\", never through binary floating point")
    func decimalStringsAddExactly() throws {
        let a = try #require(Amount(exactly: "0.10"))
        let b = try #require(Amount(exactly: "0.20"))
        #expect(a + b == Amount(exactly: "0.30"))
        #expect((a + b).description == "0.30")
        // Digits a binary floating-point number cannot hold: read, added and written back exactly.
        let big = try #require(Amount(exactly: "12345678901234567.89"))
        #expect(big.description == "12345678901234567.89")
        #expect((big + (try #require(Amount(exactly: "0.01")))).description == "12345678901234567.90")
        #expect(try decode([Amount].self, #"["9007199254740993.01"]"#).first?.description == "9007199254740993.01")
        let decoded = try decode([Amount].self, #"["0.10", "-12.3456", "250", "1000000.01"]"#)
        #expect(decoded.map(\.description) == ["0.10", "-12.3456", "250.00", "1000000.01"])
    }

    @Test("C-MONEY-1: an amount without its sign keeps every digit, below one as above (a transfer row's amount)")
    func magnitudeDropsOnlyTheSign() throws {
        for (text, magnitude) in [("-0.50", "0.50"), ("0.50", "0.50"), ("-12.3456", "12.3456"), ("0.00", "0.00")] {
            let amount = try #require(Amount(exactly: text))
            #expect(amount.magnitude.description == magnitude, "\(text)")
            #expect(!amount.magnitude.isNegative, "\(text)")
        }
    }

    @Test("C-MONEY-1 C-ERR-3: a number or a localised amount is a decode error naming its path")
    func amountsMustBePlainDecimalStrings() {
        #expect(throws: DecodingError.self) { try decode([Amount].self, "[0.1]") }
        for text in ["1,50", "1e3", "", "-", "1.", ".5", "1.2.3", " 1"] {
            #expect(Amount(exactly: text) == nil, "\(text)")
        }
        do {
            _ = try decode([String: Amount].self, #"{"balance": "12,30"}"#)
            Issue.record("a comma amount decoded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["balance"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("C-MONEY-1 C-ACC-1: German and English formats, every decimal the server sent")
    func moneyFormatsForGermanAndEnglish() throws {
        let rent = Money(try #require(Amount(exactly: "-1234.5")), "EUR")
        #expect(rent.formatted(.german) == "-1.234,50\u{00A0}€")
        #expect(rent.formatted(.english) == "-€1,234.50")
        #expect(rent.formatted(.german, signed: false) == "1.234,50\u{00A0}€")
        let share = Money(try #require(Amount(exactly: "-12.3456")), "USD")
        #expect(share.formatted(.german) == "-12,3456\u{00A0}$")
        #expect(share.formatted(.english) == "-$12.3456")
        let franc = Money(try #require(Amount(exactly: "1000000")), "CHF")
        #expect(franc.formatted(.german) == "1.000.000,00\u{00A0}CHF")
        #expect(franc.formatted(.english) == "CHF\u{00A0}1,000,000.00")
    }

    @Test("C-MONEY-1: each currency shows its ISO 4217 minor units (JPY 0, EUR 2, TND 3), never losing a digit")
    func minorUnitsOfTheCurrency() throws {
        func money(_ text: String, _ currency: String) throws -> Money {
            Money(try #require(Amount(exactly: text)), currency)
        }
        #expect(try money("-31039", "JPY").formatted(.english) == "-¥31,039")
        #expect(try money("-31039.00", "JPY").formatted(.german) == "-31.039\u{00A0}¥")
        #expect(try money("250", "EUR").formatted(.german) == "250,00\u{00A0}€")
        #expect(try money("1.5", "EUR").formatted(.english) == "€1.50")
        #expect(try money("12.5", "TND").formatted(.german) == "12,500\u{00A0}TND")
        #expect(try money("-0.125", "TND").formatted(.english) == "-TND\u{00A0}0.125")
        #expect(try money("1234.5", "KRW").formatted(.english) == "KRW\u{00A0}1,234.5")  // a fraction is kept
        #expect(try money("-12.3456", "USD").formatted(.english) == "-$12.3456")
        #expect(CurrencyUnits.minorUnits(of: "jpy") == 0 && CurrencyUnits.minorUnits(of: "XYZ") == 2)
        // ISO 4217's list of minor units other than two, written out from the standard (not from the table).
        let iso4217: [Int: [String]] = [
            0: [
                "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
                "XOF", "XPF",
            ],
            3: ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"],
            4: ["CLF", "UYW"],
        ]
        for (units, codes) in iso4217 {
            for code in codes { #expect(CurrencyUnits.minorUnits(of: code) == units, "\(code)") }
        }
        for code in ["EUR", "USD", "CHF", "GBP", "SEK"] { #expect(CurrencyUnits.minorUnits(of: code) == 2, "\(code)") }
        // The amount's own text (and JSON) stays the server's decimal string.
        #expect(try money("-31039", "JPY").amount.description == "-31039.00")
    }

    @Test("C-TIME-3: booked_on 2026-10-14 shows 14 October in every device time zone")
    func calendarDatesNeverShift() throws {
        let date = try decode([CalendarDate].self, #"["2026-10-14"]"#)[0]
        let zones = ["Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Los_Angeles", "Europe/Berlin", "Asia/Tokyo"]
        for zone in zones {
            // Nothing in a day's path reads the zone; run with it set anyway.
            setenv("TZ", zone, 1)
            tzset()
            #expect(date.formatted(.german) == "14.10.2026")
            #expect(date.formatted(.english) == "14 Oct 2026")
            #expect(date.description == "2026-10-14")
        }
        unsetenv("TZ")
        tzset()
        #expect(CalendarDate("2026-02-29") == nil)
        #expect(CalendarDate("2028-02-29") != nil)
        // The Gregorian leap years: every fourth year, not a century's unless it is a 400th.
        for leap in ["2024", "2000", "2400", "1996"] { #expect(CalendarDate("\(leap)-02-29") != nil, "\(leap)") }
        for common in ["2027", "2025", "2100", "1900", "2023"] {
            #expect(CalendarDate("\(common)-02-29") == nil, "\(common)")
            #expect(CalendarDate("\(common)-02-28") != nil, "\(common)")
        }
        #expect(CalendarDate("2026-04-31") == nil && CalendarDate("2026-04-30") != nil)
        #expect(CalendarDate("2026-12-31") != nil && CalendarDate("2026-12-32") == nil)
        #expect(CalendarDate("2026-10-14T00:00:00") == nil)
        // Only the form YYYY-MM-DD: a month or day of one or three digits is refused, as a year of three or five.
        for text in ["2026-1-05", "2026-001-05", "2026-10-5", "2026-10-005", "226-10-05", "02026-10-05"] {
            #expect(CalendarDate(text) == nil, "\(text)")
        }
        #expect(throws: DecodingError.self) { try decode([CalendarDate].self, #"["14.10.2026"]"#) }
    }

    @Test("C-TIME-3: today is taken once from the device's zone; the same instant is another day elsewhere")
    func todayUsesTheGivenZone() throws {
        let instant = Date(timeIntervalSince1970: 1_791_936_000)  // 2026-10-14T00:00:00Z
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let losAngeles = try #require(TimeZone(identifier: "America/Los_Angeles"))
        #expect(CalendarDate.today(instant, in: berlin).description == "2026-10-14")
        #expect(CalendarDate.today(instant, in: losAngeles).description == "2026-10-13")
    }

    @Test("C-BUD-2: a month is read and written as YYYY-MM, and named in both languages")
    func budgetMonths() throws {
        let month = try #require(BudgetMonth("2026-10"))
        #expect(month.formatted(.german) == "Oktober 2026")
        #expect(month.formatted(.english) == "October 2026")
        #expect(BudgetMonth("2026-13") == nil)
        #expect(try #require(BudgetMonth("2026-08")) < month)
    }
}
