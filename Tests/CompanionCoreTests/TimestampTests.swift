import CompanionCore
import Foundation
import Testing

/// The instant `unixSeconds` plus `nanoseconds`, built the way the parser builds it.
func instant(_ unixSeconds: Int64, nanoseconds: Int64 = 0) -> Date {
    Date(timeIntervalSinceReferenceDate: Double(unixSeconds - 978_307_200) + Double(nanoseconds) / 1e9)
}

struct StampCase: Sendable, CustomTestStringConvertible {
    let text: String
    let unixSeconds: Int64
    let nanoseconds: Int64
    var testDescription: String { text.debugDescription }

    init(_ text: String, _ unixSeconds: Int64, nanoseconds: Int64 = 0) {
        self.text = text
        self.unixSeconds = unixSeconds
        self.nanoseconds = nanoseconds
    }
}

private struct Stamped: Codable, Equatable {
    let at: Date
}

@Suite struct TimestampTests {
    // 2026-10-20T14:18:15Z is 1_792_505_895; 2026-11-08T02:45:00Z is 1_794_105_900 (computed with Python).
    static let accepted: [StampCase] = [
        StampCase("2026-10-20T14:18:15.780705", 1_792_505_895, nanoseconds: 780_705_000),
        StampCase("2026-10-20T14:18:15Z", 1_792_505_895),
        StampCase("2026-10-20T14:18:15z", 1_792_505_895),
        StampCase("2026-10-20T14:18:15", 1_792_505_895),
        StampCase("2026-10-20T16:18:15+02:00", 1_792_505_895),
        StampCase("2026-10-20T16:18:15+0200", 1_792_505_895),
        StampCase("2026-10-20T16:18:15+02", 1_792_505_895),
        StampCase("2026-10-20T09:48:15-04:30", 1_792_505_895),
        StampCase("2026-10-20T14:18:15-00:00", 1_792_505_895),
        StampCase("2026-10-20 14:18:15.780705", 1_792_505_895, nanoseconds: 780_705_000),
        StampCase("2026-10-20t14:18:15", 1_792_505_895),
        StampCase("2026-10-20T14:18:15.7Z", 1_792_505_895, nanoseconds: 700_000_000),
        StampCase("2026-10-20T14:18:15,25Z", 1_792_505_895, nanoseconds: 250_000_000),
        StampCase("2026-10-20T14:18:15.123456789Z", 1_792_505_895, nanoseconds: 123_456_789),
        StampCase("2026-10-20T16:18:15.780705+02:00", 1_792_505_895, nanoseconds: 780_705_000),
        StampCase("2026-10-20T14:18", 1_792_505_880),
        StampCase("2026-10-20T14:18Z", 1_792_505_880),
        StampCase("2026-10-20", 1_792_454_400),
        StampCase("2026-11-08T02:45:00.000Z", 1_794_105_900),
        StampCase("2024-02-29T12:00:00Z", 1_709_208_000),
        StampCase("2000-02-29", 951_782_400),
        StampCase("1970-01-01T00:00:00Z", 0),
        StampCase("1969-12-31T23:59:59Z", -1),
        StampCase("9999-12-31T23:59:59Z", 253_402_300_799),
        StampCase("0001-01-01T00:00:00Z", -62_135_596_800),
        StampCase("2026-10-20T23:30:00-01:00", 1_792_542_600),
        // Digit strings: seconds below 1e11, milliseconds from 1e11.
        StampCase("1794105900", 1_794_105_900),
        StampCase("1794105900000", 1_794_105_900),
        StampCase("1794105900123", 1_794_105_900, nanoseconds: 123_000_000),
        StampCase("99999999999", 99_999_999_999),
        StampCase("100000000000", 100_000_000),
        StampCase("0", 0),
        StampCase("2026", 2_026),
        StampCase("-1", -1),
        StampCase("-100000000000", -100_000_000),
    ]

    @Test(arguments: accepted)
    func parses(_ row: StampCase) throws {
        #expect(try Timestamp.parse(row.text) == instant(row.unixSeconds, nanoseconds: row.nanoseconds))
    }

