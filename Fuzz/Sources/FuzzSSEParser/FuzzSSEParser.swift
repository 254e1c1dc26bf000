import CompanionHTTP
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzSSEParser_main`): runs libFuzzer's driver.
@_cdecl("FuzzSSEParser_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// The whole input as one chunk.
func parseWhole(_ bytes: [UInt8], cap: Int) -> Result<[ServerSentEvent], SSEParseError> {
    var parser = SSEParser(maxFrameBytes: cap)
    do throws(SSEParseError) {
        return .success(try parser.feed(bytes))
    } catch {
        return .failure(error)
    }
}

/// The same input cut into chunks of `size` bytes (a network read boundary can fall anywhere, even in a CRLF).
func parseChunked(_ bytes: [UInt8], cap: Int, size: Int) -> Result<[ServerSentEvent], SSEParseError> {
    var parser = SSEParser(maxFrameBytes: cap)
    var events: [ServerSentEvent] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        do throws(SSEParseError) {
            events += try parser.feed(bytes[start..<end])
        } catch {
            return .failure(error)
        }
        start = end
    }
    return .success(events)
}

func check(_ data: Data) {
    guard let first = data.first else { return }
    // The first byte picks the chunk size and the frame cap, so both vary without a second input.
    let bytes = [UInt8](data.dropFirst())
    let chunk = Int(first & 0x0F) + 1
    let cap = first & 0x80 == 0 ? 1024 * 1024 : 64
    let whole = parseWhole(bytes, cap: cap)
    let chunked = parseChunked(bytes, cap: cap, size: chunk)
    switch (whole, chunked) {
    case (.success(let a), .success(let b)):
        require(a == b, "chunking at \(chunk) bytes changed the events")
        for event in a {
            require(!event.event.isEmpty, "an event without a type")
            // Invalid UTF-8 becomes U+FFFD (three bytes), so the cap bounds scalars, one per byte at most.
            require(event.data.unicodeScalars.count <= cap, "an event larger than the cap")
            require(!(event.id ?? "").contains("\0"), "an id with NUL")
            require(!event.data.contains("\r"), "a CR survived in the data")
        }
    case (.failure(let a), .failure(let b)):
        require(a == b, "chunking changed the error")
    default:
        require(false, "chunking at \(chunk) bytes changed success into failure or back")
    }
}
