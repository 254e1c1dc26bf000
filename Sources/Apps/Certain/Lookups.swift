import Foundation

/// An account from `GET /api/accounts`, with its balance in its own currency (C-ACC-1).
public struct Account: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The name ("Girokonto").
    public let name: String
    /// The kind (`checking`, `savings`, `brokerage`, …), as sent.
    public let kind: String
    /// The account's own currency.
    public let currency: String
    /// The balance, in `currency`.
    public let balance: Amount
    /// Whether the account is archived.
    public let archived: Bool
    /// When the account was created.
    public let createdAt: Date

    /// The balance with its currency.
    public var money: Money { Money(balance, currency) }

    enum CodingKeys: String, CodingKey {
        case id, name, kind, currency, balance, archived
        case createdAt = "created_at"
    }
}

/// What a category's money is: spending, putting aside, or income. Only expense overspending is red (O-5).
public enum CategoryKind: String, Sendable, Hashable, Codable {
    /// Spending.
    case expense
    /// Putting money aside: spending more than planned is not an overrun.
    case savings
    /// Money coming in.
    case income
}

/// A category from `GET /api/categories`, with the group it belongs to.
public struct Category: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The name ("Miete").
    public let name: String
    /// The group's id.
    public let groupID: Int
    /// The group's name ("Wohnen").
    public let groupName: String
    /// Expense, savings or income.
    public let kind: CategoryKind

    enum CodingKeys: String, CodingKey {
        case id, name, kind
        case groupID = "group_id"
        case groupName = "group_name"
    }
}

/// A tag from `GET /api/tags`.
public struct Tag: Sendable, Hashable, Codable, Identifiable {
    /// The server's id.
    public let id: Int
    /// The name ("Fixkosten").
    public let name: String
}

/// The lookups every tab resolves names from (C-LOOK-1, C-LOOK-2): data replies carry ids only, and a
/// screen never fetches a name per row.
public struct Lookups: Sendable, Hashable, Codable {
    /// The accounts, in the server's order.
    public var accounts: [Account]
    /// The categories.
    public var categories: [Category]
    /// The tags.
    public var tags: [Tag]

    /// Lookups holding the given lists.
    public init(accounts: [Account] = [], categories: [Category] = [], tags: [Tag] = []) {
        self.accounts = accounts
        self.categories = categories
        self.tags = tags
    }

    /// The account with `id`, if known.
    public func account(_ id: Int) -> Account? { accounts.first { $0.id == id } }
    /// The category with `id`, if known.
    public func category(_ id: Int) -> Category? { categories.first { $0.id == id } }
    /// The tag with `id`, if known.
    public func tag(_ id: Int) -> Tag? { tags.first { $0.id == id } }

    /// The ids among `accounts`, `categories` and `tags` that these lookups do not know (C-LOOK-4).
    public func unknown(accounts: [Int] = [], categories: [Int] = [], tags: [Int] = []) -> Set<String> {
        var missing = Set<String>()
        for id in accounts where account(id) == nil { missing.insert("account:\(id)") }
        for id in categories where category(id) == nil { missing.insert("category:\(id)") }
        for id in tags where tag(id) == nil { missing.insert("tag:\(id)") }
        return missing
    }

    /// A name for the account `id`, or the neutral placeholder when it stays unknown (C-LOOK-4).
    public func accountName(_ id: Int?, _ texts: Texts) -> String {
        id.flatMap { account($0)?.name } ?? texts["lookup.unknown"]
    }

    /// A name for the category `id`, or the neutral placeholder.
    public func categoryName(_ id: Int?, _ texts: Texts) -> String {
        id.flatMap { category($0)?.name } ?? texts["lookup.unknown"]
    }
}
