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
    /// and numbers that are integers in 64 bits or whose value is not a whole number. Anything else — an error, a
    /// trailing comma or a byte order mark (which `JSONDecoder` accepts), a repeated key, a whole number written
    /// with a fraction or an exponent (`1.0`, which `JSONDecoder` gives as an integer), an integer past 64 bits —
    /// gives `nil`, and the caller decodes with `JSONDecoder` to get its value or its error.
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

    /// A number by RFC 8259's grammar: an integer in 64 bits, or a number that is not a whole number.
    mutating func number() -> JSONValue? {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            // A leading zero: JSON allows no more digits after it.
            if index < bytes.count, isDigit(bytes[index]) { return nil }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var plain = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            plain = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            plain = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        if plain {
            var value: Int64 = 0
            for byte in text where byte != UInt8(ascii: "-") {
                let digit = Int64(byte - UInt8(ascii: "0"))
                let (shifted, over) = value.multipliedReportingOverflow(by: 10)
                let (next, under) =
                    negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                // Past 64 bits `JSONDecoder` gives a `Double`; left to it.
                if over || under { return nil }
                value = next
            }
            return .integer(value)
        }
        // A whole number written with a fraction or exponent is an integer to `JSONDecoder`; left to it, as is a
        // number too large for a `Double`.
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite, value.rounded() != value
        else { return nil }
        return .number(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
