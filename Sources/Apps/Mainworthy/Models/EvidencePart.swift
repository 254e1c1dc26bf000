import CompanionCore
import Foundation

/// Evidence of a kind the app has no typed form for, as the page shows it: its text fields, each with a label
/// (O-22).
///
/// Rule: a member that is an object gives one field per member that holds text (a string, a number, a yes/no, a
/// person's or a thing's `name` or `title`, a list of those), labelled by its name with `_` read as a space, in
/// the order of their names; nested objects give their fields with the outer name first (`case number`). A
/// member that is itself text gives one field labelled by the kind.
public struct EvidencePart: Sendable, Hashable {
    /// One labelled text.
    public struct Field: Sendable, Hashable {
        /// The label (`finding`, `suggested case`).
        public var label: String
        /// The text.
        public var text: String

        /// Creates a field.
        public init(label: String, text: String) {
            self.label = label
            self.text = text
        }
    }

    /// The member's name: `review`, `link`, `overlap`, or a kind the server added later.
    public var kind: String
    /// Its text fields.
    public var fields: [Field]

    /// Creates a part.
    public init(kind: String, fields: [Field]) {
        self.kind = kind
        self.fields = fields
    }

    /// The part for member `kind` holding `value`.
    public init(kind: String, value: JSONValue) {
        self.kind = kind
        if value.objectValue != nil {
            fields = Self.fields(of: value, prefix: nil)
        } else {
            fields = Self.text(value).map { [Field(label: Self.label(kind), text: $0)] } ?? []
        }
    }

    /// Every field's text, one after the other: what a screen reader or a terminal line reads.
    public var text: String { fields.map { "\($0.label): \($0.text)" }.joined(separator: "; ") }

    private static func fields(of value: JSONValue, prefix: String?) -> [Field] {
        guard let members = value.objectValue else { return [] }
        var fields: [Field] = []
        for name in members.keys.sorted() {
            guard let member = members[name] else { continue }
            let label = prefix.map { "\($0) \(Self.label(name))" } ?? Self.label(name)
            if let text = text(member) {
                fields.append(Field(label: label, text: text))
            } else if member.objectValue != nil {
                fields += Self.fields(of: member, prefix: label)
            }
        }
        return fields
    }

    /// The text of a value that reads as text, or `nil` (null, an empty list, an object without a name).
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .integer(let number): return String(number)
        case .number(let number): return String(number)
        case .bool(let yes): return yes ? "yes" : "no"
        case .object(let members):
            return (members["name"] ?? members["title"] ?? members["number"]).flatMap(text)
        case .array(let items):
            let texts = items.compactMap(text)
            return texts.isEmpty ? nil : texts.joined(separator: ", ")
        case .null: return nil
        }
    }

    private static func label(_ name: String) -> String { name.replacingOccurrences(of: "_", with: " ") }
}
