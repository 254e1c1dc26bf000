import Foundation

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
    public var fieldFragments: [String]
    /// Normalized name suffixes that make a field secret (`api_key`, `readKey`, plain `key`).
    public var fieldSuffixes: [String]
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
    }

    /// Whether a header of this name carries a secret.
    public func isSecretHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        if allowedNames.contains(lower) { return false }
        if headerNames.contains(lower) { return true }
        if lower.hasPrefix("x-"), lower.hasSuffix("-token") || lower.hasSuffix("-key") || lower.hasSuffix("-secret") {
            return true
        }
        return isSecretField(lower)
    }

    /// Whether a JSON field or query parameter of this name carries a secret.
    public func isSecretField(_ name: String) -> Bool {
        let lower = name.lowercased()
        if allowedNames.contains(lower) { return false }
        let normalized = lower.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
        if allowedNames.contains(normalized) { return false }
        if fieldFragments.contains(where: { normalized.contains($0) }) { return true }
        return fieldSuffixes.contains(where: { normalized.hasSuffix($0.replacingOccurrences(of: "_", with: "")) })
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
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        else { return nil }
        let cleaned = redact(jsonObject: object)
        guard JSONSerialization.isValidJSONObject(cleaned) || cleaned is String || cleaned is NSNumber,
            let data = try? JSONSerialization.data(
                withJSONObject: cleaned, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return scrubShapes(String(decoding: data, as: UTF8.self))
    }

    private func redact(jsonObject: Any) -> Any {
        if let dictionary = jsonObject as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, value) in dictionary {
                result[key] = isSecretField(key) && !(value is NSNull) ? Self.mask : redact(jsonObject: value)
            }
            return result
        }
        if let array = jsonObject as? [Any] {
            return array.map { redact(jsonObject: $0) }
        }
        if let string = jsonObject as? String {
            return scrubShapes(string)
        }
        return jsonObject
    }

    /// Masks secrets recognisable in free text: `Bearer …`/`Basic …` credentials, JSON Web Tokens, and the
    /// values of secret-named `name=value` and `"name": value` pairs.
    public func scrubShapes(_ text: String) -> String {
        var result = text
        for scheme in ["Bearer ", "Basic ", "bearer ", "basic "] {
            var searchStart = result.startIndex
            while let range = result.range(of: scheme, range: searchStart..<result.endIndex) {
                let valueStart = range.upperBound
                var valueEnd = valueStart
                while valueEnd < result.endIndex, !" \",;\n\r\t}".contains(result[valueEnd]) {
                    valueEnd = result.index(after: valueEnd)
                }
                if valueEnd > valueStart, result[valueStart..<valueEnd] != Self.mask {
                    result.replaceSubrange(valueStart..<valueEnd, with: Self.mask)
                    searchStart =
                        result.index(valueStart, offsetBy: Self.mask.count, limitedBy: result.endIndex)
                        ?? result.endIndex
                } else {
                    // Nothing replaced: continue right after the value, not a mask's length further,
                    // which could jump over the next credential (`Bearer  Bearer secret`).
                    searchStart = valueEnd
                }
            }
        }
        return Self.scrubJWTs(scrubNamedValues(result))
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
