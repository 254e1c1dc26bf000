import Foundation

/// Decides what is secret in headers, URLs, JSON bodies and free text, and replaces it.
///
/// Rule: the journal, logs and error descriptions only ever hold text that went through a
/// `Redactor`. It redacts by name (a header called `Authorization`, a JSON field called
/// `password`), by shape (`Bearer …`, a JWT) and by value (every secret the kit registered with
/// the journal), because any one of those alone misses cases: a token echoed in a query string
/// has no telling name, and a fresh secret has no telling shape.
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
        if parts.password != nil { parts.password = Self.mask }
        if parts.user != nil { parts.user = nil }
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

    /// Masks secrets recognisable by shape alone: `Bearer …`/`Basic …` credentials and JSON Web Tokens.
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
                }
                searchStart =
                    result.index(valueStart, offsetBy: Self.mask.count, limitedBy: result.endIndex)
                    ?? result.endIndex
            }
        }
        return Self.scrubJWTs(result)
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
