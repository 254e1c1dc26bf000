import CompanionCore
import Foundation

/// One item of a session: a message, a tool call or another kind (flat form of `/items`).
public struct SessionItem: Codable, Sendable, Hashable, Identifiable {
    /// One part of a message's content.
    public struct Content: Codable, Sendable, Hashable {
        /// `input_text`, `output_text`, …
        public var type: String
        /// The text, for text parts.
        public var text: String?

        /// Creates a content part.
        public init(type: String, text: String?) {
            self.type = type
            self.text = text
        }
    }

    /// Its id.
    public var id: String
    /// `message`, `function_call`, …
    public var type: String
    /// `completed`, `in_progress`, …
    public var status: String?
    /// `user` or `assistant` for messages.
    public var role: String?
    /// The content parts.
    public var content: [Content]
    /// The model or agent that wrote it.
    public var model: String?
    /// When it was created.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, type, status, role, content, model, data
        case createdAt = "created_at"
    }

    /// Creates an item.
    public init(
        id: String, type: String = "message", status: String? = "completed", role: String?, content: [Content],
        model: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.type = type
        self.status = status
        self.role = role
        self.content = content
        self.model = model
        self.createdAt = createdAt
    }

    /// Reads both the flat form (`/items`) and the nested form (`detail.items[].data`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "message"
        status = try container.decodeIfPresent(String.self, forKey: .status)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        if container.contains(.data),
            let nested = try? container.nestedContainer(keyedBy: CodingKeys.self, forKey: .data)
        {
            role = try nested.decodeIfPresent(String.self, forKey: .role)
            content = try nested.decodeIfPresent([Content].self, forKey: .content) ?? []
            model = try nested.decodeIfPresent(String.self, forKey: .model)
        } else {
            role = try container.decodeIfPresent(String.self, forKey: .role)
            content = try container.decodeIfPresent([Content].self, forKey: .content) ?? []
            model = try container.decodeIfPresent(String.self, forKey: .model)
        }
    }

    /// Encodes the flat form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encode(content, forKey: .content)
        try container.encodeIfPresent(model, forKey: .model)
        try container.encode(createdAt, forKey: .createdAt)
    }

    /// The text parts joined, for a message.
    public var text: String { content.compactMap(\.text).joined() }

    /// Whether this is a user or assistant text message (what the watch shows, O-WATCH-3).
    public var isChatMessage: Bool {
        type == "message" && (role == "user" || role == "assistant") && !text.isEmpty
    }
}
