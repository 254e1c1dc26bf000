import Foundation

/// The two languages Certain's texts exist in. German is the base language.
public enum Language: String, Sendable, Hashable, CaseIterable, Codable {
    /// German, the base language.
    case german = "de"
    /// English.
    case english = "en"

    /// The language for a device whose preferred languages are `preferred` (BCP 47 tags, most preferred first):
    /// the first that is German or English; none of them → German (C-TEXT-3).
    public static func resolve(preferred: [String]) -> Language {
        for tag in preferred {
            let lower = tag.lowercased()
            if lower == "de" || lower.hasPrefix("de-") || lower.hasPrefix("de_") { return .german }
            if lower == "en" || lower.hasPrefix("en-") || lower.hasPrefix("en_") { return .english }
        }
        return .german
    }

    /// The `Accept-Language` value sent with every request, so the server's sentences match the app's.
    public var acceptLanguage: String { self == .german ? "de-DE, de;q=0.9" : "en-US, en;q=0.9" }
}
