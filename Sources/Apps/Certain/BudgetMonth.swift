import Foundation

/// A month (`"2026-10"`), as the budget and the month report name them.
public struct BudgetMonth: Sendable, Hashable, Comparable, TextCoded {
    /// The year.
    public let year: Int
    /// The month, 1–12.
    public let month: Int

    /// The month `year-month` (month clamped to 1–12).
    public init(year: Int, month: Int) {
        self.year = year
        self.month = min(12, max(1, month))
    }

    /// Reads `YYYY-MM`; anything else is `nil`.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]),
            let month = Int(parts[1]), (1...12).contains(month)
        else { return nil }
        self.init(year: year, month: month)
    }

    /// The form, for an error sentence.
    public static let form = "a month YYYY-MM"

    /// `2026-10`.
    public var description: String { String(format: "%04d-%02d", year, month) }

    /// German `Oktober 2026`, English `October 2026`.
    public func formatted(_ language: Language) -> String {
        let names = language == .german ? Self.germanNames : Self.englishNames
        return "\(names[month - 1]) \(year)"
    }

    /// Orders by year, then month.
    public static func < (lhs: BudgetMonth, rhs: BudgetMonth) -> Bool { (lhs.year, lhs.month) < (rhs.year, rhs.month) }

    static let germanNames = [
        "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November",
        "Dezember",
    ]
    static let englishNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]
    static let englishShort = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
