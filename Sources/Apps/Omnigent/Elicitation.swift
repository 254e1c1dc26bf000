import CompanionCore
import Foundation

/// A pending approval request (an elicitation) on a session.
public struct Elicitation: Codable, Sendable, Hashable, Identifiable {
    /// Its id.
    public var id: String
    /// Its kind; only `form` ones with an empty schema resolve with a plain accept/decline (O-WATCH-5).
    public var kind: String?
    /// The question shown to the person.
    public var message: String?
    /// The requested form schema, if any.
    public var schema: JSONValue?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, message, schema
        case kind = "type"
    }

    /// Creates an elicitation.
    public init(id: String, kind: String? = nil, message: String? = nil, schema: JSONValue? = nil) {
        self.id = id
        self.kind = kind
        self.message = message
        self.schema = schema
    }

    /// Whether a plain accept or decline resolves it (a `form` with an empty schema).
    public var isSimpleApproval: Bool {
        guard kind == nil || kind == "form" else { return false }
        switch schema {
        case nil, .null: return true
        case .object(let members): return members.isEmpty || (members["properties"]?.objectValue?.isEmpty ?? true)
        default: return false
        }
    }
}
