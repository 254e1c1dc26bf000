import Foundation

/// The kind of a WebSocket frame (RFC 6455 §5.2).
public enum WebSocketOpcode: UInt8, Sendable, Hashable {
    /// A further fragment of the message in progress.
    case continuation = 0x0
    /// The first (or only) frame of a text message: UTF-8.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// The close handshake: an optional two-byte code and a UTF-8 reason.
    case close = 0x8
    /// A ping, answered with a pong carrying the same payload.
    case ping = 0x9
    /// A pong, the answer to a ping (or an unasked heartbeat).
    case pong = 0xA

    /// Whether this is a control frame (close, ping, pong): at most 125 bytes, never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// A close code (RFC 6455 §7.4) with the ones the kit sends by name.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The two-byte code.
    public var rawValue: UInt16

    /// Creates a code from its number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: going away (the app is closing the channel, or the server is shutting down).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data this end cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: no code was in the close frame (never sent on the wire).
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent on the wire).
    public static let abnormal = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message that is not UTF-8.
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message that breaks the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met an unexpected condition.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether the code may appear in a close frame (RFC 6455 §7.4.1 and the IANA registry): 1000–1003,
    /// 1007–1014, and 3000–4999 for libraries and applications.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The number.
    public var description: String { "\(rawValue)" }
}

/// A peer that broke RFC 6455: the connection is failed with `closeCode` and this sentence.
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code this end closes with (1002, 1007 or 1009).
    public var closeCode: WebSocketCloseCode
    /// What the peer did, in words.
    public var description: String

    /// Creates an error.
    public init(_ closeCode: WebSocketCloseCode, _ description: String) {
        self.closeCode = closeCode
        self.description = description
    }
}

/// What the decoder read: a whole message, or a control frame.
public enum WebSocketEvent: Sendable, Hashable {
    /// A complete text message (its fragments joined, UTF-8 checked).
    case text(String)
    /// A complete binary message (its fragments joined).
    case binary(Data)
    /// A ping with its payload: answer it with a pong carrying the same bytes.
    case ping(Data)
    /// A pong with its payload.
    case pong(Data)
    /// The peer's close frame: its code (`nil` when the frame had none) and reason. Nothing after it is read.
    case close(WebSocketCloseCode?, String)
}

/// Writes frames (RFC 6455 §5.2). A client masks every frame it sends (§5.3) with a fresh key.
public enum WebSocketFrameEncoder {
    /// The bytes of one frame: `payload` under `opcode`, masked with `maskKey` when given (a client's frames),
    /// with the FIN bit set unless `fin` is false.
    public static func frame(
        _ opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true, maskKey: UInt32?
    ) -> [UInt8] {
        let length = payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 14)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(length >> 8))
            bytes.append(UInt8(length & 0xFF))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8((UInt64(length) >> UInt64(shift)) & 0xFF))
            }
        }
        let start = bytes.count
        if let maskKey {
            let key = [
                UInt8(maskKey >> 24), UInt8((maskKey >> 16) & 0xFF), UInt8((maskKey >> 8) & 0xFF),
                UInt8(maskKey & 0xFF),
            ]
            bytes.append(contentsOf: key)
            bytes.append(contentsOf: payload)
            WebSocketMask.apply(key, to: &bytes, from: start + 4)
        } else {
            bytes.append(contentsOf: payload)
        }
        return bytes
    }

    /// The payload of a close frame: the code (big-endian) and the reason, cut to fit 125 bytes on a character
    /// boundary.
    public static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 {
            var cut = String(decoding: reasonBytes.prefix(123), as: UTF8.self)
            while cut.utf8.count > 123 || cut.hasSuffix("\u{FFFD}") { cut.removeLast() }
            reasonBytes = Array(cut.utf8)
        }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reasonBytes
    }
}

/// The XOR masking of §5.3, eight bytes at a time.
enum WebSocketMask {
    /// XORs `bytes[from...]` with the four-byte `key`, the first byte of the key on `bytes[from]`.
    static func apply(_ key: [UInt8], to bytes: inout [UInt8], from: Int) {
        let count = bytes.count - from
        guard count > 0, key.count == 4 else { return }
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress?.advanced(by: from) else { return }
            var wide: UInt64 = 0
            withUnsafeMutableBytes(of: &wide) { word in
                for index in 0..<8 { word[index] = key[index % 4] }
            }
            var offset = 0
            while offset + 8 <= count {
                let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                base.storeBytes(of: value ^ wide, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            let bytePointer = base.assumingMemoryBound(to: UInt8.self)
            while offset < count {
                bytePointer[offset] ^= key[offset % 4]
                offset += 1
            }
        }
    }
}

/// Checks UTF-8 a piece at a time (Unicode Table 3-7, well-formed byte sequences), so a text message split
/// across fragments, or a code point split across them, is checked as it arrives and refused at its first bad
/// byte.
public struct UTF8Validator: Sendable, Hashable {
    private var needed = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at the start of a text.
    public init() {}

    /// Whether nothing is left half-read (the text so far ends on a character boundary).
    public var isComplete: Bool { needed == 0 }

    /// Reads `bytes`; `false` at the first byte that cannot continue well-formed UTF-8.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            if needed == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: needed = 1
                case 0xE0: (needed, lower) = (2, 0xA0)
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: (needed, upper) = (2, 0x9F)
                case 0xF0: (needed, lower) = (3, 0x90)
                case 0xF1...0xF3: needed = 3
                case 0xF4: (needed, upper) = (3, 0x8F)
                default: return false
                }
            } else {
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    /// Reads `bytes` (see `feed(_:)` on a raw buffer).
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        return array.withUnsafeBytes { feed($0) }
    }
}

