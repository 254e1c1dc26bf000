import CompanionCore
import Foundation

/// Reading team-data JSON whose field names no document fixes (P-TEAM-4, P-TEAM-7, seed §6).
///
/// Rule: a decoder asks for a field by every name of the same meaning the known sites use (`personId` or `me.id`,
/// `start` or `startsAt`), takes the first present, and requires only what its screen cannot do without. A value of
/// the wrong type counts as absent (a JSON `null` latitude is no latitude).
enum TeamFields {
    /// The first of `paths` present in `value` and not `null`; a path is member names joined by `.` (`me.id`).
    static func first(_ value: JSONValue, _ paths: [String]) -> JSONValue? {
        for path in paths {
            var current: JSONValue? = value
            for name in path.split(separator: ".") { current = current?[String(name)] }
            if let found = current, found != .null { return found }
        }
        return nil
    }

    /// The first of `paths` that is a non-empty string (a number is written as its digits).
    static func string(_ value: JSONValue, _ paths: [String]) -> String? {
        for path in paths {
            switch first(value, [path]) {
            case .string(let text) where !text.isEmpty: return text
            case .integer(let number): return String(number)
            default: continue
            }
        }
        return nil
    }

    /// The first of `paths` that is a number.
    static func number(_ value: JSONValue, _ paths: [String]) -> Double? {
        for path in paths {
            switch first(value, [path]) {
            case .integer(let number): return Double(number)
            case .number(let number) where number.isFinite: return number
            default: continue
            }
        }
        return nil
    }

    /// The first of `paths` that is an integer.
    static func integer(_ value: JSONValue, _ paths: [String]) -> Int? {
        for path in paths {
            if case .integer(let number) = first(value, [path]), let small = Int(exactly: number) { return small }
        }
        return nil
    }

    /// The first of `paths` that is a list; `value` itself when it is a list and `paths` finds none.
    static func list(_ value: JSONValue, _ paths: [String]) -> [JSONValue]? {
        for path in paths {
            if case .array(let items) = first(value, [path]) { return items }
        }
        if case .array(let items) = value { return items }
        return nil
    }
}
