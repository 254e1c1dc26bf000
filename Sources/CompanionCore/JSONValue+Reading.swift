#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONValue {
    /// Reads `data` straight from its bytes into the value `JSONDecoder` decodes it to, or `nil` where this strict
    /// reader leaves the document to `JSONDecoder`.
    ///
    /// Why: `JSONValue`'s `Decodable` conformance can only find out what a value is by trying each type in turn,
    /// and every wrong guess throws a `DecodingError` with its description; for `{}` that is five thrown errors,
    /// most of a small reply's decoding time. This reader looks at the bytes once.
    ///
    /// It answers only where its answer is certainly the decoder's: strict JSON (RFC 8259) in UTF-8, nested at
    /// most 512 deep, strings without control characters or unpaired surrogates, objects without a repeated key,
    /// and any number RFC 8259 allows, given as the decoder gives it (`20.0` and `-0` are the integers 20 and 0, an
    /// integer past 64 bits a `Double`) except the two it reads its own way: past `Double`'s range (`1e400`, an
    /// error), and a number that is not a plain 64-bit integer but whose `Double` is a whole number from 2^53 to 2^63
    /// in magnitude (`1e18`, `9007199254740993.0`, read again as a `Decimal`). Anything else — an error, a trailing
    /// comma or a byte order mark (which `JSONDecoder` accepts), a repeated key — gives `nil`, and the caller
    /// decodes with `JSONDecoder` to get its value or its error.
    public static func reading(_ data: Data) -> JSONValue? {
        // `Optional.none` spelled out: `JSONValue` is itself `ExpressibleByNilLiteral`, so a bare `nil` where a
        // `JSONValue` fits would be `.null`.
        data.withUnsafeBytes { (buffer) -> JSONValue? in
            var reader = StrictReader(bytes: buffer)
            guard let value = reader.value(depth: 0) else { return .none }
            reader.skipSpace()
            guard reader.index == buffer.count else { return .none }
            return value
        }
    }
}

/// The strict reader behind `JSONValue.reading(_:)`: `nil` from any method means "leave it to `JSONDecoder`".
private struct StrictReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) -> JSONValue? {
        skipSpace()
        guard index < bytes.count, depth < 512 else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return word("true", .bool(true))
        case UInt8(ascii: "f"): return word("false", .bool(false))
        case UInt8(ascii: "n"): return word("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    mutating func word(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return nil }
        index += count
        return value
    }

    mutating func object(depth: Int) -> JSONValue? {
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value(depth: depth + 1) else { return nil }
            // A repeated key: `JSONDecoder` keeps the first; left to it.
            guard members.updateValue(member, forKey: key) == nil else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    mutating func array(depth: Int) -> JSONValue? {
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string starting at the opening quote; escapes decoded, UTF-8 checked.
    mutating func string() -> String? {
        index += 1
        let start = index
        // The common case: no escape, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        var scalars = String.UnicodeScalarView()
        guard let head = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        else { return nil }
        scalars.append(contentsOf: head.unicodeScalars)
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if runStart < index {
                    guard
                        let run = String(
                            validating: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                    else { return nil }
                    scalars.append(contentsOf: run.unicodeScalars)
                }
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(scalars)
                }
                guard let scalar = escape() else { return nil }
                scalars.append(scalar)
                runStart = index
                continue
            }
            if byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// One escape starting at its backslash.
    mutating func escape() -> Unicode.Scalar? {
        guard index + 1 < bytes.count else { return nil }
        let kind = bytes[index + 1]
        index += 2
        switch kind {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hex4() else { return nil }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { return nil }
                index += 2
                guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(unit)
        default: return nil
        }
    }

    mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
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

    /// A number by RFC 8259's grammar, as `JSONDecoder` decodes it into a `JSONValue`.
    ///
    /// The decoder first tries an `Int64`: a plain integer that fits is that integer. Any other number it reads as a
    /// `Double` (correctly rounded, as `strtod` gives it): a whole `Double` under 2^53 in magnitude is an integer
    /// (`20.0`, `1e2`, `-0.0` and `1e-400` give 20, 100, 0 and 0), one that is not whole or that no `Int64` holds
    /// (`12.5`, `9223372036854775808`, `1e300`) is that `Double`. Two cases are left to the decoder: a number past
    /// `Double`'s range (`1e400`, an error there), and a whole `Double` from 2^53 up to 2^63 in magnitude (`1e18`,
    /// `-9223372036854775809`), which the decoder reads again as a `Decimal`.
    mutating func number() -> JSONValue? {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        // The significand's first 19 digits, how many digits it has in all, and where its decimal point is.
        var significand: UInt64 = 0
        var digits = 0
        var pointShift = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            // A leading zero: JSON allows no more digits after it.
            if index < bytes.count, isDigit(bytes[index]) { return nil }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 19 { significand = significand &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        }
        var plain = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            plain = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) {
                // Leading zeros of the fraction of `0.00x` only move the point.
                if digits == 0, bytes[index] == UInt8(ascii: "0") {
                    pointShift -= 1
                } else {
                    if digits < 19 {
                        significand = significand &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                        pointShift -= 1
                    }
                    digits += 1
                }
                index += 1
            }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            plain = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) {
                // Past four digits the exact exponent no longer matters to the fast path below.
                if exponent < 10_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        if plain, digits <= 18 {
            // At most 18 digits always fit.
            return .integer(negative ? -Int64(significand) : Int64(significand))
        }
        if plain {
            var value: Int64 = 0
            for byte in text where byte != UInt8(ascii: "-") {
                let digit = Int64(byte - UInt8(ascii: "0"))
                let (shifted, over) = value.multipliedReportingOverflow(by: 10)
                let (next, under) =
                    negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                if over || under { return double(text, fast: nil, negative: negative) }
                value = next
            }
            return .integer(value)
        }
        // Clinger's fast path: a significand under 2^53 times or over a power of ten that a `Double` holds exactly
        // is one correctly rounded operation, the same `Double` as `strtod`'s.
        var fast: Double?
        // An exponent of five digits or more was only read up to its first 10,000 (above), so not exactly.
        if digits <= 15, abs(exponent) < 10_000 {
            let scale = pointShift + exponent
            if significand == 0 {
                fast = 0
            } else if (-22...22).contains(scale) {
                let power = Self.powersOfTen[abs(scale)]
                fast = scale < 0 ? Double(significand) / power : Double(significand) * power
            }
        }
        return double(text, fast: fast, negative: negative)
    }

    /// The `JSONValue` the decoder makes of the `Double` the number `text` is: `fast` when known, `strtod`'s value
    /// otherwise.
    func double(_ text: UnsafeRawBufferPointer, fast: Double?, negative: Bool) -> JSONValue? {
        let magnitude: Double
        if let fast {
            magnitude = fast
        } else {
            guard let parsed = Double(String(decoding: text, as: UTF8.self)) else { return nil }
            magnitude = parsed.magnitude
        }
        // Past `Double`'s range the decoder gives an error; left to it.
        guard magnitude.isFinite else { return nil }
        let value = negative ? -magnitude : magnitude
        guard magnitude.rounded(.towardZero) == magnitude else { return .number(value) }
        // Whole: under 2^53 an integer; from there to 2^63 the decoder reads the text again as a `Decimal`, left to
        // it; past 2^63 no `Int64` holds it, so a `Double`.
        if magnitude < 0x1p53 { return .integer(Int64(value)) }
        if Int64(exactly: value) != nil { return nil }
        return .number(value)
    }

    /// 10^0 through 10^22, each exact in a `Double`.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
