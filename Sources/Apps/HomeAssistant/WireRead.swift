import CompanionCore
import Foundation

/// What a decoder read from one of Home Assistant's replies, and a sentence for each part it could not read.
///
/// Rule: a reply is read as far as it goes. A list item, an entity or a field that does not have the shape the
/// catalog's §2 shows is left out with one sentence naming it (`problems`), and the rest is kept, so one odd
/// entity among a thousand never blanks a screen. Only a reply whose outer shape is wrong is refused whole
/// (`HomeAssistantReadError`).
public struct WireRead<Value: Sendable>: Sendable {
    /// What was read.
    public var value: Value
    /// One sentence per part that was left out, in the order met; empty when everything was read.
    public var problems: [String]

    /// Creates a result.
    public init(_ value: Value, problems: [String] = []) {
        self.value = value
        self.problems = problems
    }
}

extension WireRead: Equatable where Value: Equatable {}

/// A reply of Home Assistant whose outer shape is not the one the server sends: nothing of it was read.
public struct HomeAssistantReadError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// What was being read (`get_config`, `the area registry`).
    public var what: String
    /// What was wrong with it.
    public var reason: String

    /// Creates the error.
    public init(_ what: String, _ reason: String) {
        self.what = what
        self.reason = reason
    }

    /// A sentence a person can act on.
    public var description: String {
        "Home Assistant's \(what) could not be read: \(reason). The server may run a version this app does not support."
    }

    /// The same sentence, for `LocalizedError` users.
    public var errorDescription: String? { description }
}

extension JSONValue {
    /// The JSON type's name, for a sentence ("a number", "an object").
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    /// A string member, `nil` when absent, null, empty or not a string.
    func text(_ key: String) -> String? {
        guard case .string(let value)? = self[key], !value.isEmpty else { return nil }
        return value
    }
}