    static let malformed: [String] = [
        "", " ", "now", "2026-1-20", "2026-10-2", "2026/10/20", "20261020T141815Z",
        "2026-13-01", "2026-00-10", "2026-10-00", "2026-10-32", "2026-02-29", "1900-02-29", "2026-04-31",
        "2026-10-20T24:00", "2026-10-20T24:00:00Z", "2026-10-20T23:60", "2026-10-20T23:59:60Z",
        "2026-10-20T14", "2026-10-20T14:18:", "2026-10-20T14:18:15.", "2026-10-20T14:18.5",
        "2026-10-20T14:18:15.1234567890Z", "2026-10-20T14:18:15+2", "2026-10-20T14:18:15+24:00",
        "2026-10-20T14:18:15+02:60", "2026-10-20T14:18:15+02:0", "2026-10-20T14:18:15 Z", "2026-10-20T14:18:15ZZ",
        " 2026-10-20", "2026-10-20 ", "2026-10-20T", "2026-10-20X14:18:15", "+2026-10-20",
        "12.5", "1e9", "-", "--1", "0x10", "１２３",
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ text: String) {
        #expect(throws: TimestampError.malformed(text)) { try Timestamp.parse(text) }
    }

    @Test func errorClipsLongText() {
        let text = "2026-10-20T14:18:15" + String(repeating: "x", count: 100)
        #expect(throws: TimestampError.malformed(String(text.prefix(64)) + "…")) { try Timestamp.parse(text) }
        #expect(TimestampError.malformed("x").description.contains("\"x\""))
    }

    @Test(arguments: ["99999999999999999999", "-9999999999999999", "253402300800000", "-62167219201"])
    func rejectsOutOfRangeDigits(_ text: String) {
        #expect(throws: TimestampError.outOfRange(text)) { try Timestamp.parse(text) }
    }

    @Test func keepsMicroseconds() throws {
        let date = try Timestamp.parse("2026-10-20T14:18:15.780705")
        let micros = Int64((date.timeIntervalSinceReferenceDate * 1e6).rounded())
        #expect(micros % 1_000_000 == 780_705)
        #expect(abs(date.timeIntervalSince1970 - 1_792_505_895.780705) < 1e-6)
        let next = try Timestamp.parse("2026-10-20T14:18:15.780706")
        #expect(next > date)
        #expect(abs(next.timeIntervalSince(date) - 1e-6) < 1e-7)
    }

    @Test func zonelessStampsUseTheGivenTimeZone() throws {
        let lisbon = try #require(TimeZone(identifier: "Europe/Lisbon"))
        // Winter (WET, +00:00) and summer (WEST, +01:00).
        #expect(try Timestamp.parse("2026-11-08T10:00", zonelessTimeZone: lisbon) == instant(1_794_132_000))
        #expect(try Timestamp.parse("2026-07-01T10:00", zonelessTimeZone: lisbon) == instant(1_782_896_400))
        // A stamp with its own zone ignores the configured one.
        #expect(try Timestamp.parse("2026-07-01T10:00Z", zonelessTimeZone: lisbon) == instant(1_782_900_000))
        let plusTwo = try #require(TimeZone(secondsFromGMT: 7_200))
        #expect(try Timestamp.parse("2026-10-20T16:18:15", zonelessTimeZone: plusTwo) == instant(1_792_505_895))
        // The default is UTC, whatever the process's zone.
        #expect(try Timestamp.parse("2026-10-20T14:18:15") == instant(1_792_505_895))
    }

    @Test(arguments: [
        (1_794_105_900.0, 1_794_105_900 as Int64, 0 as Int64),
        (1_794_105_900_000.0, 1_794_105_900, 0),
        (1_794_105_900_123.0, 1_794_105_900, 123_000_000),
        (1_764_400_000.5, 1_764_400_000, 500_000_000),
        (99_999_999_999.0, 99_999_999_999, 0),
        (100_000_000_000.0, 100_000_000, 0),
        (0.0, 0, 0),
        (-1.0, -1, 0),
        (-1.5, -2, 500_000_000),
        (-100_000_000_000.0, -100_000_000, 0),
    ])
    func unixNumbers(_ value: Double, _ seconds: Int64, _ nanos: Int64) throws {
        let date = try Timestamp.date(unixTime: value)
        #expect(abs(date.timeIntervalSince(instant(seconds, nanoseconds: nanos))) < 1e-6)
    }

