import CompanionCore
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzTimestamp_main`): runs libFuzzer's driver.
@_cdecl("FuzzTimestamp_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

let lisbon = TimeZone(identifier: "Europe/Lisbon") ?? .gmt

func check(_ bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    for zone in [TimeZone.gmt, lisbon] {
        let date: Date
        do throws(TimestampError) {
            date = try Timestamp.parse(text, zonelessTimeZone: zone)
        } catch {
            // The error names the text, cut short: never the whole of a huge input.
            require(error.description.utf8.count < 400, "an error message that grows with the input")
            continue
        }
        // What was read is written, and what is written reads back to the same millisecond.
        guard let written = try? Timestamp.format(date) else {
            require(false, "parsed \(text.debugDescription) but cannot write it")
            return
        }
        guard let again = try? Timestamp.parse(written) else {
            require(false, "cannot read back \(written)")
            return
        }
        require(written.utf8.count == 24, "written form \(written) is not 24 bytes")
        require(abs(again.timeIntervalSince(date)) <= 0.001, "round trip of \(text.debugDescription) moved")
        require((try? Timestamp.format(again)) == written, "writing is not stable for \(written)")
    }
    // Numbers: every finite double is a date or an out-of-range error, never a trap.
    if bytes.count >= 8 {
        let bits = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let value = Double(bitPattern: bits)
        if let date = try? Timestamp.date(unixTime: value) { _ = try? Timestamp.format(date) }
    }
}
