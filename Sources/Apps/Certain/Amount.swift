import Foundation

/// An amount of money as the server writes it: a decimal string such as `"250.00"` or `"-12.3456"`, held as a
/// `Decimal` and never as binary floating point, so `"0.10"` + `"0.20"` is exactly `"0.30"` (C-MONEY-1).
///
/// Rules: only the plain form `-?digits[.digits]` is read (no exponent, no grouping, no comma: a comma would be
/// a locale's, and guessing it loses money); a JSON number is refused with a decode error rather than read
/// through `Double`. The number of fraction digits the server sent is kept for the plain text (`description`,
/// at least two); how many a person sees is the currency's (`Money.formatted`, ISO 4217 minor units).
public struct Amount: Sendable, Hashable, Comparable, TextCoded {
    /// The exact value.
    public let value: Decimal
    /// How many fraction digits to show: the server's, and at least two.
    public let scale: Int

    /// Zero, shown with two decimals.
    public static let zero = Amount(Decimal(0))

    /// An amount of `value`, shown with at least two decimals.
    public init(_ value: Decimal, scale: Int = 2) {
        self.value = value
        self.scale = max(2, scale)
    }

    /// Reads the plain decimal form `-?digits[.digits]`; anything else is `nil`.
    public init?(exactly text: String) {
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty,
            whole.allSatisfy(\.isASCIIDigit),
            parts.count == 1 || (!parts[1].isEmpty && parts[1].allSatisfy(\.isASCIIDigit)),
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        self.init(value, scale: parts.count == 2 ? parts[1].count : 0)
    }

    /// Reads the plain decimal form, as ``init(exactly:)``: the text a reply carries (``TextCoded``).
    public init?(_ text: String) { self.init(exactly: text) }

    /// The form, for an error sentence: a JSON number is refused too (the decoder asks for a string).
    public static let form = "a decimal amount such as \"12.30\", written as a string"

    /// The plain text with `scale` fraction digits and `.` as separator: `"-12.3456"`, `"250.00"`.
    public var description: String {
        let (negative, whole, fraction) = digits
        return (negative ? "-" : "") + whole + "." + fraction
    }

    /// Whether the amount is below zero.
    public var isNegative: Bool { value < 0 }

    /// The amount without its sign.
    public var magnitude: Amount { Amount(value < 0 ? -value : value, scale: scale) }

    /// The fraction digits the value needs to be exact: `"12.3400"` needs 2, `"3500.00"` none.
    public var significantScale: Int {
        let (_, _, fraction) = digits(scale: scale)
        return fraction.count - fraction.reversed().prefix { $0 == "0" }.count
    }

    /// The sign, the whole digits and the fraction digits (padded to `scale`).
    var digits: (negative: Bool, whole: String, fraction: String) { digits(scale: scale) }

    /// The sign, the whole digits and exactly `scale` fraction digits (rounded half-even only when `scale` is
    /// below ``significantScale``, which a caller showing money never asks for).
    func digits(scale: Int) -> (negative: Bool, whole: String, fraction: String) {
        var rounded = Decimal()
        var source = value
        NSDecimalRound(&rounded, &source, scale, .bankers)
        let negative = rounded < 0
        let text = (negative ? -rounded : rounded).description
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts.first.map(String.init) ?? "0"
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        if fraction.count < scale { fraction += String(repeating: "0", count: scale - fraction.count) }
        return (negative, whole.isEmpty ? "0" : whole, fraction)
    }

    /// The exact sum; shows as many decimals as the longer of the two.
    public static func + (lhs: Amount, rhs: Amount) -> Amount {
        Amount(lhs.value + rhs.value, scale: max(lhs.scale, rhs.scale))
    }

    /// Orders by value.
    public static func < (lhs: Amount, rhs: Amount) -> Bool { lhs.value < rhs.value }

    /// Equal when the values are equal, whatever the number of decimals sent (`"1.5"` == `"1.50"`).
    public static func == (lhs: Amount, rhs: Amount) -> Bool { lhs.value == rhs.value }

    /// Hashes the value only, matching `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
