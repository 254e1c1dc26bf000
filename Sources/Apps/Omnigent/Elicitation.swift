import CompanionCore
import Foundation

/// A pending approval request (an elicitation) on a session, as Omnigent 0.19.1 sends it in a session's
/// `pending_elicitations`: the original `response.elicitation_request` event,
/// `{"elicitation_id", "params": {"mode", "message", "requestedSchema", "content_preview", …}}`.
public struct Elicitation: Codable, Sendable, Hashable, Identifiable {
    /// Its id (`elicitation_id`), the one the resolve route takes.
    public var id: String
    /// `form` or `url`; only a `form` with an empty schema resolves with a plain accept/decline (O-WATCH-5).
    public var mode: String?
    /// The question shown to the person.
    public var message: String?
    /// The form schema the answer must follow (`requestedSchema`), if any.
    public var requestedSchema: JSONValue?
    /// A preview of what is being approved (a command, a diff), if the server gave one.
    public var contentPreview: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "elicitation_id"
        case params
    }

    enum ParamsKeys: String, CodingKey, CaseIterable {
        case mode, message, requestedSchema
        case contentPreview = "content_preview"
    }

    /// Creates an elicitation.
    public init(
        id: String, mode: String? = "form", message: String? = nil, requestedSchema: JSONValue? = nil,
        contentPreview: String? = nil
    ) {
        self.id = id
        self.mode = mode
        self.message = message
        self.requestedSchema = requestedSchema
        self.contentPreview = contentPreview
    }

    /// Reads the event form; `params` may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        guard container.contains(.params), (try? container.decodeNil(forKey: .params)) == false else { return }
        let params = try container.nestedContainer(keyedBy: ParamsKeys.self, forKey: .params)
        mode = try params.decodeIfPresent(String.self, forKey: .mode)
        message = try params.decodeIfPresent(String.self, forKey: .message)
        requestedSchema = try params.decodeIfPresent(JSONValue.self, forKey: .requestedSchema)
        contentPreview = try params.decodeIfPresent(String.self, forKey: .contentPreview)
    }

    /// Writes the event form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        var params = container.nestedContainer(keyedBy: ParamsKeys.self, forKey: .params)
        try params.encodeIfPresent(mode, forKey: .mode)
        try params.encodeIfPresent(message, forKey: .message)
        try params.encodeIfPresent(requestedSchema, forKey: .requestedSchema)
        try params.encodeIfPresent(contentPreview, forKey: .contentPreview)
    }

    /// Whether a plain accept or decline answers it: a `form` whose schema asks for no field (no
    /// `requestedSchema`, or one whose `properties` are empty), as the real app's watch decides.
    public var isSimpleApproval: Bool {
        guard mode == "form" else { return false }
        switch requestedSchema?["properties"] {
        case nil, .null: return true
        case .object(let fields): return fields.isEmpty
        default: return false
        }
    }
}
