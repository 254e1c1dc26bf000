/// The pieces of an address as typed: an optional scheme, the authority, the path and the query.
///
/// The split follows RFC 3986 section 3: the authority runs from after `://` to the first `/`, `?` or `#`;
/// the path runs to `?` or `#`; the query runs to `#`; the fragment is dropped. No percent-decoding
/// happens here.
struct AddressSyntax {
    /// The scheme, lowercased; `nil` when the text has no `://`.
    var scheme: String?
    /// `user:pass@host:port` as typed.
    var authority: Substring
    /// The path as typed, starting with `/` or empty.
    var path: Substring
    /// The query without its `?`; `nil` when there is none.
    var query: Substring?

    /// The authority split into host and port.
    struct Authority {
        var host: HostName
        var port: Int?
    }

    /// Splits `text`; `nil` when a `://` is preceded by something that is not a scheme. A `://` after the
    /// first `/`, `?` or `#` belongs to the path or query (`host/go?to=https://x`), not to a scheme.
    init?(_ text: Substring) {
        var rest = text
        if let marker = text.firstRange(of: "://"),
            !text[..<marker.lowerBound].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" })
        {
            let scheme = text[..<marker.lowerBound]
            guard let first = scheme.utf8.first, Self.isLetter(first),
                scheme.utf8.allSatisfy({ Self.isLetter($0) || Self.isDigit($0) || "+-.".utf8.contains($0) })
            else { return nil }
            self.scheme = scheme.lowercased()
            rest = text[marker.upperBound...]
        } else {
            scheme = nil
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        } else {
            path = rest
            query = nil
        }
    }

    /// The host and port of the authority.
    ///
    /// Rules: user info is refused without repeating it (it holds a password); a bracketed or bare IPv6
    /// literal is a host (a bare one cannot carry a port); a port is 1–65535 in decimal; `host:` with an
    /// empty port means no port.
    func parseAuthority() throws(ServerAddressError) -> Authority {
        guard !authority.contains("@") else { throw .userInfoNotAllowed }
        guard !authority.isEmpty else { throw .missingHost }
        var hostText = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidHost(authority.clipped())
            }
            hostText = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidHost(authority.clipped()) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":"),
            authority[authority.index(after: colon)...].firstIndex(of: ":") == nil
        {
            hostText = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostText.isEmpty else { throw .missingHost }
        guard let host = HostName(hostText) else { throw .invalidHost(hostText.clipped()) }
        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.utf8.allSatisfy(Self.isDigit) else { throw .invalidPort }
            let digits = portText.drop(while: { $0 == "0" })
            guard digits.count <= 5, let value = Int(digits.isEmpty ? "0" : digits), (1...65_535).contains(value)
            else { throw .portOutOfRange(portText.clipped()) }
            port = value
        }
        return Authority(host: host, port: port)
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The text with every byte outside `allowed` percent-encoded, existing `%XX` escapes kept (hex
    /// uppercased) and a `%` that starts no escape encoded as `%25`.
    ///
    /// Rule: an address is stored and compared in one encoded form, so `/a b`, `/a%20b` and `/a%2fb` vs
    /// `/a%2Fb` do not become different servers, and the result is always a valid URL.
    static func percentEncoded(_ text: Substring, allowing allowed: (UInt8) -> Bool) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let hex = Array("0123456789ABCDEF".utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1].isASCIIHexDigit,
                bytes[index + 2].isASCIIHexDigit
            {
                output.append(byte)
                output.append(uppercasedHex(bytes[index + 1]))
                output.append(uppercasedHex(bytes[index + 2]))
                index += 3
                continue
            }
            if byte != UInt8(ascii: "%"), allowed(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func uppercasedHex(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") ? byte - 32 : byte
    }

    /// RFC 3986 `pchar` plus `/`: unreserved, sub-delims, `:` and `@`.
    static func isPathByte(_ byte: UInt8) -> Bool {
        if isLetter(byte) || isDigit(byte) { return true }
        return "-._~!$&'()*+,;=:@/".utf8.contains(byte)
    }

    /// RFC 3986 query characters: `pchar`, `/` and `?`.
    static func isQueryByte(_ byte: UInt8) -> Bool {
        isPathByte(byte) || byte == UInt8(ascii: "?")
    }

    /// The path with `.` and `..` segments resolved (RFC 3986 section 5.2.4) and trailing slashes removed;
    /// empty for the root.
    ///
    /// Rule: `/omnigent/../admin` means `/admin` to every server, so it is stored that way, and the mount
    /// path compares equal whether typed with a trailing slash or without.
    static func normalizedPath(_ encoded: String) -> String {
        guard !encoded.isEmpty else { return "" }
        var segments: [Substring] = []
        for segment in encoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            switch segment {
            case ".":
                continue
            case "..":
                if !segments.isEmpty { segments.removeLast() }
            default:
                segments.append(segment)
            }
        }
        while let last = segments.last, last.isEmpty { segments.removeLast() }
        return segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
    }
}
