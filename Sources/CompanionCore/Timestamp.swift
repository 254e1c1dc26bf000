import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reading and writing the instants servers send, in every form the reference servers use.
///
/// Reading rules, and their reasons:
/// - ISO 8601 text `YYYY-MM-DD[(T|t| )hh:mm[:ss[(.|,)f…]]][zone]`: seconds optional (agenda times come as
///   `10:00`), 1–9 fraction digits (Certain sends microseconds, `14:18:15.780705`; nanoseconds are the most
///   any server writes), zone `Z`, `±hh:mm`, `±hhmm` or `±hh`, a space instead of `T` (Python's `str()` of
///   a datetime). A date alone is midnight.
/// - A stamp without a zone (and a date alone) is read in one time zone, UTC unless the caller passes
///   another: the reference servers are Python writing naive UTC (`datetime.utcnow()`), and a client that
///   used the device's zone would shift every stamp by the person's offset. PrompTugal's agenda passes
///   Europe/Lisbon.
/// - A number is Unix time: when its magnitude is at least `millisecondThreshold` (1e11) it is milliseconds,
///   else seconds. 1e11 seconds is the year 5138 and 1e11 milliseconds is March 1973, so no date a server
///   sends is ambiguous; PrompTugal writes milliseconds, Omnigent seconds. A string of digits (with an
///   optional `-`) is read the same way.
/// - Components are checked: month 1–12, the day within its month (29 February only in leap years), hour
///   0–23 (`24:00` is refused), minute and second 0–59 (no leap second), years 0000–9999. Anything else is
///   `TimestampError.malformed`, naming the text.
/// - No `DateFormatter`, no regular expression: a hand parser over UTF-8 bytes, so decoding ten thousand
///   stamps costs no formatter setup and no locale lookup.
///
/// Writing rule: ISO 8601 in UTC with exactly three fraction digits and `Z` (`2026-11-08T02:45:00.000Z`),
/// the form JavaScript's `toISOString()` writes, which PrompTugal's web side reads back unchanged.
public enum Timestamp {
    /// Numbers (and digit strings) whose magnitude is at least this are Unix milliseconds, smaller ones
    /// Unix seconds.
    public static let millisecondThreshold: Int64 = 100_000_000_000

    /// Seconds from 1970 to 2001, the offset between Unix time and `Date`'s reference date.
    private static let referenceOffset: Int64 = 978_307_200
    /// 0000-01-01T00:00:00Z in Unix seconds, the earliest instant read or written.
    private static let earliestSecond: Int64 = -62_167_219_200
    /// 9999-12-31T23:59:59Z in Unix seconds, the latest whole second read or written.
    private static let latestSecond: Int64 = 253_402_300_799

    /// The instant `text` denotes: ISO 8601 text or a string of Unix seconds or milliseconds (see the
    /// rules on `Timestamp`). A stamp without a zone is read in `zonelessTimeZone`, UTC by default.
    public static func parse(_ text: String, zonelessTimeZone: TimeZone = .gmt) throws(TimestampError) -> Date {
        try parse(text, zoneless: ZonelessRule(zonelessTimeZone))
    }

    /// The instant of a Unix time number: milliseconds when its magnitude is at least
    /// `millisecondThreshold`, else seconds. Fractions are kept to the nanosecond as far as `Double` allows.
    public static func date(unixTime value: Double) throws(TimestampError) -> Date {
        guard value.isFinite else { throw .outOfRange(String(describing: value)) }
        if value == value.rounded(), abs(value) < 9e15 {
            return try date(unixInteger: Int64(value), text: String(describing: value))
        }
        let isMilliseconds = abs(value) >= Double(millisecondThreshold)
        let seconds = isMilliseconds ? value / 1_000 : value
        guard seconds >= Double(earliestSecond), seconds < Double(latestSecond + 1) else {
            throw .outOfRange(String(describing: value).clipped())
        }
        let whole = seconds.rounded(.down)
        var nanos = Int64(((seconds - whole) * 1e9).rounded())
        var wholeSeconds = Int64(whole)
        if nanos >= 1_000_000_000 {
            nanos -= 1_000_000_000
            wholeSeconds += 1
        }
        return makeDate(unixSeconds: wholeSeconds, nanoseconds: nanos)
    }

    /// `date` as ISO 8601 in UTC with milliseconds, such as `2026-11-08T02:45:00.000Z`; sub-millisecond
    /// parts are cut off (as JavaScript's `Date` holds none). Throws for an instant outside the years
    /// 0000–9999 or not finite, which no written form can carry.
    public static func format(_ date: Date) throws(TimestampError) -> String {
        try format(date, precision: .milliseconds)
    }

