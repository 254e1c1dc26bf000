/// A strict JSON reader over UTF-8 bytes that hands out one value at a time, for the few bodies read so often
/// that `JSONDecoder`'s cost matters (a page of sessions is read on every refresh of the list).
///
/// Rule: a reader never guesses. Anything it does not read exactly as `JSONDecoder` would (a byte that is not
/// JSON, a number that is not a plain integer where an `Int` is expected, a key written with escapes, nesting
/// deeper than `maximumDepth`) makes the method return `nil` or `false`, and the caller decodes the whole body
/// with `JSONDecoder` instead, whose error then names the field. So the reader is an accelerator, never a second
/// opinion: what it accepts, it reads to the same values; what it refuses, `JSONDecoder` decides.
struct JSONPullReader {
    /// The deepest nesting read; deeper bodies go to `JSONDecoder`.
    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// A reader at the start of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// The next byte that is not whitespace, without consuming it.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Consumes `byte` (after whitespace) when it comes next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    // MARK: - Objects

    /// Reads the members of the object that comes next: `member` gets each key (its bytes, without quotes) with
    /// the reader just past the colon, and must read the value. `false` when the bytes are not such an object,
    /// a key carries an escape, or `member` refused.
    mutating func readObject(_ member: (inout JSONPullReader, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard consume(.openBrace) else { return false }
        if consume(.closeBrace) { return true }
        repeat {
            guard let key = plainKey(), consume(.colon), member(&self, key) else { return false }
        } while consume(.comma)
        return consume(.closeBrace)
    }

    /// Reads the elements of the array that comes next, `element` reading each one.
    mutating func readArray(_ element: (inout JSONPullReader) -> Bool) -> Bool {
        guard consume(.openBracket) else { return false }
        if consume(.closeBracket) { return true }
        repeat {
            guard element(&self) else { return false }
        } while consume(.comma)
        return consume(.closeBracket)
    }

    /// A key's bytes, checked to be UTF-8, when the key has no escape (every key the servers write).
    private mutating func plainKey() -> UnsafeBufferPointer<UInt8>? {
        guard let scanned = scanString(), !scanned.hasEscape else { return nil }
        let key = UnsafeBufferPointer(rebasing: bytes[scanned.range])
        guard scanned.isASCII || String(validating: key, as: UTF8.self) != nil else { return nil }
        return key
    }

    // MARK: - Scalars

    /// Consumes `null` when it comes next.
    mutating func readNull() -> Bool { readLiteral(Self.nullBytes) }

    /// A `true` or `false`.
    mutating func readBool() -> Bool? {
        if readLiteral(Self.trueBytes) { return true }
        if readLiteral(Self.falseBytes) { return false }
        return nil
    }

    /// A string, with its escapes resolved; `nil` for anything else, invalid UTF-8 or a lone surrogate escape.
    mutating func readString() -> String? {
        guard let scanned = scanString() else { return nil }
        let raw = UnsafeBufferPointer(rebasing: bytes[scanned.range])
        if !scanned.hasEscape {
            return scanned.isASCII ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
        }
        return Self.unescape(raw)
    }

    /// An integer written without fraction or exponent that fits an `Int`.
    mutating func readInt() -> Int? {
        guard let number = scanNumber(), number.isInteger else { return nil }
        var index = number.range.lowerBound
        let negative = bytes[index] == .minus
        if negative { index += 1 }
        guard number.range.upperBound - index <= 18 else { return nil }
        var value = 0
        while index < number.range.upperBound {
            value = value * 10 + Int(bytes[index] &- .zero)
            index += 1
        }
        return negative ? -value : value
    }

    /// Any number as the nearest `Double` (integers of up to 15 digits exactly, the rest through the standard
    /// library's correctly rounded conversion, as `JSONDecoder` reads them).
    mutating func readDouble() -> Double? {
        guard let number = scanNumber() else { return nil }
        if number.isInteger, number.range.count <= 15 {
            var index = number.range.lowerBound
            let negative = bytes[index] == .minus
            if negative { index += 1 }
            var value: Int64 = 0
            while index < number.range.upperBound {
                value = value * 10 + Int64(bytes[index] &- .zero)
                index += 1
            }
            return Double(negative ? -value : value)
        }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[number.range]), as: UTF8.self))
    }

    /// Skips the value that comes next, checking it is JSON; returns its bytes' range.
    mutating func skipValue() -> Range<Int>? {
        skipWhitespace()
        let start = index
        guard skipValue(depth: 0) else { return nil }
        return start..<index
    }

    /// The bytes of `range` (from `skipValue`).
    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < Self.maximumDepth, let next = peek() else { return false }
        switch next {
        case .openBrace:
            return readObject { reader, _ in reader.skipValue(depth: depth + 1) }
        case .openBracket:
            return readArray { reader in reader.skipValue(depth: depth + 1) }
        case .quote:
            guard let scanned = scanString() else { return false }
            if scanned.hasEscape {
                return Self.unescape(UnsafeBufferPointer(rebasing: bytes[scanned.range])) != nil
            }
            return scanned.isASCII
                || String(validating: UnsafeBufferPointer(rebasing: bytes[scanned.range]), as: UTF8.self) != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return readBool() != nil
        case UInt8(ascii: "n"): return readNull()
        default: return scanNumber() != nil
        }
    }

    // MARK: - Scanning

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func readLiteral(_ literal: [UInt8]) -> Bool {
        skipWhitespace()
        guard bytes.count - index >= literal.count else { return false }
        for offset in 0..<literal.count where bytes[index + offset] != literal[offset] { return false }
        index += literal.count
        return true
    }

    /// The string that comes next: the range between its quotes, whether it has an escape, and whether it is
    /// all ASCII. Control characters (below 0x20) are refused, as JSON requires.
    private mutating func scanString() -> (range: Range<Int>, hasEscape: Bool, isASCII: Bool)? {
        guard consume(.quote) else { return nil }
        let start = index
        var hasEscape = false
        var high: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                index += 1
                return (start..<index - 1, hasEscape, high < 0x80)
            }
            if byte == .backslash {
                hasEscape = true
                index += 2
                continue
            }
            guard byte >= 0x20 else { return nil }
            high |= byte
            index += 1
        }
        return nil
    }

    /// The number that comes next, checked against JSON's grammar
    /// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    private mutating func scanNumber() -> (range: Range<Int>, isInteger: Bool)? {
        skipWhitespace()
        let start = index
        if index < bytes.count, bytes[index] == .minus { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == .zero {
            index += 1
        } else {
            guard digits() > 0 else { return nil }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == .minus { index += 1 }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        // A number runs up to a delimiter: `12abc` is not JSON.
        if index < bytes.count {
            switch bytes[index] {
            case .comma, .closeBrace, .closeBracket, 0x20, 0x09, 0x0A, 0x0D: break
            default: return nil
            }
        }
        return (start..<index, isInteger)
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- .zero < 10 { index += 1 }
        return index - start
    }

    /// A string's contents with its escapes resolved; `nil` for an unknown escape, a bad `\u` or a lone
    /// surrogate, or bytes that are not UTF-8.
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        func hex4() -> UInt32? {
            guard raw.count - index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = raw[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
        while index < raw.count {
            let byte = raw[index]
            index += 1
            guard byte == .backslash else {
                out.append(byte)
                continue
            }
            guard index < raw.count else { return nil }
            let escape = raw[index]
            index += 1
            switch escape {
            case .quote, .backslash, UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4() else { return nil }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard raw.count - index >= 6, raw[index] == .backslash, raw[index + 1] == UInt8(ascii: "u")
                    else { return nil }
                    index += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
            default: return nil
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static let nullBytes = Array("null".utf8)
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
}

/// Which of an object's known keys have been read, one bit each, so a key met twice is noticed (and the body
/// left to `JSONDecoder`, whose decision it is which one counts).
struct KeysSeen<Bits: FixedWidthInteger> {
    private var bits: Bits = 0

    /// Marks `bit` as read; `false` when it already was.
    mutating func first(_ bit: Bits) -> Bool {
        guard bits & bit == 0 else { return false }
        bits |= bit
        return true
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let zero = UInt8(ascii: "0")
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are the UTF-8 of `key` (a member name compared without making a `String`).
    func isKey(_ key: StaticString) -> Bool {
        guard count == key.utf8CodeUnitCount else { return false }
        let other = key.utf8Start
        for offset in 0..<count where self[offset] != other[offset] { return false }
        return true
    }
}
