/// A host as the kit accepts it in a server address: a DNS name, an IPv4 dotted quad or an IPv6 literal.
///
/// Rules, and their reasons:
/// - Names are ASCII letters, digits, `-`, `_` and `.`, lowercased, in labels of 1–63 characters, 253 at most
///   in all. Anything else (spaces, `%`, `\`, non-ASCII) is rejected instead of encoded, because a host a
///   person cannot read back is a host they cannot check; an international name is entered in its `xn--` form.
/// - A name whose last label is all digits must be a dotted quad of four decimal parts 0–255 without leading
///   zeros. `127.1`, `010.0.0.1` or `1.2.3.4.5` are rejected because URL parsers read them in different
///   ways (shorthand, octal), and the kit must mean the same machine the system connects to.
/// - IPv6 literals are parsed to their eight groups and written back in the canonical lowercase compressed
///   form, so `[0:0::1]` and `[::1]` are one server. Zone ids (`%25en0`) are rejected.
struct HostName: Sendable, Hashable {
    /// What kind of host this is.
    enum Kind: Sendable, Hashable {
        case name
        case ipv4
        case ipv6
    }

    /// The host as it appears in a URL: lowercased, IPv6 in brackets.
    let text: String
    /// What kind of host this is.
    let kind: Kind
    /// Whether the host names this machine: `localhost`, any address in 127.0.0.0/8, `::1`, or an
    /// IPv4-mapped 127/8 address.
    let isLoopback: Bool

    /// Parses a host without brackets (`example.com`, `127.0.0.1`) or an IPv6 literal with or without
    /// brackets; `nil` when it is not a valid host.
    init?(_ raw: Substring) {
        if raw.hasPrefix("[") {
            guard raw.hasSuffix("]"), raw.count > 2 else { return nil }
            self.init(ipv6: raw.dropFirst().dropLast())
        } else if raw.contains(":") {
            self.init(ipv6: raw)
        } else {
            self.init(nameOrIPv4: raw)
        }
    }

    private init?(ipv6 raw: Substring) {
        guard let groups = Self.parseIPv6(raw) else { return nil }
        text = "[" + Self.canonicalIPv6(groups) + "]"
        kind = .ipv6
        let isMapped = groups[0..<5].allSatisfy { $0 == 0 } && groups[5] == 0xFFFF
        isLoopback = groups == [0, 0, 0, 0, 0, 0, 0, 1] || (isMapped && groups[6] >> 8 == 127)
    }

    private init?(nameOrIPv4 raw: Substring) {
        // ASCII is checked before lowercasing: Unicode case mapping turns some letters into ASCII ones
        // (the Kelvin sign becomes `k`), which would let a look-alike host pass as another.
        guard raw.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let lower = raw.lowercased()
        guard !lower.isEmpty, lower.utf8.count <= 253 else { return nil }
        let labels = lower.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63 else { return nil }
            for byte in label.utf8 {
                let isLetter = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
                let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                guard isLetter || isDigit || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") else {
                    return nil
                }
            }
        }
        if let last = labels.last, last.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let octets = Self.parseIPv4(labels) else { return nil }
            text = lower
            kind = .ipv4
            isLoopback = octets[0] == 127
        } else {
            text = lower
            kind = .name
            isLoopback = lower == "localhost"
        }
    }

    /// Four decimal octets without leading zeros, or `nil`.
    private static func parseIPv4(_ labels: [Substring]) -> [UInt8]? {
        guard labels.count == 4 else { return nil }
        var octets: [UInt8] = []
        for label in labels {
            guard label.utf8.count <= 3, label == "0" || !label.hasPrefix("0"),
                let value = UInt8(label)
            else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// The eight 16-bit groups of an IPv6 address (RFC 4291 text forms, including `::` and a trailing
    /// dotted quad), or `nil`.
    static func parseIPv6(_ raw: Substring) -> [UInt16]? {
        guard !raw.isEmpty, raw.utf8.count <= 45 else { return nil }
        guard let gap = raw.firstRange(of: "::") else {
            guard let groups = parseIPv6Groups(raw), groups.count == 8 else { return nil }
            return groups
        }
        let before = raw[..<gap.lowerBound]
        let after = raw[gap.upperBound...]
        guard !after.contains("::"),
            let head = before.isEmpty ? [] : parseIPv6Groups(before),
            let tail = after.isEmpty ? [] : parseIPv6Groups(after),
            head.count + tail.count < 8
        else { return nil }
        return head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
    }

    /// Colon-separated hex groups of 1–4 digits, the last of which may be a dotted quad (two groups).
    private static func parseIPv6Groups(_ text: Substring) -> [UInt16]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, part.contains(".") {
                guard let octets = parseIPv4(part.split(separator: ".", omittingEmptySubsequences: false))
                else { return nil }
                groups.append(UInt16(octets[0]) << 8 | UInt16(octets[1]))
                groups.append(UInt16(octets[2]) << 8 | UInt16(octets[3]))
            } else {
                guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(\.isASCIIHexDigit),
                    let value = UInt16(part, radix: 16)
                else { return nil }
                groups.append(value)
            }
        }
        return groups
    }

    /// RFC 5952 text: lowercase hex without leading zeros, the longest run of two or more zero groups
    /// (the first if tied) written as `::`.
    static func canonicalIPv6(_ groups: [UInt16]) -> String {
        var bestStart = -1
        var bestLength = 0
        var runStart = -1
        for (index, group) in groups.enumerated() {
            if group == 0 {
                if runStart < 0 { runStart = index }
                let length = index - runStart + 1
                if length > bestLength {
                    bestStart = runStart
                    bestLength = length
                }
            } else {
                runStart = -1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard bestLength >= 2 else { return hex.joined(separator: ":") }
        let before = hex[..<bestStart].joined(separator: ":")
        let after = hex[(bestStart + bestLength)...].joined(separator: ":")
        return before + "::" + after
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit.
    var isASCIIHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
            || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
