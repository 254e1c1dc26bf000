import Foundation

/// A calendar day as the server writes it (`"2026-10-14"`): `booked_on`, `next_due`, a warning's `date`.
///
/// Rule (C-TIME-3): a day is three numbers, never an instant. It is never turned into a `Date` and back, so no
/// device time zone can move 14 October to the 13th; it sorts and prints from its own fields.
public struct CalendarDate: Sendable, Hashable, Comparable, TextCoded {
    /// The year (0000–9999).
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month, checked against the month's length.
    public let day: Int

    /// The day `year-month-day`, or `nil` when it does not exist (30 February).
    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
            (1...CalendarDate.length(of: month, in: year)).contains(day)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// Reads `YYYY-MM-DD` exactly; anything else is `nil`.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The form, for an error sentence.
    public static let form = "a date YYYY-MM-DD"

    /// `2026-10-14`.
    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    /// The month the day lies in.
    public var budgetMonth: BudgetMonth { BudgetMonth(year: year, month: month) }

    /// The day as a person reads it: German `14.10.2026`, English `14 Oct 2026`.
    public func formatted(_ language: Language) -> String {
        switch language {
        case .german: String(format: "%02d.%02d.%04d", day, month, year)
        case .english: "\(day) \(BudgetMonth.englishShort[month - 1]) \(year)"
        }
    }

    /// Today in `timeZone` (the device's), read once from `now`: the one place an instant becomes a day.
    public static func today(_ now: Date, in timeZone: TimeZone) -> CalendarDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        // A calendar's components always name an existing day.
        return CalendarDate(calendarYear: parts.year ?? 2000, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// A day taken from `Calendar`, which only produces existing days.
    private init(calendarYear year: Int, month: Int, day: Int) {
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// Orders by year, month, day.
    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Days in `month` of `year` (Gregorian leap years).
    static func length(of month: Int, in year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
