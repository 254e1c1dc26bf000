#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decides what is secret in headers, URLs, JSON bodies and free text, and replaces it.
///
/// Rule: the journal, logs and error descriptions only ever hold text that went through a
/// `Redactor`. It redacts by name (a header called `Authorization`, a JSON field called
/// `password`, also as a `name=value` or `"name": value` pair inside free text), by shape
/// (`Bearer …`, a JWT) and by value (every secret the kit registered with the journal), because
/// any one of those alone misses cases: a token echoed in a query string has no telling header,
/// and a fresh secret has no telling shape.
public struct Redactor: Sendable, Hashable {
    /// What replaces a secret.
    public static let mask = "<redacted>"

    /// Header names (lowercased) that are always secret.
    public var headerNames: Set<String>
    /// Fragments that make a JSON field or query parameter secret when its normalized name
    /// (lowercased, `_` and `-` removed) contains one of them.
    public var fieldFragments: [String] {
        didSet { fragmentBytes = Self.normalizedBytes(fieldFragments) }
    }
    /// Normalized name suffixes that make a field secret (`api_key`, `readKey`, plain `key`).
    public var fieldSuffixes: [String] {
        didSet { suffixBytes = Self.normalizedBytes(fieldSuffixes) }
    }
    /// The fragments and suffixes as normalized bytes, kept ready: the checks run for every header and
    /// field the journal records.
    private var fragmentBytes: [[UInt8]]
    private var suffixBytes: [[UInt8]]
    /// Names that look secret by the rules above but are not (an idempotency key is a request id).
    public var allowedNames: Set<String>

    /// The default rules: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, any
    /// `X-…-Token`, `X-…-Key` or `X-…-Secret` header; fields naming a password, token, secret,
    /// passphrase, credential or key.
    public init(
        headerNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"],
        fieldFragments: [String] = ["password", "passwd", "token", "secret", "passphrase", "credential", "cookie"],
        fieldSuffixes: [String] = ["key", "code_verifier", "codeverifier", "otp", "totp"],
        allowedNames: Set<String> = ["idempotency-key", "idempotencykey", "keys", "monkey"]
    ) {
        self.headerNames = headerNames
        self.fieldFragments = fieldFragments
        self.fieldSuffixes = fieldSuffixes
        self.allowedNames = allowedNames
        self.fragmentBytes = Self.normalizedBytes(fieldFragments)
        self.suffixBytes = Self.normalizedBytes(fieldSuffixes)
    }

