import Foundation
import Testing

@testable import CompanionCore

/// The cheap paths of `Timestamp`: a decoder tries the kind of stamp it met last first, and a Unix number's text is
/// only rendered for an error. Neither may change a result.
@Suite("Timestamp fast paths")
struct TimestampFastPathTests {
    struct Stamps: Decodable {
        var stamps: [Date]
    }

    static func decode(_ json: String) throws -> [Date] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible
        return try decoder.decode(Stamps.self, from: Data(json.utf8)).stamps
    }

    @Test func numbersAndTextInAnyOrderReadTheSameInstants() throws {
        let seconds = try Timestamp.parse("2026-11-30T07:29:36Z")
        let millis = try Timestamp.parse("2026-11-30T07:29:36.123Z")
        let expected = [seconds, seconds, millis, seconds, millis, seconds, seconds]
        // Runs of each kind, then alternation, then text first: the order of the tries follows the input.
        let json = #"""
            {"stamps":[1796023776,"2026-11-30T07:29:36Z",1796023776123,"1796023776","2026-11-30T07:29:36.123Z",
            1796023776.0,"2026-11-30 07:29:36"]}
            """#
        #expect(try Self.decode(json) == expected)
        #expect(try Self.decode(json) == expected)
        #expect(try Self.decode(#"{"stamps":["2026-11-30T07:29:36Z",1796023776]}"#) == [seconds, seconds])
        #expect(try Self.decode(#"{"stamps":[1796023776,1796023776]}"#) == [seconds, seconds])
    }

    @Test func aValueOfNeitherKindIsStillATypeMismatchNamingItsPath() throws {
        for json in [#"{"stamps":[1796023776,true]}"#, #"{"stamps":["2026-11-30",{}]}"#] {
            #expect {
                _ = try Self.decode(json)
            } throws: { error in
                guard case .typeMismatch(_, let context) = error as? DecodingError else { return false }
                return context.codingPath.last?.intValue == 1
            }
        }
    }

    @Test(arguments: [-9e14, 8e15, 2.6e11 * 1_000])
    func anOutOfRangeWholeNumberStillNamesItsValue(_ value: Double) {
        #expect(throws: TimestampError.outOfRange(String(describing: value))) { try Timestamp.date(unixTime: value) }
    }

    @Test func aBadNumberAfterAGoodOneIsStillDataCorrupted() throws {
        #expect {
            _ = try Self.decode(#"{"stamps":[1796023776,1e300]}"#)
        } throws: { error in
            guard case .dataCorrupted(let context) = error as? DecodingError else { return false }
            return context.underlyingError is TimestampError
        }
    }
}