    /// How many digits of a second a written stamp carries.
    public enum Precision: Sendable, Hashable {
        /// Three (`.123`): what JavaScript's `Date` holds; the kit's request bodies.
        case milliseconds
        /// Six (`.123456`): what a server's own stamps carry at most (Python's `isoformat`), kept whole.
        case microseconds
    }

    /// `date` as ISO 8601 in UTC with exactly as many fraction digits as `precision` says, such as
    /// `2026-11-08T02:45:00.123456Z`. Throws for an instant outside the years 0000–9999 or not finite.
    public static func format(_ date: Date, precision: Precision) throws(TimestampError) -> String {
        let reference = date.timeIntervalSinceReferenceDate
        let earliest = Double(earliestSecond - referenceOffset)
        let latest = Double(latestSecond + 1 - referenceOffset)
        guard reference.isFinite, reference >= earliest, reference < latest else {
            throw .outOfRange(String(describing: reference))
        }
        let perSecond: Int64 = precision == .milliseconds ? 1_000 : 1_000_000
        var units: Int64
        if precision == .milliseconds {
            // Round to the microsecond first so a stored `…122.9999` from `.123` still writes `.123`. Far from 2001 a
            // `Double` holds less than a microsecond (about 30 µs in the year 7000), so a value within one ulp of a
            // whole millisecond is that millisecond: `7026-10-20T14:18:15.785` must not write back as `.784`.
            let nearestMillisecond = (reference * 1_000).rounded()
            if abs(reference - nearestMillisecond / 1_000) <= reference.ulp {
                units = Int64(nearestMillisecond) + referenceOffset * 1_000
            } else {
                units = floorDivide(Int64((reference * 1e6).rounded()) + referenceOffset * 1_000_000, 1_000)
            }
        } else {
            units = Int64((reference * 1e6).rounded()) + referenceOffset * 1_000_000
        }
        // Rounding up must not carry the last instant of 9999 into a five-digit year.
        units = min(units, (latestSecond + 1) * perSecond - 1)
        let seconds = floorDivide(units, perSecond)
        let fraction = units - seconds * perSecond
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        append(year, digits: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        append(secondOfDay / 3_600, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        append(fraction, digits: precision == .milliseconds ? 3 : 6, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes a `Date` from a single value: a string (ISO 8601 or digits) or a number, by the rules on
    /// `Timestamp`. Failures are `DecodingError.dataCorrupted` with the coding path and a `TimestampError`
    /// as the underlying error.
    public static func decode(from decoder: any Decoder, zonelessTimeZone: TimeZone = .gmt) throws -> Date {
        try decode(from: decoder, zoneless: ZonelessRule(zonelessTimeZone))
    }

    /// Encodes `date` as a single string in the written form (`format(_:)`).
    public static func encode(_ date: Date, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        do {
            try container.encode(format(date))
        } catch let error as TimestampError {
            throw EncodingError.invalidValue(
                date, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: error.description))
        }
    }

    /// Whether the last stamp decoded was a number. A `Decoder` cannot say what kind of value it holds, so a
    /// stamp is tried as one kind and then the other, and a wrong first guess costs a thrown `DecodingError` (with
    /// its message and coding path, several times the cost of reading the stamp). A server writes every stamp the
    /// same way, so the kind last seen goes first. Only the order of the tries depends on it, never the result.
    private static let lastWasNumber = Atomic<Bool>(false)

    static func decode(from decoder: any Decoder, zoneless: ZonelessRule) throws -> Date {
        let container = try decoder.singleValueContainer()
        do throws(TimestampError) {
            if lastWasNumber.load(ordering: .relaxed) {
                if let number = try? container.decode(Double.self) {
                    return try date(unixTime: number)
                }
                if let text = try? container.decode(String.self) {
                    lastWasNumber.store(false, ordering: .relaxed)
                    return try parse(text, zoneless: zoneless)
                }
            } else {
                if let text = try? container.decode(String.self) {
                    return try parse(text, zoneless: zoneless)
                }
                if let number = try? container.decode(Double.self) {
                    lastWasNumber.store(true, ordering: .relaxed)
                    return try date(unixTime: number)
                }
            }
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
        throw DecodingError.typeMismatch(
            Date.self,
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "Expected a timestamp (an ISO 8601 string or a Unix time number)."))
    }

    static func parse(_ text: String, zoneless: ZonelessRule) throws(TimestampError) -> Date {
        var copy = text
        let parsed = copy.withUTF8 { bytes in parseBytes(bytes, zoneless: zoneless) }
        switch parsed {
        case .date(let date): return date
        case .malformed: throw .malformed(text.clipped())
        case .outOfRange: throw .outOfRange(text.clipped())
        }
    }

    // MARK: - Parsing

    private enum Parsed {
        case date(Date)
        case malformed
        case outOfRange
    }

    private static func parseBytes(_ bytes: UnsafeBufferPointer<UInt8>, zoneless: ZonelessRule) -> Parsed {
        guard let first = bytes.first else { return .malformed }
        if first == UInt8(ascii: "-") || isDigit(first), bytes.count < 5 || bytes[4] != UInt8(ascii: "-") {
            return parseDigits(bytes)
        }
        var reader = ByteReader(bytes: bytes)
        guard let year = reader.number(digits: 4), reader.skip(UInt8(ascii: "-")),
            let month = reader.number(digits: 2), reader.skip(UInt8(ascii: "-")),
            let day = reader.number(digits: 2),
            (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day)
        else { return .malformed }
        var secondOfDay: Int64 = 0
        var nanos: Int64 = 0
        var offset: Int64?
        if !reader.isAtEnd {
            guard reader.skip(UInt8(ascii: "T")) || reader.skip(UInt8(ascii: "t")) || reader.skip(UInt8(ascii: " ")),
                let hour = reader.number(digits: 2), reader.skip(UInt8(ascii: ":")),
                let minute = reader.number(digits: 2)
            else { return .malformed }
            var second: Int64 = 0
            if reader.skip(UInt8(ascii: ":")) {
                guard let value = reader.number(digits: 2) else { return .malformed }
                second = value
                if reader.skip(UInt8(ascii: ".")) || reader.skip(UInt8(ascii: ",")) {
                    guard let fraction = reader.fraction() else { return .malformed }
                    nanos = fraction
                }
            }
            guard hour <= 23, minute <= 59, second <= 59 else { return .malformed }
            secondOfDay = hour * 3_600 + minute * 60 + second
            if !reader.isAtEnd {
                guard let zone = reader.zoneOffset() else { return .malformed }
                offset = zone
            }
        }
        guard reader.isAtEnd else { return .malformed }
        let wall = days(fromCivil: year, month: month, day: day) * 86_400 + secondOfDay
        let unix = offset.map { wall - $0 } ?? zoneless.instant(ofWallSeconds: wall)
        guard unix >= earliestSecond, unix <= latestSecond else { return .outOfRange }
        return .date(makeDate(unixSeconds: unix, nanoseconds: nanos))
    }

    /// `-?[0-9]+` as Unix seconds or milliseconds.
    private static func parseDigits(_ bytes: UnsafeBufferPointer<UInt8>) -> Parsed {
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return .malformed }
        var value: Int64 = 0
        var digitCount = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard isDigit(byte) else { return .malformed }
            digitCount += 1
            if digitCount > 18 { return .outOfRange }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            index += 1
        }
        do {
            return .date(try date(unixInteger: negative ? -value : value, text: ""))
        } catch {
            return .outOfRange
        }
    }

    /// The text is only rendered for an error: formatting a `Double` costs more than reading the stamp.
    private static func date(unixInteger value: Int64, text: @autoclosure () -> String) throws(TimestampError) -> Date {
        var seconds = value
        var nanos: Int64 = 0
        if value.magnitude >= millisecondThreshold.magnitude {
            seconds = floorDivide(value, 1_000)
            nanos = (value - seconds * 1_000) * 1_000_000
        }
        guard seconds >= earliestSecond, seconds <= latestSecond else {
            throw .outOfRange(text().clipped())
        }
        return makeDate(unixSeconds: seconds, nanoseconds: nanos)
    }

    /// One construction for every path, so the same instant read as text or as a number is the same `Date`:
    /// whole seconds are made relative to 2001 in integers before the fraction is added, which keeps
    /// microseconds exact in the `Double`.
    private static func makeDate(unixSeconds: Int64, nanoseconds: Int64) -> Date {
        let reference = Double(unixSeconds - referenceOffset) + Double(nanoseconds) / 1e9
        // The last instants of 9999 (`23:59:59.99999`) would round to the first of 10000, which `format` refuses:
        // keep them just inside the range, so every instant read can be written.
        let end = Double(latestSecond + 1 - referenceOffset)
        return Date(timeIntervalSinceReferenceDate: reference < end ? reference : end.nextDown)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, H. Hinnant's algorithms)

    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given civil date.
    static func days(fromCivil year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func append(_ value: Int64, digits: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

/// How a stamp without a zone becomes an instant: a fixed offset (UTC, the fast path) or a time zone's
/// rules for that wall time.
struct ZonelessRule: Sendable {
    private let fixedOffset: Int64?
    private let timeZone: TimeZone

    init(_ timeZone: TimeZone) {
        self.timeZone = timeZone
        let fixed: Set<String> = ["GMT", "UTC", "Etc/UTC", "Etc/GMT", "Etc/Universal", "Universal", "Zulu"]
        fixedOffset = fixed.contains(timeZone.identifier) ? 0 : nil
    }

    /// The Unix second of a wall time (its seconds counted as if it were UTC).
    ///
    /// In a zone with daylight saving time, the offset is found in two steps (the offset at the wall time
    /// read as UTC, then the offset at the resulting instant), which is exact except within the hour a
    /// transition skips or repeats, where it picks one of the two candidates.
    func instant(ofWallSeconds wall: Int64) -> Int64 {
        if let fixedOffset { return wall - fixedOffset }
        let guess = Date(timeIntervalSince1970: TimeInterval(wall))
        let firstOffset = Int64(timeZone.secondsFromGMT(for: guess))
        let candidate = wall - firstOffset
        let secondOffset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(candidate))))
        return wall - secondOffset
    }
}

/// A cursor over the UTF-8 bytes of a stamp.
private struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var isAtEnd: Bool { index == bytes.count }

    /// Consumes `byte` when it comes next.
    mutating func skip(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits: Int) -> Int64? {
        guard bytes.count - index >= digits else { return nil }
        var value: Int64 = 0
        for offset in 0..<digits {
            let byte = bytes[index + offset]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    /// 1–9 fraction digits as nanoseconds.
    mutating func fraction() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            count += 1
            guard count <= 9 else { return nil }
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<9 { value *= 10 }
        return value
    }

    /// `Z`, `±hh:mm`, `±hhmm` or `±hh` as seconds east of UTC; the hours 0–23, the minutes 0–59.
    mutating func zoneOffset() -> Int64? {
        if skip(UInt8(ascii: "Z")) || skip(UInt8(ascii: "z")) { return 0 }
        let sign: Int64
        if skip(UInt8(ascii: "+")) {
            sign = 1
        } else if skip(UInt8(ascii: "-")) {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(digits: 2), hours <= 23 else { return nil }
        var minutes: Int64 = 0
        if skip(UInt8(ascii: ":")) {
            guard let value = number(digits: 2) else { return nil }
            minutes = value
        } else if !isAtEnd {
            guard let value = number(digits: 2) else { return nil }
            minutes = value
        }
        guard minutes <= 59 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }
}

/// Why a timestamp could not be read or written.
public enum TimestampError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// The text is not a timestamp in any accepted form, or names a day or time that does not exist
    /// (month 13, 30 February, `24:00`). Carries the text, cut to 64 characters.
    case malformed(String)
    /// The value is a timestamp but outside the years 0000–9999 (or not finite). Carries the text.
    case outOfRange(String)

    /// A sentence a person (or a bug report) can act on.
    public var description: String {
        switch self {
        case .malformed(let text):
            return "\"\(text)\" is not a timestamp. Expected ISO 8601 such as 2026-10-20T14:18:15Z, "
                + "or Unix seconds or milliseconds."
        case .outOfRange(let text):
            return "The timestamp \"\(text)\" is outside the years 0000 to 9999."
        }
    }

    /// The same sentence, for `localizedDescription`.
    public var errorDescription: String? { description }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Reads every form in `Timestamp`'s rules (ISO 8601 with or without zone and fraction, date alone,
    /// Unix seconds or milliseconds); a stamp without a zone is UTC.
    public static var companionFlexible: Self {
        .custom { decoder in try Timestamp.decode(from: decoder, zoneless: ZonelessRule(.gmt)) }
    }

    /// Like `companionFlexible`, reading a stamp without a zone in `zonelessTimeZone` (such as a server that
    /// writes local wall times).
    public static func companionFlexible(zonelessTimeZone: TimeZone) -> Self {
        let rule = ZonelessRule(zonelessTimeZone)
        return .custom { decoder in try Timestamp.decode(from: decoder, zoneless: rule) }
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// Writes `2026-11-08T02:45:00.000Z`: UTC, milliseconds, `Z` (JavaScript's `toISOString()` form).
    public static var companionISO8601: Self {
        .custom { date, encoder in try Timestamp.encode(date, to: encoder) }
    }
}
