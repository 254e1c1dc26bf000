import CompanionHTTP
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzWebSocketDecoder_main`): runs libFuzzer's driver.
@_cdecl("FuzzWebSocketDecoder_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// The input cut into chunks of `size` bytes (a network read boundary can fall anywhere, even in a header).
func decode(_ bytes: [UInt8], cap: Int, size: Int) -> Result<[WebSocketEvent], WebSocketProtocolError> {
    var decoder = WebSocketDecoder(maxMessageBytes: cap)
    var events: [WebSocketEvent] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        do throws(WebSocketProtocolError) {
            events += try decoder.feed(bytes[start..<end])
        } catch {
            return .failure(error)
        }
        start = end
    }
    return .success(events)
}

func check(_ data: Data) {
    guard let first = data.first else { return }
    // The first byte picks the chunk size and the message cap, so both vary without a second input.
    let bytes = [UInt8](data.dropFirst())
    let chunk = Int(first & 0x0F) + 1
    let cap = first & 0x80 == 0 ? 16 << 20 : 64
    let whole = decode(bytes, cap: cap, size: max(1, bytes.count))
    let chunked = decode(bytes, cap: cap, size: chunk)
    switch (whole, chunked) {
    case (.success(let a), .success(let b)):
        require(a == b, "chunking at \(chunk) bytes changed the events")
        for event in a {
            switch event {
            case .text(let text): require(text.utf8.count <= cap, "a text message larger than the cap")
            case .binary(let data): require(data.count <= cap, "a binary message larger than the cap")
            case .ping(let data), .pong(let data): require(data.count <= 125, "a control payload over 125 bytes")
            case .close(let code, _): require(code?.isValidOnWire ?? true, "a close code not allowed on the wire")
            }
        }
        require(a.filter { if case .close = $0 { return true } else { return false } }.count <= 1, "two closes")
    case (.failure(let a), .failure(let b)):
        require(a.closeCode == b.closeCode, "chunking changed the close code")
        require([1002, 1007, 1009].contains(a.closeCode.rawValue), "a failure with code \(a.closeCode)")
    default:
        // A fragment that ends early is legal while a later byte is bad: the bad byte is found either way.
        require(false, "chunking at \(chunk) bytes changed success into failure or back")
    }
}