    @Test func integralNumbersMatchTheirTextExactly() throws {
        #expect(try Timestamp.date(unixTime: 1_794_105_900_123) == Timestamp.parse("2026-11-08T02:45:00.123Z"))
        #expect(try Timestamp.date(unixTime: 1_794_105_900) == Timestamp.parse("2026-11-08T02:45:00Z"))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300, 253_402_300_800_000, 9e15, 1e17])
    func rejectsOutOfRangeNumbers(_ value: Double) {
        #expect(throws: TimestampError.self) { try Timestamp.date(unixTime: value) }
    }

    @Test func formatsLikeToISOString() throws {
        #expect(try Timestamp.format(instant(1_794_105_900)) == "2026-11-08T02:45:00.000Z")
        #expect(try Timestamp.format(instant(1_792_505_895, nanoseconds: 780_705_000)) == "2026-10-20T14:18:15.780Z")
        #expect(try Timestamp.format(Date(timeIntervalSince1970: 1_794_105_900.123)) == "2026-11-08T02:45:00.123Z")
        #expect(try Timestamp.format(instant(0)) == "1970-01-01T00:00:00.000Z")
        #expect(try Timestamp.format(instant(-1, nanoseconds: 500_000_000)) == "1969-12-31T23:59:59.500Z")
        #expect(try Timestamp.format(instant(1_709_208_000)) == "2024-02-29T12:00:00.000Z")
        #expect(try Timestamp.format(instant(253_402_300_799)) == "9999-12-31T23:59:59.000Z")
        #expect(try Timestamp.format(instant(-62_135_596_800)) == "0001-01-01T00:00:00.000Z")
        #expect(throws: TimestampError.self) { try Timestamp.format(instant(253_402_300_800)) }
        #expect(throws: TimestampError.self) { try Timestamp.format(Date(timeIntervalSinceReferenceDate: .nan)) }
    }

    @Test func formatThenParseRoundTripsAtMilliseconds() throws {
        let random = SeededRandomSource(seed: 7)
        for _ in 0..<2_000 {
            let millis = Int64(random.next() % 4_102_444_800_000)  // up to 2100
            let date = try Timestamp.parse(String(millis))
            let text = try Timestamp.format(date)
            #expect(try Timestamp.parse(text) == date)
            #expect(text.count == 24)
        }
    }

    @Test func decodingStrategyReadsEveryForm() throws {
        let json = """
            [{"at":"2026-11-08T02:45:00.000Z"},{"at":1794105900000},{"at":1794105900},
             {"at":"2026-11-08 02:45:00"},{"at":"2026-11-08T03:45:00+01:00"},{"at":"1794105900000"}]
            """
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible
        let values = try decoder.decode([Stamped].self, from: Data(json.utf8))
        #expect(values.count == 6)
        #expect(values.allSatisfy { $0.at == instant(1_794_105_900) })
    }

    @Test func decodingStrategyWithTimeZone() throws {
        let lisbon = try #require(TimeZone(identifier: "Europe/Lisbon"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible(zonelessTimeZone: lisbon)
        let value = try decoder.decode(Stamped.self, from: Data(#"{"at":"2026-07-01T10:00"}"#.utf8))
        #expect(value.at == instant(1_782_896_400))
    }

    @Test func decodingErrorsNameThePathAndText() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible
        do {
            _ = try decoder.decode(Stamped.self, from: Data(#"{"at":"2026-13-01"}"#.utf8))
            Issue.record("expected an error")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["at"])
            #expect(context.underlyingError as? TimestampError == .malformed("2026-13-01"))
        }
        for json in [#"{"at":true}"#, #"{"at":null}"#, #"{"at":{}}"#] {
            #expect(throws: DecodingError.self) { try decoder.decode(Stamped.self, from: Data(json.utf8)) }
        }
    }

    @Test func encodingStrategyWritesMilliseconds() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .companionISO8601
        let data = try encoder.encode(Stamped(at: instant(1_794_105_900)))
        #expect(String(decoding: data, as: UTF8.self) == #"{"at":"2026-11-08T02:45:00.000Z"}"#)
        // A milliseconds document re-encodes as the ISO string (PrompTugal never writes numbers).
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible
        let read = try decoder.decode(Stamped.self, from: Data(#"{"at":1794105900000}"#.utf8))
        #expect(try encoder.encode(read) == data)
        #expect(throws: EncodingError.self) { try encoder.encode(Stamped(at: .init(timeIntervalSince1970: 1e15))) }
    }

    @Test func decodesTenThousandStampsQuickly() throws {
        var json = "["
        for index in 0..<10_000 {
            if index > 0 { json += "," }
            json += "\"2026-10-20T14:18:\(String(format: "%02d", index % 60)).780705\""
        }
        json += "]"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible
        let start = ContinuousClock.now
        let dates = try decoder.decode([Date].self, from: Data(json.utf8))
        let elapsed = ContinuousClock.now - start
        #expect(dates.count == 10_000)
        #expect(dates[1].timeIntervalSince(dates[0]) > 0.999_999)
        // Generous bound for an unoptimized build on a shared machine; a formatter per call takes far longer.
        #expect(elapsed < .seconds(5))
    }
}
