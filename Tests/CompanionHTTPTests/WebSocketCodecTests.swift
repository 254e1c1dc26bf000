import CompanionHTTP
import Foundation
import Testing

@Suite("WebSocket codec (RFC 6455)")
struct WebSocketCodecTests {
    /// Feeds `bytes` in chunks of `size` and returns every event, or the error.
    private func decode(_ bytes: [UInt8], chunk size: Int = .max, cap: Int = 16 << 20) -> Result<
        [WebSocketEvent], WebSocketProtocolError
    > {
        var decoder = WebSocketDecoder(maxMessageBytes: cap)
        var events: [WebSocketEvent] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + max(1, min(size, bytes.count)))
            do throws(WebSocketProtocolError) {
                events += try decoder.feed(bytes[index..<end])
            } catch {
                return .failure(error)
            }
            index = end
        }
        return .success(events)
    }

    private func failure(_ bytes: [UInt8], cap: Int = 16 << 20) -> WebSocketCloseCode? {
        if case .failure(let error) = decode(bytes, cap: cap) { return error.closeCode }
        return nil
    }

    private func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.frame(
            WebSocketOpcode(rawValue: opcode) ?? .binary, payload: payload, fin: fin, maskKey: nil)
    }

    @Test("K-WS-1: RFC 6455 §5.7's examples encode and decode byte for byte", arguments: [1, 2, 3, 1000])
    func rfcExamples(chunk: Int) throws {
        let hello = Array("Hello".utf8)
        let unmasked: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(WebSocketFrameEncoder.frame(.text, payload: hello, maskKey: nil) == unmasked)
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(WebSocketFrameEncoder.frame(.text, payload: hello, maskKey: 0x37fa_213d) == masked)
        #expect(try decode(unmasked, chunk: chunk).get() == [.text("Hello")])
        let fragmented: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]
        #expect(try decode(fragmented, chunk: chunk).get() == [.text("Hello")])
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(try decode(ping, chunk: chunk).get() == [.ping(Data(hello))])
        let big = [UInt8](repeating: 7, count: 256)
        let bigFrame = WebSocketFrameEncoder.frame(.binary, payload: big, maskKey: nil)
        #expect(Array(bigFrame.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        let huge = [UInt8](repeating: 9, count: 65536)
        let hugeFrame = WebSocketFrameEncoder.frame(.binary, payload: huge, maskKey: nil)
        #expect(Array(hugeFrame.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(try decode(bigFrame + hugeFrame, chunk: chunk).get() == [.binary(Data(big)), .binary(Data(huge))])
    }

    @Test("K-WS-2: masking XORs with the four-byte key from the payload's first byte, at any length")
    func masking() {
        for length in [0, 1, 7, 8, 9, 125, 126, 1000] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let bytes = WebSocketFrameEncoder.frame(.binary, payload: payload, maskKey: 0x0102_0304)
            let key: [UInt8] = [1, 2, 3, 4]
            let start = bytes.count - length
            #expect(bytes[start - 4..<start].elementsEqual(key))
            let unmasked = bytes[start...].enumerated().map { $0.element ^ key[$0.offset % 4] }
            #expect(unmasked == payload, "length \(length)")
        }
    }

    @Test("K-WS-3: the handshake's accept is RFC 6455's example, and a wrong one is refused")
    func handshakeAccept() throws {
        #expect(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let handshake = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        let good: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
        ]
        #expect(handshake.problem(with: good) == nil)
        var wrong = good
        wrong["Sec-WebSocket-Accept"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAA="
        #expect(handshake.problem(with: wrong)?.contains("Sec-WebSocket-Accept") == true)
        let url = try #require(URL(string: "wss://example.org:8443/api/websocket?x=1"))
        let request = String(decoding: handshake.request(for: url), as: UTF8.self)
        #expect(request.hasPrefix("GET /api/websocket?x=1 HTTP/1.1\r\nHost: example.org:8443\r\n"))
        #expect(request.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
        #expect(request.hasSuffix("\r\n\r\n"))
    }

    @Test("K-WS-4: UTF-8 is checked across fragments, even inside a character, and fails at the bad fragment")
    func utf8AcrossFragments() throws {
        let text = Array("κόσμε".utf8)
        // Cut inside the second character's two bytes.
        let split = frame(1, Array(text[0..<3]), fin: false) + frame(0, Array(text[3...]))
        #expect(try decode(split).get() == [.text("κόσμε")])
        // The bad byte comes in the middle fragment: the decoder fails there, before the final fragment arrives.
        var decoder = WebSocketDecoder()
        _ = try decoder.feed(frame(1, Array(text), fin: false))
        #expect(throws: WebSocketProtocolError(.invalidPayload, "a text message is not valid UTF-8")) {
            try decoder.feed(frame(0, [0xED, 0xA0, 0x80], fin: false))
        }
        // A message that ends halfway through a character.
        #expect(failure(frame(1, [0xCE])) == .invalidPayload)
        // Binary is not checked.
        #expect(try decode(frame(2, [0xFF, 0xFE])).get() == [.binary(Data([0xFF, 0xFE]))])
    }

    @Test("K-WS-5: protocol breaches fail with 1002")
    func protocolErrors() {
        #expect(failure([0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0]) == .protocolError)  // a masked server frame
        #expect(failure([0xC1, 0x00]) == .protocolError)  // RSV1
        #expect(failure([0x83, 0x00]) == .protocolError)  // opcode 3
        #expect(failure(frame(9, [UInt8](repeating: 0, count: 126))) == .protocolError)  // long control frame
        #expect(failure(frame(9, [1], fin: false)) == .protocolError)  // fragmented ping
        #expect(failure(frame(0, [1])) == .protocolError)  // continuation without a message
        #expect(failure(frame(1, [0x41], fin: false) + frame(1, [0x42])) == .protocolError)  // a new message mid-way
    }

    @Test("K-WS-6: a control frame between fragments comes out at once, and the message after it")
    func interleavedControl() throws {
        let bytes = frame(1, Array("ab".utf8), fin: false) + frame(9, [7]) + frame(0, Array("cd".utf8))
        #expect(try decode(bytes, chunk: 1).get() == [.ping(Data([7])), .text("abcd")])
    }

    @Test("K-WS-7: a message over the cap fails with 1009 as soon as its length is known")
    func sizeCap() throws {
        // The header alone announces 2000 bytes: refused before any payload arrives.
        var decoder = WebSocketDecoder(maxMessageBytes: 1000)
        #expect(throws: WebSocketProtocolError.self) { try decoder.feed([0x82, 0x7E, 0x07, 0xD0]) }
        #expect(failure(frame(2, [UInt8](repeating: 0, count: 1000)), cap: 1000) == nil)
        // Fragments that add up past the cap.
        let parts =
            frame(2, [UInt8](repeating: 0, count: 600), fin: false) + frame(0, [UInt8](repeating: 0, count: 600))
        #expect(failure(parts, cap: 1000) == .messageTooBig)
    }

    @Test("K-WS-8: close codes: valid ones with a reason, invalid codes 1002, a bad reason 1007, nothing read after")
    func closeFrames() throws {
        let normal = frame(8, [0x03, 0xE8] + Array("bye".utf8)) + frame(1, Array("after".utf8))
        #expect(try decode(normal).get() == [.close(.normal, "bye")])
        #expect(try decode(frame(8, [])).get() == [.close(nil, "")])
        #expect(try decode(frame(8, [0x0F, 0xA0])).get() == [.close(WebSocketCloseCode(rawValue: 4000), "")])
        for invalid: UInt16 in [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999, 5000, 65535] {
            #expect(failure(frame(8, [UInt8(invalid >> 8), UInt8(invalid & 0xFF)])) == .protocolError, "\(invalid)")
        }
        #expect(failure(frame(8, [0x03])) == .protocolError)
        #expect(failure(frame(8, [0x03, 0xE8, 0xFF])) == .invalidPayload)
        #expect(WebSocketFrameEncoder.closePayload(.normal, reason: String(repeating: "é", count: 100)).count <= 125)
    }
}
