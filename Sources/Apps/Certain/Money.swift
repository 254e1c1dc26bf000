import Foundation

/// An amount with its ISO 4217 currency, as every Certain reply pairs them (`"amount"` and `"currency"`).
public struct Money: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The exact amount.
    public var amount: Amount
    /// The ISO 4217 code (`EUR`, `USD`).
    public var currency: String

    /// Pairs `amount` with `currency`.
    public init(_ amount: Amount, _ currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// The plain form for logs and tests: `-12.3456 USD`.
    public var description: String { "\(amount) \(currency)" }

    /// The same money without its sign (a transfer row shows no sign, C-XFER-8).
    public var magnitude: Money { Money(amount.magnitude, currency) }

    /// How many fraction digits the amount shows: the currency's ISO 4217 minor units (JPY 0, EUR 2, TND 3),
    /// more only where the amount has more digits that are not zero (a four-decimal USD share price), so
    /// nothing the server sent is ever rounded away.
    public var shownScale: Int { max(CurrencyUnits.minorUnits(of: currency), amount.significantScale) }

    /// The amount as a person reads it in `language`, with the currency's minor units (``shownScale``):
    /// German `-1.234,56 €`, `-3.500 ¥`; English `-€1,234.56`, `-¥3,500`. `signed: false` drops the minus.
    ///
    /// Hand-written rather than a locale formatter: the output must be the same on every platform and OS
    /// version (tests compare it), and a formatter would round a four-decimal USD amount to cents.
    public func formatted(_ language: Language, signed: Bool = true) -> String {
        let (negative, whole, fraction) = amount.digits(scale: shownScale)
        let grouped = Self.group(whole, separator: language == .german ? "." : ",")
        let number = fraction.isEmpty ? grouped : grouped + (language == .german ? "," : ".") + fraction
        let sign = signed && negative ? "-" : ""
        let symbol = Self.symbols[currency] ?? currency
        switch language {
        case .german: return sign + number + "\u{00A0}" + symbol
        case .english:
            return Self.symbols[currency] == nil ? sign + currency + "\u{00A0}" + number : sign + symbol + number
        }
    }

    /// Currency symbols both languages share; other codes are written as the code.
    static let symbols = ["EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"]

    /// `1234567` → `1.234.567` with `separator`.
    static func group(_ digits: String, separator: String) -> String {
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += separator }
            out.append(character)
        }
        return out
    }
}
