import CompanionCore
import Foundation

/// A message the server accepted that no turn has consumed yet: one of Omnigent's `pending_inputs`
/// (`{"pending_id", "content": [{"type", "text"}]}`, O-WATCH-2), shown as a pending bubble until the transcript
/// holds it.
public struct PendingInput: Codable, Sendable, Hashable, Identifiable {
    /// The server's pending id (the one an ack's `pending_id` names).
    public var id: String
    /// The content parts.
    public var content: [SessionItem.Content]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "pending_id"
        case content
    }

    /// Creates a pending input.
    public init(id: String, content: [SessionItem.Content]) {
        self.id = id
        self.content = content
    }

    /// Reads the wire form; a missing or `null` content is no content.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        content = try container.decodeIfPresent([SessionItem.Content].self, forKey: .content) ?? []
    }

    /// The text parts joined by line breaks, trimmed.
    public var text: String {
        content.compactMap(\.text).joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
