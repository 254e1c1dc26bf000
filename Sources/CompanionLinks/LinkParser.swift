import CompanionCore

/// Reads a deep link against an app's `LinkGrammar`.
///
/// Rules, and their reasons:
/// - The scheme must be the grammar's, in any case (`OMNIGENT://` is accepted); a host is required
///   (`scheme:c/x` and `scheme:///c/x` are refused): a link always names the server it opens.
/// - `host[:port]` is read by `ServerAddress` with no scheme given, so the scheme is inferred exactly as for a
///   typed address: http only for a loopback host under a policy allowing insecure loopback, https otherwise.
///   IPv6 hosts are bracketed and the origin has no trailing slash.
/// - User info is refused (O-OPEN-3): a link must not carry credentials. A query and a fragment are refused
///   too, since no route uses them and a link must not carry extra state into the page, unless the grammar
///   says they are ignored (`LinkGrammar.QueryAndFragment.ignored`): then they are dropped, never passed on.
/// - The path must match one pattern exactly, with at most one trailing slash; identifiers are
///   percent-decoded strictly (a `%` that starts no two-digit hex escape is an error) and checked against the
///   denylist `?`, `#`, `/`, `.`, `%`, U+0000–U+001F, U+007F. Their format is not checked otherwise, but a
///   character a URL must percent-encode (a space, non-ASCII, `"`) has to arrive encoded: a link is a URL, and
///   this keeps the rebuilt path never longer than the link, so the normalized link always parses again.
/// - Parsing never touches the network and never changes state: it is a pure function of the text.
public enum LinkParser {
    /// Parses `text` as a link of `grammar`, inferring the server's scheme under `policy`.
    public static func parse(
        _ text: String, grammar: LinkGrammar, policy: TransportPolicy = .httpsOnly
    ) throws(LinkError) -> DeepLink {
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= grammar.maximumLength else { throw .tooLong(maximum: grammar.maximumLength) }
        guard let colon = text.firstIndex(of: ":") else { throw .wrongScheme(clipped(text[...])) }
        let scheme = text[..<colon]
        guard scheme.lowercased() == grammar.scheme else { throw .wrongScheme(clipped(scheme)) }
        let afterScheme = text[text.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else { throw .missingHost }
        let rest = afterScheme.dropFirst(2)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var remainder = rest[authorityEnd...]
        guard !authority.isEmpty else { throw .missingHost }
        guard !authority.contains("@") else { throw .userInfoNotAllowed }
        if let extra = remainder.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            guard grammar.queryAndFragment == .ignored else { throw .queryOrFragmentNotAllowed }
            remainder = remainder[..<extra]
        }
        let server = try server(from: authority, policy: policy)
        let (route, parameters, path) = try match(path: remainder, patterns: grammar.patterns)
        return DeepLink(
            server: server, hostDisplay: authority.lowercased(), appName: grammar.appName, route: route,
            parameters: parameters, path: path)
    }

    /// The server named by `authority`; only printable ASCII is accepted, so whitespace that the address
    /// parser would trim can never sneak into a host.
    private static func server(from authority: Substring, policy: TransportPolicy) throws(LinkError) -> ServerAddress {
        guard authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidServer(.invalidHost(clipped(authority)))
        }
        let address: ServerAddress
        do {
            address = try ServerAddress(parsing: String(authority), policy: policy)
        } catch {
            throw .invalidServer(error)
        }
        // The authority holds no `/`, `?` or `#`, so the address has no path or query; checked anyway so the
        // server identity can never carry part of the page path.
        guard address.path.isEmpty, address.query == nil else { throw .invalidServer(.malformed) }
        return address
    }

    private static func match(
        path: Substring, patterns: [LinkPattern]
    ) throws(LinkError) -> (String, [String: String], String) {
        guard path.hasPrefix("/") else { throw .unsupportedPath }
        let allSegments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for pattern in patterns {
            var segments = allSegments
            if segments.count == pattern.segments.count + 1, segments.last?.isEmpty == true {
                segments.removeLast()
            }
            guard segments.count == pattern.segments.count else { continue }
            var parameters: [String: String] = [:]
            var built = ""
            var matches = true
            for (segment, expected) in zip(segments, pattern.segments) {
                switch expected {
                case .literal(let literal):
                    if segment != literal[...] { matches = false }
                    built += "/" + literal
                case .identifier(let name):
                    let value = try identifier(segment)
                    parameters[name] = value
                    built += "/" + encoded(value)
                }
                if !matches { break }
            }
            if matches { return (pattern.name, parameters, built) }
        }
        throw .unsupportedPath
    }

    /// The decoded identifier, or the reason it is refused.
    static func identifier(_ raw: Substring) throws(LinkError) -> String {
        let bytes = Array(raw.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") || isSegmentByte(byte) else { throw .unencodedCharacter }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { throw .malformedEscape }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        guard !decoded.isEmpty else { throw .emptyIdentifier }
        for byte in decoded where byte < 0x20 || byte == 0x7F || "?#/.%".utf8.contains(byte) {
            throw .forbiddenCharacter
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw .malformedEscape }
        return text
    }

    /// The identifier percent-encoded as one path segment: unreserved characters, sub-delimiters, `:` and `@`
    /// stay, everything else (spaces, non-ASCII) becomes `%XX`.
    static func encoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in value.utf8 {
            let isAlphanumeric =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isAlphanumeric || "-_~!$&'()*+,;=:@".utf8.contains(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986 `pchar` without `%`: unreserved characters, sub-delimiters, `:` and `@`.
    private static func isSegmentByte(_ byte: UInt8) -> Bool {
        let isAlphanumeric =
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        return isAlphanumeric || "-._~!$&'()*+,;=:@".utf8.contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func clipped(_ text: Substring) -> String { text.clipped(to: 32) }
}