/// Reads a client's incoming byte stream into messages and control frames (RFC 6455 §5), in any cut.
///
/// Rules (each is a way a peer can break the protocol, failing the connection with the code in brackets):
/// - A server's frame is never masked (1002); no extension is negotiated, so the RSV bits are 0 (1002); an
///   unknown opcode is refused (1002).
/// - A control frame is at most 125 bytes and never fragmented (1002); it may arrive between the fragments of a
///   message and is delivered at once.
/// - A continuation without a message in progress, or a new message before the last one ended, is refused (1002).
/// - A text message is checked as each fragment arrives: the first byte that is not UTF-8 fails it (1007), and so
///   does a message that ends inside a character.
/// - A message (all its fragments) larger than `maxMessageBytes` is refused as soon as its length is known (1009).
/// - A close frame's code must be one allowed on the wire, with a UTF-8 reason (1002, 1007); a one-byte close
///   payload is refused (1002). Nothing after the close frame is read.
public struct WebSocketDecoder: Sendable {
    /// The largest message accepted, all fragments together.
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var message: [UInt8] = []
    private var messageOpcode: WebSocketOpcode?
    private var validator = UTF8Validator()
    private var closed = false

    /// A decoder refusing messages over `maxMessageBytes` (16 MiB by default).
    public init(maxMessageBytes: Int = 16 << 20) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Whether a close frame was read (nothing more will be).
    public var isClosed: Bool { closed }

    /// Reads `bytes` and returns what they complete, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(WebSocketProtocolError) -> [WebSocketEvent] {
        guard !closed else { return [] }
        buffer.append(contentsOf: bytes)
        var events: [WebSocketEvent] = []
        while !closed, let event = try nextFrame() {
            if let event { events.append(event) }
        }
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        return events
    }

    /// Reads one frame from the buffer: `nil` when it is not whole yet; `.some(nil)` for a fragment that
    /// completes nothing.
    private mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketEvent?? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        let fin = first & 0x80 != 0
        guard first & 0x70 == 0 else { throw WebSocketProtocolError(.protocolError, "a frame set a reserved bit") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(.protocolError, "a frame has the unknown opcode \(first & 0x0F)")
        }
        guard second & 0x80 == 0 else { throw WebSocketProtocolError(.protocolError, "the server masked a frame") }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[readIndex + index]) }
            guard length >> 63 == 0 else {
                throw WebSocketProtocolError(.protocolError, "a frame length has its top bit set")
            }
            headerLength = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(.protocolError, "a control frame was fragmented") }
            guard length <= 125 else {
                throw WebSocketProtocolError(.protocolError, "a control frame is longer than 125 bytes")
            }
        } else {
            let sofar = opcode == .continuation ? message.count : 0
            guard length <= UInt64(maxMessageBytes - min(sofar, maxMessageBytes)) else {
                throw WebSocketProtocolError(
                    .messageTooBig, "a message is larger than the limit of \(maxMessageBytes) bytes")
            }
        }
        let frameLength = headerLength + Int(length)
        guard available >= frameLength else { return nil }
        let payloadStart = readIndex + headerLength
        let payload = buffer[payloadStart..<(payloadStart + Int(length))]
        readIndex += frameLength
        return .some(try handle(opcode, fin: fin, payload: payload))
    }

    private mutating func handle(_ opcode: WebSocketOpcode, fin: Bool, payload: ArraySlice<UInt8>)
        throws(WebSocketProtocolError) -> WebSocketEvent?
    {
        switch opcode {
        case .ping: return .ping(Data(payload))
        case .pong: return .pong(Data(payload))
        case .close: return try close(payload)
        case .text, .binary:
            guard messageOpcode == nil else {
                throw WebSocketProtocolError(.protocolError, "a new message began before the last one ended")
            }
            messageOpcode = opcode
            validator = UTF8Validator()
            message.removeAll(keepingCapacity: false)
        case .continuation:
            guard messageOpcode != nil else {
                throw WebSocketProtocolError(.protocolError, "a continuation frame came without a message")
            }
        }
        if messageOpcode == .text {
            let valid = payload.withUnsafeBytes { validator.feed($0) }
            guard valid else { throw WebSocketProtocolError(.invalidPayload, "a text message is not valid UTF-8") }
        }
        message.append(contentsOf: payload)
        guard fin else { return nil }
        defer {
            messageOpcode = nil
            message = []
        }
        if messageOpcode == .text {
            guard validator.isComplete else {
                throw WebSocketProtocolError(.invalidPayload, "a text message ends inside a UTF-8 character")
            }
            return .text(String(decoding: message, as: UTF8.self))
        }
        return .binary(Data(message))
    }

    private mutating func close(_ payload: ArraySlice<UInt8>) throws(WebSocketProtocolError) -> WebSocketEvent {
        closed = true
        guard !payload.isEmpty else { return .close(nil, "") }
        guard payload.count >= 2 else {
            throw WebSocketProtocolError(.protocolError, "a close frame carries one byte")
        }
        let start = payload.startIndex
        let code = WebSocketCloseCode(rawValue: UInt16(payload[start]) << 8 | UInt16(payload[start + 1]))
        guard code.isValidOnWire else {
            throw WebSocketProtocolError(.protocolError, "a close frame carries the code \(code), not allowed")
        }
        let reason = payload.dropFirst(2)
        var validator = UTF8Validator()
        guard reason.withUnsafeBytes({ validator.feed($0) }), validator.isComplete else {
            throw WebSocketProtocolError(.invalidPayload, "a close reason is not valid UTF-8")
        }
        return .close(code, String(decoding: reason, as: UTF8.self))
    }
}
