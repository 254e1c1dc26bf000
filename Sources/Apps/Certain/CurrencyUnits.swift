/// The minor units of ISO 4217 currencies: how many fraction digits an amount in that currency shows.
///
/// Rule: most currencies have two (EUR, USD, CHF); the ones listed here differ (ISO 4217's list of minor
/// units): no fraction for the yen, the won or the Iceland króna, three for the Tunisian dinar and the Gulf
/// dinars, four for the Chilean and Uruguayan units of account. A code this table does not know (or one that is
/// not a currency) gets two.
public enum CurrencyUnits {
    /// The minor units of `code` (upper case, as the server sends it).
    public static func minorUnits(of code: String) -> Int { exceptions[code.uppercased()] ?? 2 }

    static let exceptions: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
        "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]
}
