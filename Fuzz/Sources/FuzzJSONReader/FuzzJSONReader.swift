import CompanionCore
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzJSONReader_main`): runs libFuzzer's driver.
@_cdecl("FuzzJSONReader_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// The kit's fast JSON reader against `JSONDecoder`: any bytes read without a trap, and wherever the reader gives
/// a value it is the decoder's value. (Not against `JSONSerialization`: on Linux it rounds numbers of more than 15
/// digits its own way, where the decoder and the reader give `strtod`'s correctly rounded `Double`.)
func check(_ bytes: Data) {
    guard let value = JSONValue.reading(bytes) else { return }
    let decoded = try? JSONDecoder().decode(JSONValue.self, from: bytes)
    require(value == decoded, "the reader's value is not the decoder's")
}
