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

    /// The first of `paths` that is a list; `value` itself when it is a list and `paths` finds none; else, from
    /// evidence, the one member (or member of a member) that is a non-empty list of objects, the largest when there
    /// are several (of equally large ones, the first by member name).
    static func list(_ value: JSONValue, _ paths: [String]) -> [JSONValue]? {
        for path in paths {
            if case .array(let items) = first(value, [path]) { return items }
        }
        if case .array(let items) = value { return items }
        var best: [JSONValue]?
        func consider(_ candidate: JSONValue, depth: Int) {
            switch candidate {
            case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.objectValue != nil }):
                if items.count > best?.count ?? 0 { best = items }
            case .object(let members) where depth < 2:
                // By name, so that of two equally long lists the same one wins every run.
                for (_, member) in members.sorted(by: { $0.key < $1.key }) { consider(member, depth: depth + 1) }
            default: break
            }
        }
        consider(value, depth: 0)
        return best
    }

    /// The instant `value` names, when it is a string that reads as one (Lisbon wall time without an offset).
    static func instant(_ value: JSONValue?) -> Date? {
        guard case .string(let text)? = value, text.count >= 16, text.first?.isNumber == true else { return nil }
        return try? LisbonTime.instant(text)
    }

    /// The members of `item` that name an id, a state, a time, a place or an address: never an item's text.
    static let notText: Set<String> = [
        "id", "uid", "key", "slug", "status", "state", "kind", "type", "owner", "url", "href", "link", "page", "at",
        "time", "when", "place", "venue", "location", "area", "building", "lang", "language",
    ]

    /// The names any entry's label goes by, whatever the file: tried after a decoder's own names.
    static let labels = ["label", "heading", "caption", "displayName", "display_name"]

    /// The first of `paths` (then of `labels`) that is a non-empty string; else, from evidence, the longest string
    /// member of `item` that names no id, state, time or address (`notText`), is no web address and reads as no
    /// instant (of equally long ones, the member first by name).
    static func text(_ item: JSONValue, _ paths: [String]) -> String? {
        if let named = string(item, paths + labels) { return named }
        var best: String?
        // By name, so that of two equally long texts the same one wins every run.
        for (name, member) in (item.objectValue ?? [:]).sorted(by: { $0.key < $1.key })
        where !notText.contains(name.lowercased()) {
            guard case .string(let text) = member, !text.isEmpty, !text.contains("://"), !text.hasPrefix("/"),
                instant(member) == nil
            else { continue }
            if text.count > best?.count ?? 0 { best = text }
        }
        return best
    }

    /// `name` lowercased with everything but letters taken out and a trailing `count` dropped: `onlyYouCount`,
    /// `only_you` and `OnlyYou` are all `onlyyou`.
    static func normalized(_ name: String) -> String {
        var letters = String(name.lowercased().filter { $0.isLetter && $0.isASCII })
        if letters.hasSuffix("count"), letters.count > 5 { letters.removeLast(5) }
        return letters
    }

    /// The integer member of `value` whose normalized name is one of `names`.
    static func integer(_ value: JSONValue, normalized names: Set<String>) -> Int? {
        for (name, member) in value.objectValue ?? [:] where names.contains(normalized(name)) {
            if case .integer(let number) = member, let small = Int(exactly: number) { return small }
        }
        return nil
    }
}

/// Entries of a team-data list that could not be read, and why: said in the state and the terminal
/// (`3 tasks skipped: no text field`) instead of showing fewer without a word.
public struct TeamSkip: Sendable, Hashable, CustomStringConvertible {
    /// What the entries are (`tasks`, `events`, `places`, `people`).
    public let what: String
    /// How many were skipped.
    public let count: Int
    /// Why (`no text field`, `no slug`, `no name`).
    public let reason: String

    /// Creates a note.
    public init(what: String, count: Int, reason: String) {
        self.what = what
        self.count = count
        self.reason = reason
    }

    /// `3 tasks skipped: no text field`.
    public var description: String { "\(count) \(what) skipped: \(reason)" }

    /// The notes of `counts` (what → count) with `reason`, leaving out lists with none skipped.
    static func notes(_ counts: [(String, Int)], reason: String) -> [TeamSkip] {
        counts.filter { $0.1 > 0 }.map { TeamSkip(what: $0.0, count: $0.1, reason: reason) }
    }
}
