import Foundation

/// A notice under a budget month (or the contracts): something left out of the sums, named instead of hidden.
public enum BudgetNotice: Sendable, Hashable, Codable {
    /// A contract without a category: named, and in no category or group sum (C-BUD-7).
    case contractWithoutCategory(contractID: Int, name: String, amount: Money)
    /// Amounts in `currency` on `date` with no exchange rate: left out of the sums, never converted 1:1 (C-BUD-8).
    /// The transactions it names (§2's `transaction_ids`) and the contracts (`contract_ids`, a shape a server may
    /// send under the contracts), each kind of id for what it is; either may be empty.
    case missingExchangeRate(currency: String, date: CalendarDate, transactionIDs: [Int], contractIDs: [Int] = [])
    /// A notice this version does not know, kept with its code so nothing is hidden.
    case other(code: String)

    enum CodingKeys: String, CodingKey {
        case code, name, amount, currency, date
        case contractID = "contract_id"
        case transactionIDs = "transaction_ids"
        case contractIDs = "contract_ids"
    }

    /// Decodes a server warning by its `code`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let code = try container.decode(String.self, forKey: .code)
        switch code {
        case "contract_without_category":
            self = .contractWithoutCategory(
                contractID: try container.decode(Int.self, forKey: .contractID),
                name: try container.decode(String.self, forKey: .name),
                amount: Money(
                    try container.decode(Amount.self, forKey: .amount),
                    try container.decode(String.self, forKey: .currency)))
        case "missing_exchange_rate":
            self = .missingExchangeRate(
                currency: try container.decode(String.self, forKey: .currency),
                date: try container.decode(CalendarDate.self, forKey: .date),
                transactionIDs: try container.decodeIfPresent([Int].self, forKey: .transactionIDs) ?? [],
                contractIDs: try container.decodeIfPresent([Int].self, forKey: .contractIDs) ?? [])
        default:
            self = .other(code: code)
        }
    }

    /// Encodes the server's shape: a missing rate always with `transaction_ids`, with `contract_ids` when it
    /// names contracts.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .contractWithoutCategory(let id, let name, let amount):
            try container.encode("contract_without_category", forKey: .code)
            try container.encode(id, forKey: .contractID)
            try container.encode(name, forKey: .name)
            try container.encode(amount.amount, forKey: .amount)
            try container.encode(amount.currency, forKey: .currency)
        case .missingExchangeRate(let currency, let date, let transactions, let contracts):
            try container.encode("missing_exchange_rate", forKey: .code)
            try container.encode(currency, forKey: .currency)
            try container.encode(date, forKey: .date)
            try container.encode(transactions, forKey: .transactionIDs)
            if !contracts.isEmpty { try container.encode(contracts, forKey: .contractIDs) }
        case .other(let code):
            try container.encode(code, forKey: .code)
        }
    }

    /// The sentence a person reads.
    public func text(_ texts: Texts) -> String {
        switch self {
        case .contractWithoutCategory(_, let name, let amount):
            texts.format("notice.contract_without_category", name, amount.formatted(texts.language))
        case .missingExchangeRate(let currency, let date, _, _):
            texts.format("notice.missing_exchange_rate", currency, date.formatted(texts.language))
        case .other(let code): texts.format("notice.unknown", code)
        }
    }
}
