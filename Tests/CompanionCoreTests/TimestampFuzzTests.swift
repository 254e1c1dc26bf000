import CompanionCore
import Foundation
import Testing

/// Inputs the `FuzzTimestamp` target found (Fuzz/), kept as regression tests: what is read is written, and
/// what is written reads back to the same millisecond.
@Suite("Timestamp fuzz regressions")
struct TimestampFuzzTests {
    @Test(
        "far from 2001 a Double holds ~30 µs: the written millisecond is the one read",
        arguments: [
            "7026-10-20T14:18:15.785", "8888-08-08T08:08:08.001", "9999-12-31T23:59:59.999", "0000-01-01T00:00:00.001",
        ])
    func distantMillisecondsRoundTrip(_ text: String) throws {
        let date = try Timestamp.parse(text)
        let written = try Timestamp.format(date)
        #expect(written == text + "Z")
        #expect(try Timestamp.parse(written) == date)
    }

    @Test("the last instants of 9999 are written as 23:59:59.999, never refused after being read")
    func lastInstantsOf9999AreWritable() throws {
        for text in ["9999-12-31T23:59:59.99999", "9999-12-31T23:59:59.999999999"] {
            let date = try Timestamp.parse(text)
            #expect(try Timestamp.format(date) == "9999-12-31T23:59:59.999Z")
        }
        // The first instant of 10000 itself stays out of range.
        #expect(throws: TimestampError.self) { try Timestamp.parse("10000-01-01T00:00:00Z") }
    }
}
