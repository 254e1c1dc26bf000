import Foundation

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