    private static func normalizedBytes(_ names: [String]) -> [[UInt8]] {
        names.map { asciiLowercased($0).filter { $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") } }
    }

    /// Whether a header of this name carries a secret.
    public func isSecretHeader(_ name: String) -> Bool {
        let lower = String(decoding: Self.asciiLowercased(name), as: UTF8.self)
        if allowedNames.contains(lower) { return false }
        if headerNames.contains(lower) { return true }
        if lower.hasPrefix("x-"), lower.hasSuffix("-token") || lower.hasSuffix("-key") || lower.hasSuffix("-secret") {
            return true
        }
        return isSecretField(lower)
    }

    /// Whether a JSON field or query parameter of this name carries a secret.
    ///
    /// Works on ASCII bytes: it runs for every header and field the journal records, so it avoids
    /// Foundation string searches, which are slow on Linux.
    public func isSecretField(_ name: String) -> Bool {
        let lowerBytes = Self.asciiLowercased(name)
        let lower = String(decoding: lowerBytes, as: UTF8.self)
        if allowedNames.contains(lower) { return false }
        let normalizedBytes = lowerBytes.filter { $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") }
        let normalized = String(decoding: normalizedBytes, as: UTF8.self)
        if allowedNames.contains(normalized) { return false }
        if fragmentBytes.contains(where: { Self.firstIndex(of: $0, in: normalizedBytes, from: 0) != nil }) {
            return true
        }
        return suffixBytes.contains { bytes in
            normalizedBytes.count >= bytes.count && normalizedBytes.suffix(bytes.count).elementsEqual(bytes)
        }
    }

    /// The name's bytes with ASCII letters lowercased.
    static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// The first index at or after `start` where `needle` occurs in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        let first = needle[0]
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == first {
                var offset = 1
                while offset < needle.count, haystack[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return index }
            }
            index += 1
        }
        return nil
    }

    /// Whether `needle` occurs in `text`, compared as UTF-8 bytes.
    public static func text(_ text: String, contains needle: String) -> Bool {
        firstIndex(of: Array(needle.utf8), in: Array(text.utf8), from: 0) != nil
    }

    /// `text` with every occurrence of `needle` replaced by `replacement`, compared byte for byte (UTF-8 is
    /// self-synchronizing, so a match always starts and ends on a character boundary).
    static func text(_ text: String, replacing needle: String, with replacement: String) -> String {
        let pattern = Array(needle.utf8)
        let bytes = Array(text.utf8)
        guard var match = firstIndex(of: pattern, in: bytes, from: 0) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        while true {
            result.append(contentsOf: bytes[copied..<match])
            result.append(contentsOf: replacement.utf8)
            copied = match + pattern.count
            guard let next = firstIndex(of: pattern, in: bytes, from: copied) else { break }
            match = next
        }
        result.append(contentsOf: bytes[copied...])
        return String(decoding: result, as: UTF8.self)
    }

    /// The headers with every secret value masked; names are kept so a reader sees what was sent.
    public func redact(headers: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers {
            result[name] = isSecretHeader(name) ? Self.mask : scrubShapes(value)
        }
        return result
    }

    /// The URL as text with user info dropped and secret query values masked.
    public func redact(url: URL) -> String {
        let text = url.absoluteString
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "#") })
        {
            // No query, user info or fragment: only shapes can hide a secret.
            return scrubShapes(text)
        }
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return scrubShapes(url.absoluteString)
        }
        // User info never reaches a log: drop it whole.
        parts.password = nil
        parts.user = nil
        if let items = parts.queryItems, !items.isEmpty {
            parts.queryItems = items.map { item in
                isSecretField(item.name) ? URLQueryItem(name: item.name, value: Self.mask) : item
            }
        }
        if let fragment = parts.fragment, !fragment.isEmpty {
            // Fragments carry secrets in practice (a vault key in `#passphrase:id`), so they never reach a log.
            parts.fragment = Self.mask
        }
        return scrubShapes(parts.string ?? url.absoluteString)
    }

    /// A JSON body with every secret field's value masked, re-encoded with sorted keys; `nil` when
    /// the body is not JSON (the caller then records only its size).
    public func redact(json body: Data) -> String? {
        guard !body.isEmpty, let value = JSONValue(data: body) else { return nil }
        return scrubShapes(redact(value: value).jsonString())
    }

    private func redact(value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                result[key] = isSecretField(key) && !member.isNull ? .string(Self.mask) : redact(value: member)
            }
            return .object(result)
        case .array(let elements): return .array(elements.map { redact(value: $0) })
        case .string(let text): return .string(scrubShapes(text))
        default: return value
        }
    }

    /// Masks secrets recognisable in free text: `Bearer …`/`Basic …` credentials (any case), JSON Web
    /// Tokens, and the values of secret-named `name=value` and `"name": value` pairs.
    ///
    /// Text holding none of the telling bytes (a space before a scheme word, `eyJ`, `=`, `"`) is
    /// returned untouched after one pass over its bytes, which is the common case for header values.
    public func scrubShapes(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let hasScheme = Self.schemeMatch(in: bytes, at: nil) != nil
        let hasJWT = Self.firstIndex(of: Self.jwtPrefix, in: bytes, from: 0) != nil
        let hasPairs = bytes.contains(UInt8(ascii: "=")) || bytes.contains(UInt8(ascii: "\""))
        guard hasScheme || hasJWT || hasPairs else { return text }
        var result = hasScheme ? String(decoding: Self.scrubSchemes(bytes), as: UTF8.self) : text
        if hasPairs { result = scrubNamedValues(result) }
        if hasJWT { result = Self.scrubJWTs(result) }
        return result
    }

    private static let jwtPrefix = Array("eyJ".utf8)
    private static let schemes = [Array("bearer ".utf8), Array("basic ".utf8)]
    private static let maskBytes = Array(mask.utf8)

    /// The length of a scheme word (`bearer `, `basic `, any case) starting at `index`, or, when
    /// `index` is nil, whether one occurs anywhere (its length).
    private static func schemeMatch(in bytes: [UInt8], at index: Int?) -> Int? {
        let positions = index.map { [$0] } ?? Array(bytes.indices)
        for position in positions where bytes[position] | 0x20 == UInt8(ascii: "b") {
            if position > 0, isWordByte(bytes[position - 1]) { continue }
            for scheme in schemes where position + scheme.count <= bytes.count {
                var offset = 0
                while offset < scheme.count {
                    let byte = bytes[position + offset]
                    let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    if folded != scheme[offset] { break }
                    offset += 1
                }
                if offset == scheme.count { return scheme.count }
            }
        }
        return nil
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    /// Replaces the credential after each scheme word; a value that is already the mask is kept.
    private static func scrubSchemes(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard let length = schemeMatch(in: bytes, at: index) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            output += bytes[index..<(index + length)]
            var end = index + length
            while end < bytes.count, !" \",;\n\r\t}".utf8.contains(bytes[end]) { end += 1 }
            let value = bytes[(index + length)..<end]
            if value.isEmpty || value.elementsEqual(maskBytes) {
                output += value
            } else {
                output += maskBytes
            }
            index = end
        }
        return output
    }

    /// Masks the values of secret-named pairs inside free text: `name=value` (a query string or form
    /// echoed in a message) and `"name": value` (a JSON body echoed in an error), where `name` is secret
    /// by `isSecretField(_:)`. JSON `null`, `true`, `false`, objects and arrays are left alone (their
    /// members are scanned in turn).
    private func scrubNamedValues(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "=")) || bytes.contains(UInt8(ascii: "\"")) else { return text }
        let maskBytes = Array(Self.mask.utf8)
        var ranges: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "=") {
                var nameStart = index
                while nameStart > 0, Self.isNameByte(bytes[nameStart - 1]) { nameStart -= 1 }
                var valueEnd = index + 1
                while valueEnd < bytes.count, !Self.isPairDelimiter(bytes[valueEnd]) { valueEnd += 1 }
                if nameStart < index, valueEnd > index + 1,
                    Array(bytes[(index + 1)..<valueEnd]) != maskBytes,
                    isSecretField(String(decoding: bytes[nameStart..<index], as: UTF8.self))
                {
                    ranges.append((index + 1)..<valueEnd)
                    index = valueEnd
                    continue
                }
            } else if byte == UInt8(ascii: "\""), let nameEnd = Self.stringEnd(bytes, from: index) {
                var colon = nameEnd + 1
                while colon < bytes.count, bytes[colon] == UInt8(ascii: " ") || bytes[colon] == UInt8(ascii: "\t") {
                    colon += 1
                }
                if colon < bytes.count, bytes[colon] == UInt8(ascii: ":") {
                    var valueStart = colon + 1
                    while valueStart < bytes.count, Self.isJSONSpace(bytes[valueStart]) { valueStart += 1 }
                    let name = String(decoding: bytes[(index + 1)..<nameEnd], as: UTF8.self)
                    if valueStart < bytes.count, isSecretField(name),
                        let value = Self.jsonScalarValue(bytes, from: valueStart),
                        Array(bytes[value]) != maskBytes
                    {
                        ranges.append(value)
                        index = value.upperBound
                        continue
                    }
                    index = colon + 1
                    continue
                }
            }
            index += 1
        }
        guard !ranges.isEmpty else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for range in ranges {
            output += bytes[copied..<range.lowerBound]
            output += maskBytes
            copied = range.upperBound
        }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }

    /// The index of the quote that closes the JSON string opening at `start`, honouring `\` escapes.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index
            case UInt8(ascii: "\n"): return nil
            default: index += 1
            }
        }
        return nil
    }

    /// The bytes to mask for a JSON value at `start`: a string's contents, or a number or bare word;
    /// `nil` for `null`, `true`, `false`, an object or an array.
    private static func jsonScalarValue(_ bytes: [UInt8], from start: Int) -> Range<Int>? {
        if bytes[start] == UInt8(ascii: "\"") {
            guard let end = stringEnd(bytes, from: start), end > start + 1 else { return nil }
            return (start + 1)..<end
        }
        guard bytes[start] != UInt8(ascii: "{"), bytes[start] != UInt8(ascii: "[") else { return nil }
        var end = start
        while end < bytes.count, !isJSONSpace(bytes[end]),
            ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[end])
        {
            end += 1
        }
        let word = String(decoding: bytes[start..<end], as: UTF8.self)
        guard end > start, word != "null", word != "true", word != "false" else { return nil }
        return start..<end
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isPairDelimiter(_ byte: UInt8) -> Bool {
        isJSONSpace(byte) || "&\"',;})]#".utf8.contains(byte)
    }

    private static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }

    /// Replaces every `eyJ….….…` token (a base64url JSON header, payload and signature).
    private static func scrubJWTs(_ text: String) -> String {
        guard text.contains("eyJ") else { return text }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("eyJ"), let end = jwtEnd(in: text, from: index) {
                output += mask
                index = end
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }

    private static func jwtEnd(in text: String, from start: String.Index) -> String.Index? {
        var dots = 0
        var index = start
        var segmentLength = 0
        while index < text.endIndex {
            let character = text[index]
            if character == "." {
                guard segmentLength > 0 else { return nil }
                dots += 1
                segmentLength = 0
            } else if character.isASCII,
                character.isLetter || character.isNumber || character == "-" || character == "_"
            {
                segmentLength += 1
            } else {
                break
            }
            index = text.index(after: index)
        }
        return dots >= 2 && segmentLength > 0 ? index : nil
    }
}
