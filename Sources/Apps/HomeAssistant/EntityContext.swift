import CompanionCore
import Foundation

/// What caused a state: Home Assistant's context (`{"id","parent_id","user_id"}`).
public struct EntityContext: Sendable, Hashable, Codable {
    /// The context's id (a ULID).
    public var id: String
    /// The context that caused this one, if any.
    public var parentID: String?
    /// The user who caused it, if a user did.
    public var userID: String?

    /// Creates a context.
    public init(id: String, parentID: String? = nil, userID: String? = nil) {
        self.id = id
        self.parentID = parentID
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case id
        case parentID = "parent_id"
        case userID = "user_id"
    }

    /// Reads `c` of an added entity or the `context` of a state (H-ENT-2): a string is the id with no parent and
    /// no user; an object is taken as it is. `nil` for anything else.
    init?(json: JSONValue?) {
        switch json {
        case .string(let id)?:
            self.init(id: id)
        case .object(let fields)?:
            guard case .string(let id)? = fields["id"] else { return nil }
            self.init(id: id, parentID: fields["parent_id"]?.stringValue, userID: fields["user_id"]?.stringValue)
        default:
            return nil
        }
    }

    /// Applies a change's context (H-ENT-5): a string replaces only the id; an object replaces the keys it names
    /// (a `null` clears that key) and keeps the others. `EntityChange` reads only these two kinds (an object's
    /// `id`, when present, a string), so no other value reaches here.
    mutating func apply(_ change: JSONValue) {
        switch change {
        case .string(let id):
            self.id = id
        case .object(let fields):
            if case .string(let id)? = fields["id"] { self.id = id }
            if let value = fields["parent_id"] { parentID = value.stringValue }
            if let value = fields["user_id"] { userID = value.stringValue }
        default:
            break
        }
    }
}
