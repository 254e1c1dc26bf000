import CompanionHTTP
import Foundation
import Testing

/// Inputs the `FuzzSSEParser` target found (Fuzz/), kept as regression tests.
@Suite("SSE parser fuzz regressions")
struct SSEParserFuzzTests {
    /// Found as `data:` followed by 48 bytes 0xFF under a 64-byte cap: within the cap in bytes, the event is
    /// dispatched, each invalid byte read as one U+FFFD (so its UTF-8 form is three times longer).
    @Test func invalidUTF8WithinTheCapIsDispatchedAsReplacementCharacters() throws {
        var parser = SSEParser(maxFrameBytes: 64)
        let bytes = Array("data:".utf8) + [UInt8](repeating: 0xFF, count: 48) + Array(" y\n\n".utf8)
        let events = try parser.feed(bytes)
        #expect(events.count == 1)
        #expect(events.first?.data.unicodeScalars.count == 50)
        #expect(events.first?.data.hasPrefix("\u{FFFD}") == true)
    }

    @Test("the same bytes give the same events in any chunking, including a CR LF split", arguments: [1, 2, 3, 16])
    func chunkingDoesNotChangeEvents(_ size: Int) throws {
        let bytes = Array("\u{FEFF}id: 1\r\nevent: a\r\ndata: x\r\n\r\ndata:y\rid:\0z\r\r: c\n".utf8)
        var whole = SSEParser()
        let expected = try whole.feed(bytes)
        var parser = SSEParser()
        var events: [ServerSentEvent] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            events += try parser.feed(bytes[start..<min(bytes.count, start + size)])
        }
        #expect(events == expected)
        #expect(expected.map(\.data) == ["x", "y"])
        #expect(expected.map(\.id) == ["1", "1"])
    }
}
