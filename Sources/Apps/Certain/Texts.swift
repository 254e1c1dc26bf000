import Foundation

/// Certain's texts: one catalog per language, written line by line with the same key on the same line in
/// both (C-TEXT-1), so a reviewer reads them side by side and a missing translation is a failing test.
public struct Texts: Sendable {
    /// The language these texts are in.
    public let language: Language
    private let entries: [String: String]

    /// The texts of `language`.
    public init(_ language: Language) {
        self.language = language
        entries = Dictionary(
            Texts.lines(of: language).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The text for `key`; a key missing from the catalog shows as the key itself (a test keeps this from
    /// happening, C-TEXT-2).
    public subscript(_ key: String) -> String { entries[key] ?? key }

    /// The text for `key` with `{0}`, `{1}`, … replaced by `arguments`.
    public func format(_ key: String, _ arguments: String...) -> String {
        var text = self[key]
        for (index, argument) in arguments.enumerated() {
            text = text.replacingOccurrences(of: "{\(index)}", with: argument)
        }
        return text
    }

    /// Whether the catalog has `key`.
    public func has(_ key: String) -> Bool { entries[key] != nil }

    /// The catalog of `language` as written: `(line number, key, value)` per non-empty line.
    public static func lines(of language: Language) -> [(line: Int, key: String, value: String)] {
        let source = language == .german ? germanCatalog : englishCatalog
        return source.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            index, line in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            return (index + 1, key, value)
        }
    }

    /// The number of lines in the catalog of `language`, empty ones included.
    public static func lineCount(of language: Language) -> Int {
        (language == .german ? germanCatalog : englishCatalog).split(
            separator: "\n", omittingEmptySubsequences: false
        ).count
    }

    /// Every key the core itself uses (screens, notices, error codes, rhythms); each must be in both catalogs.
    public static let usedKeys: [String] =
        [
            "tab.overview", "tab.budget", "tab.transactions", "tab.contracts", "tab.accounts",
            "overview.month", "overview.income", "overview.expenses", "overview.budget", "overview.accounts",
            "overview.latest", "overview.empty", "budget.planned", "budget.actual", "budget.notices",
            "budget.incomplete",
            "budget.empty", "budget.prev", "budget.next", "notice.contract_without_category",
            "notice.missing_exchange_rate", "notice.unknown", "transactions.search", "transactions.empty",
            "transactions.more", "transfer.row", "transfer.partial", "contracts.monthly_total",
            "contracts.yearly_total", "contracts.next_due", "contracts.empty", "accounts.balance", "accounts.empty",
            "lookup.unknown", "state.loading",
            "state.offline", "state.stale", "state.failed", "state.sign_in", "state.as_of",
            "error.needs_connection", "error.needs_real_sign_in", "error.web_setup",
        ] + Rhythm.allCases.map(\.textKey) + ServerErrorCode.allCases.map(\.textKey)
}
