import CompanionCore
import Foundation

/// An instant as Home Assistant writes it, kept to the microsecond (H-ENT-9).
///
/// Rule: `subscribe_entities` writes Unix seconds with a fraction (`1796600165.40005`), `get_states` and REST
/// write ISO 8601 (`"2026-12-06T23:36:05.400050+00:00"`); both are rounded to whole microseconds, so the same
/// instant from either compares equal, which a `Date` made from the two would not always do.
public struct EntityTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public let microseconds: Int64

    /// The latest instant read: 9999-12-31T23:59:59.999999Z.
    static let latest: Int64 = 253_402_300_799_999_999

    /// Creates the instant `microseconds` after the Unix epoch.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// Reads Unix seconds with a fraction; `nil` when not finite or outside 1970–9999.
    public init?(unixSeconds: Double) {
        guard unixSeconds.isFinite, unixSeconds >= 0, unixSeconds * 1e6 <= Double(Self.latest) else { return nil }
        microseconds = Int64((unixSeconds * 1e6).rounded())
    }

    /// Reads ISO 8601 text as Home Assistant writes it (any form the kit's `Timestamp` reads); `nil` otherwise.
    public init?(iso text: String) {
        guard let date = try? Timestamp.parse(text) else { return nil }
        self.init(date: date)
    }

    /// The instant of `date`, rounded to the microsecond; `nil` outside 1970–9999.
    public init?(date: Date) {
        self.init(unixSeconds: date.timeIntervalSince1970)
    }

    /// Reads a JSON value: a number is Unix seconds, a string is ISO 8601.
    init?(json: JSONValue?) {
        switch json {
        case .integer(let value)?: self.init(unixSeconds: Double(value))
        case .number(let value)?: self.init(unixSeconds: value)
        case .string(let text)?: self.init(iso: text)
        default: return nil
        }
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1e6) }

    /// ISO 8601 in UTC with six fraction digits, such as `2026-12-06T23:36:06.408164Z`.
    public var description: String {
        let seconds = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        // The whole second written with six zero digits (".000000Z"), whose last eight characters are replaced.
        let whole =
            (try? Timestamp.format(Date(timeIntervalSince1970: Double(seconds)), precision: .microseconds)) ?? ""
        let digits = String(fraction)
        return whole.dropLast(8) + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }

    /// Earlier instants first.
    public static func < (lhs: EntityTime, rhs: EntityTime) -> Bool { lhs.microseconds < rhs.microseconds }
}
