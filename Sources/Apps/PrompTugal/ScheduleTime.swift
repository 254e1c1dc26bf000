import CompanionCore
import Foundation

/// How a pick's `at` is written and read on the wire.
///
/// Rules:
/// - Written as JavaScript's `toISOString()` writes it: UTC, three fraction digits, `Z`
///   (`2026-11-08T02:45:00.000Z`), because the website reads the value back unchanged (P-SCHED-2).
///   The app never writes milliseconds (P-SCHED-4).
/// - Read strictly (P-OPEN-6): an ISO 8601 string `YYYY-MM-DDThh:mm:ss[.f{1,9}]` followed by `Z` or `±hh:mm`, or a
///   JSON number of Unix milliseconds (never seconds). A string without an offset is refused (whose wall clock
///   would it be?), and so is a string of digits (is it seconds or milliseconds?). The kit's own timestamp reader is
///   lenient on purpose for servers; a document two programs exchange must not be guessed at.
public enum ScheduleTime {
    /// Why an `at` value was refused.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A string that is not `date T time offset` (no offset, digits only, another layout).
        case notISO8601(String)
        /// A number that is not a finite count of milliseconds within the years 0000-9999.
        case outOfRange(String)
        /// Neither a string nor a number.
        case wrongType

        /// A sentence a person can act on.
        public var description: String {
            switch self {
            case .notISO8601(let text):
                return "\"\(Self.clipped(text))\" is not an ISO 8601 time with an offset such as "
                    + "2026-11-08T02:45:00.000Z; a pick's time needs Z or ±hh:mm."
            case .outOfRange(let text):
                return "\(Self.clipped(text)) is not a time in Unix milliseconds between the years 0000 and 9999."
            case .wrongType:
                return "A pick's time must be an ISO 8601 string or a number of Unix milliseconds."
            }
        }

        static func clipped(_ text: String) -> String { text.count > 40 ? String(text.prefix(40)) + "…" : text }
    }

    /// `date` as `toISOString()` writes it.
    public static func write(_ date: Date) throws(Problem) -> String {
        do {
            return try Timestamp.format(date)
        } catch {
            throw .outOfRange(String(describing: date.timeIntervalSince1970 * 1_000))
        }
    }

    /// `date` at the precision a document keeps (whole milliseconds, as `write` writes it): the time a pick is kept
    /// at, so a pick and the document holding it name the same instant.
    public static func kept(_ date: Date) -> Date {
        guard let written = try? write(date), let read = try? read(written) else { return date }
        return read
    }

    /// The instant of an ISO 8601 string with an offset (and only that).
    public static func read(_ text: String) throws(Problem) -> Date {
        guard hasStrictShape(Array(text.utf8)) else { throw .notISO8601(text) }
        do {
            return try Timestamp.parse(text)
        } catch {
            throw .notISO8601(text)
        }
    }

    /// The instant of a JSON number: always Unix milliseconds.
    public static func read(milliseconds value: Double) throws(Problem) -> Date {
        // 0000-01-01 and 10000-01-01 in Unix milliseconds.
        guard value.isFinite, value >= -62_167_219_200_000, value < 253_402_300_800_000 else {
            throw .outOfRange(String(describing: value))
        }
        return Date(timeIntervalSince1970: value / 1_000)
    }

    /// The instant of a JSON value: a string by `read(_:)`, a number by `read(milliseconds:)`.
    public static func read(_ value: JSONValue) throws(Problem) -> Date {
        switch value {
        case .string(let text): return try read(text)
        case .integer(let number): return try read(milliseconds: Double(number))
        case .number(let number): return try read(milliseconds: number)
        default: throw .wrongType
        }
    }

    /// `dddd-dd-ddTdd:dd:dd`, then an optional `.` and 1-9 digits, then `Z` or `±dd:dd`.
    static func hasStrictShape(_ bytes: [UInt8]) -> Bool {
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && range.allSatisfy { (0x30...0x39).contains(bytes[$0]) }
        }
        func byte(_ index: Int, _ ascii: Unicode.Scalar) -> Bool {
            index < bytes.count && bytes[index] == UInt8(ascii: ascii)
        }
        guard digits(0..<4), byte(4, "-"), digits(5..<7), byte(7, "-"), digits(8..<10), byte(10, "T"),
            digits(11..<13), byte(13, ":"), digits(14..<16), byte(16, ":"), digits(17..<19)
        else { return false }
        var index = 19
        if byte(index, ".") {
            var count = 0
            index += 1
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                count += 1
                index += 1
            }
            guard (1...9).contains(count) else { return false }
        }
        if byte(index, "Z") { return index + 1 == bytes.count }
        guard byte(index, "+") || byte(index, "-") else { return false }
        return index + 6 == bytes.count && digits(index + 1..<index + 3) && byte(index + 3, ":")
            && digits(index + 4..<index + 6)
    }
}
