import Foundation

/// The lookups every tab resolves names from (C-LOOK-1, C-LOOK-2): data replies carry ids only, and a
/// screen never fetches a name per row. An id the lookups do not know shows as the neutral placeholder
/// (`lookup.unknown`, C-LOOK-4), never as a number and never as a request.
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

    /// The names of the tags `ids`, in the transaction's order, each unknown one as the neutral placeholder.
    public func tagNames(_ ids: [Int], _ texts: Texts) -> [String] {
        ids.map { tag($0)?.name ?? texts["lookup.unknown"] }
    }
}
