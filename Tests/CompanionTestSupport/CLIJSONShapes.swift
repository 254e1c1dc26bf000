import CompanionCore
import Foundation
import Testing

/// The output shapes `docs/cli-json.md` documents, and the check of a command's real output against them.
///
/// A documented shape is a fenced `json` block right after a `<!-- shape: ID -->` line, where `ID` names the
/// command (`omnigent sessions`, `certain overview`). The block is JSON whose values describe types:
/// - a string is a union of `|`-separated words: a type (`string`, `integer`, `number`, `bool`, `null`,
///   `object`, `array`, `any`; `time` for the client's one date form, ISO 8601 in UTC with six fraction digits;
///   `time-s` for whole seconds; `date` for `YYYY-MM-DD`; `month` for `YYYY-MM`), or else a literal value
///   (`"content|empty|failed"`);
/// - an object lists its keys: a key ending in `?` may be absent, the key `*` stands for any other key;
/// - an array holds one shape every element must have (`[]`: any elements).
/// The output of a JSON Lines command is checked line by line.
public enum CLIJSONShapes {
    /// The document's path in the package.
    public static let document = packageRoot.appendingPathComponent("docs/cli-json.md")

    /// Every documented shape by its id.
    public static func all() throws -> [String: JSONValue] {
        let text = try String(contentsOf: document, encoding: .utf8)
        var shapes: [String: JSONValue] = [:]
        let lines = text.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- shape:"), line.hasSuffix("-->") else { continue }
            let id = String(line.dropFirst("<!-- shape:".count).dropLast(3)).trimmingCharacters(in: .whitespaces)
            guard index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) == "```json" else {
                throw ShapeError("the shape \(id) is not followed by a ```json block")
            }
            index += 1
            var body: [String] = []
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(lines[index])
                index += 1
            }
            do {
                shapes[id] = try JSONDecoder().decode(JSONValue.self, from: Data(body.joined(separator: "\n").utf8))
            } catch {
                throw ShapeError("the shape \(id) is not JSON: \(error)")
            }
        }
        return shapes
    }

    /// The differences between `output` (what a command printed on standard output) and the shape `id`; empty
    /// when they agree. `lines`: the output is JSON Lines, one document per line.
    public static func mismatches(_ output: String, shape id: String, lines: Bool = false) throws -> [String] {
        guard let shape = try all()[id] else { throw ShapeError("docs/cli-json.md documents no shape \(id)") }
        let documents =
            lines
            ? output.split(separator: "\n").map(String.init) : [output]
        var found: [String] = []
        for (number, text) in documents.enumerated() {
            let value: JSONValue
            do {
                value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            } catch {
                found.append("\(lines ? "line \(number + 1)" : "the output") is not JSON: \(text.prefix(200))")
                continue
            }
            compare(value, shape, path: lines ? "line \(number + 1)" : "$", into: &found)
        }
        return found
    }

    private static func compare(_ value: JSONValue, _ shape: JSONValue, path: String, into found: inout [String]) {
        switch shape {
        case .string(let spec):
            if !matches(value, spec) { found.append("\(path): \(describe(value)) is not \(spec)") }
        case .object(let members):
            guard case .object(let actual) = value else {
                found.append("\(path): \(describe(value)) is not an object")
                return
            }
            let wildcard = members["*"]
            for (key, memberShape) in members where key != "*" {
                let optional = key.hasSuffix("?")
                let name = optional ? String(key.dropLast()) : key
                if let member = actual[name] {
                    compare(member, memberShape, path: "\(path).\(name)", into: &found)
                } else if !optional {
                    found.append("\(path): the documented key \(name) is missing")
                }
            }
            for (name, member) in actual where members[name] == nil && members[name + "?"] == nil {
                if let wildcard {
                    compare(member, wildcard, path: "\(path).\(name)", into: &found)
                } else {
                    found.append("\(path): the key \(name) is not documented")
                }
            }
        case .array(let element):
            guard case .array(let items) = value else {
                found.append("\(path): \(describe(value)) is not an array")
                return
            }
            guard let shape = element.first else { return }
            for (index, item) in items.enumerated() { compare(item, shape, path: "\(path)[\(index)]", into: &found) }
        default:
            found.append("\(path): the shape is written as \(describe(shape)); write a type name in a string")
        }
    }

    private static func matches(_ value: JSONValue, _ spec: String) -> Bool {
        spec.split(separator: "|").contains { word in
            switch (word, value) {
            case ("any", _): return true
            case ("string", .string), ("integer", .integer), ("bool", .bool), ("null", .null): return true
            case ("number", .integer), ("number", .number), ("object", .object), ("array", .array): return true
            case ("time", .string(let text)):
                return text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/) != nil
            case ("time-s", .string(let text)): return text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil
            case ("date", .string(let text)): return text.wholeMatch(of: /\d{4}-\d\d-\d\d/) != nil
            case ("month", .string(let text)): return text.wholeMatch(of: /\d{4}-\d\d/) != nil
            case (_, .string(let text)): return !typeWords.contains(String(word)) && text == word
            default: return false
            }
        }
    }

    private static let typeWords: Set<String> = [
        "any", "string", "integer", "number", "bool", "null", "object", "array", "time", "time-s", "date", "month",
    ]

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return "the bool \(flag)"
        case .integer(let number): return "the integer \(number)"
        case .number(let number): return "the number \(number)"
        case .string(let text): return "the string \"\(text.prefix(60))\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A shape that cannot be read.
    public struct ShapeError: Error, CustomStringConvertible {
        /// What is wrong, in a sentence.
        public let description: String

        init(_ description: String) { self.description = description }
    }
}

/// Expects `output` to have the shape docs/cli-json.md documents as `id` (each difference is one issue).
public func expectDocumentedShape(
    _ output: String, _ id: String, lines: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let found = try CLIJSONShapes.mismatches(output, shape: id, lines: lines)
        #expect(
            found.isEmpty, "docs/cli-json.md's shape \(id) and the output differ: \(found)",
            sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
    }
}
