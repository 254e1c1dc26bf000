#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The address of a self-hosted server, normalized from what a person typed.
///
/// Rules (Omnigent's `ServerURL`, which the kit follows for every app), and their reasons:
/// - Surrounding whitespace is trimmed; an empty input is an error, not a default server.
/// - With no `://`, the scheme is `https`, or `http` only for a loopback host when the policy allows
///   insecure loopback, so a remote host never drops to plain http by inference.
/// - Only `http` and `https` are accepted, and explicit `http://` only when the `TransportPolicy` allows it for
///   that host (loopback, explicitly enabled): a release app never talks plain http to a remote host.
/// - Scheme and host are lowercased and default ports (80 for http, 443 for https) dropped, because they
///   do not change which server answers; a path (a workspace mount such as `/omnigent`) is kept without its
///   trailing slash, the query is kept (`?o=<org>` selects a workspace), and the fragment is dropped (it
///   never reaches a server).
/// - User info (`user:pass@`) is refused: credentials in an address end up in logs and history. The error
///   does not repeat them.
/// - IPv6 hosts are bracketed (`[::1]:8080`); hosts with spaces or other invalid characters and ports
///   outside 1–65535 are refused.
///
/// Two addresses are equal when they are the same server; `serverKey` is the text form of that identity.
public struct ServerAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The normalized URL: `origin`, then `path`, then `?query`. It never ends with a slash.
    public let url: URL
    /// `https` or `http`, lowercased.
    public let scheme: String
    /// The host as it appears in the URL: lowercased, an IPv6 literal in brackets (`[::1]`).
    public let host: String
    /// The port when it is not the scheme's default, else `nil`.
    public let port: Int?
    /// The percent-encoded path without a trailing slash, such as `/omnigent`; empty for the root.
    public let path: String
    /// The percent-encoded query without its `?`; `nil` when the address has none.
    public let query: String?
    /// Whether the host is this machine (`localhost`, 127.0.0.0/8, `::1`), the only place plain http may go.
    public let isLoopback: Bool

    /// Parses what a person typed (or a stored address) by the rules above.
    ///
    /// `policy` decides whether plain http is possible: only to a loopback host, and only under
    /// `TransportPolicy.allowingInsecureLoopback`.
    public init(parsing input: String, policy: TransportPolicy = .httpsOnly) throws(ServerAddressError) {
        let trimmed = input.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        guard let syntax = AddressSyntax(trimmed[...]) else { throw .malformed }
        if syntax.scheme == nil, let colon = trimmed.firstIndex(of: ":") {
            // `https:example.com` or `http:/host`: a scheme with its slashes missing, not a host and port.
            let prefix = trimmed[..<colon].lowercased()
            if prefix == "http" || prefix == "https" { throw .malformed }
        }
        if let scheme = syntax.scheme, scheme != "http", scheme != "https" {
            throw .unsupportedScheme(scheme.clipped())
        }
        let authority = try syntax.parseAuthority()
        let scheme: String
        switch syntax.scheme {
        case nil:
            scheme = policy.permitsHTTP(to: authority.host) ? "http" : "https"
        case "http":
            guard
                policy.permitsExplicitHTTP(to: authority.host)
                    || policy.permitsHomeHTTP(host: authority.host, port: authority.port)
            else {
                throw .insecureHTTPNotAllowed(host: authority.host.text)
            }
            scheme = "http"
        default:
            scheme = "https"
        }
        let port = authority.port == Self.defaultPort(for: scheme) ? nil : authority.port
        let path = AddressSyntax.normalizedPath(
            AddressSyntax.percentEncoded(syntax.path, allowing: AddressSyntax.isPathByte))
        let query = syntax.query.flatMap { raw in
            raw.isEmpty ? nil : AddressSyntax.percentEncoded(raw, allowing: AddressSyntax.isQueryByte)
        }
        let origin = Self.origin(scheme: scheme, host: authority.host.text, port: port)
        guard let url = URL(string: origin + path + (query.map { "?" + $0 } ?? "")) else { throw .malformed }
        self.url = url
        self.scheme = scheme
        self.host = authority.host.text
        self.port = port
        self.path = path
        self.query = query
        self.isLoopback = authority.host.isLoopback
    }

    /// `scheme://host[:port]`: lowercased, the port only when it is not the default, no trailing slash.
    /// This is what a browser compares for same-origin checks.
    public var origin: String { Self.origin(scheme: scheme, host: host, port: port) }

    /// The identity used to de-duplicate servers (recents, managed presets): the origin, then the path with
    /// its slashes trimmed, then `?query`. `https://A.Example.com/` and `https://a.example.com` have one key;
    /// `https://apps.example.com:443/first/` and `https://apps.example.com/first` too; `/second` differs.
    public var serverKey: String {
        let trimmedPath = path.split(separator: "/", omittingEmptySubsequences: false)
            .drop(while: \.isEmpty).joined(separator: "/")
        var key = origin
        if !trimmedPath.isEmpty { key += "/" + trimmedPath }
        if let query { key += "?" + query }
        return key
    }

    /// The normalized URL as text.
    public var description: String { url.absoluteString }

    /// The URL of an API path under this server's mount: `url(appending: "/v1/sessions?limit=20")` on
    /// `https://host/omnigent` is `https://host/omnigent/v1/sessions?limit=20`.
    ///
    /// Rules: the mount path is kept (API paths are relative to it); a missing leading `/` is added; a
    /// trailing `/` of `apiPath` is kept (some servers route on it); `.` and `..` segments are resolved
    /// within `apiPath` only, so it can never climb above the mount, and empty segments (`//`) collapse; characters not allowed in a URL are
    /// percent-encoded and existing escapes kept; the query of `apiPath` is used, the address's own query
    /// is not (it selects a page, such as a workspace, not an API call); a fragment is dropped.
    public func url(appending apiPath: String) -> URL {
        var text = Substring(apiPath)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        var pathPart = text
        var queryPart: Substring?
        if let mark = text.firstIndex(of: "?") {
            pathPart = text[..<mark]
            queryPart = text[text.index(after: mark)...]
        }
        var result = origin + path
        let encoded = AddressSyntax.percentEncoded(pathPart, allowing: AddressSyntax.isPathByte)
        result += Self.resolvedRelativePath(encoded)
        if let queryPart, !queryPart.isEmpty {
            result += "?" + AddressSyntax.percentEncoded(queryPart, allowing: AddressSyntax.isQueryByte)
        }
        // Every byte outside the URL character set was encoded above, so parsing cannot fail; the
        // fallback only keeps this function total.
        return URL(string: result) ?? url
    }

    /// Whether `other` has this address's origin: same scheme, host and effective port.
    ///
    /// Rule: this is the check for redirects, bridge messages and links that must stay on the server the
    /// person chose. A URL with user info, another scheme, or no valid host is never same-origin.
    public func sameOrigin(as other: URL) -> Bool {
        guard let syntax = AddressSyntax(other.absoluteString[...]), let otherScheme = syntax.scheme,
            otherScheme == "http" || otherScheme == "https",
            let authority = try? syntax.parseAuthority()
        else { return false }
        let otherPort = authority.port == Self.defaultPort(for: otherScheme) ? nil : authority.port
        return otherScheme == scheme && authority.host.text == host && otherPort == port
    }

    /// Reads an address stored by `encode(to:)` (its URL string).
    ///
    /// The stored text is parsed again under `TransportPolicy.allowingInsecureLoopback`, so a development
    /// build's `http://localhost` address still loads; the transport policy itself is enforced where a
    /// request is made (`TransportPolicy.check(_:)`), so a release build still never sends plain http.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ServerAddress(parsing: text, policy: .allowingInsecureLoopback)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Stores the address as its URL string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(url.absoluteString)
    }

    static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    private static func origin(scheme: String, host: String, port: Int?) -> String {
        scheme + "://" + host + (port.map { ":\($0)" } ?? "")
    }

    /// `apiPath` (already encoded) with a leading `/`, its dot segments resolved without climbing above
    /// its start, and its trailing slash kept; empty for an empty path.
    private static func resolvedRelativePath(_ encoded: String) -> String {
        guard !encoded.isEmpty else { return "" }
        var segments: [Substring] = []
        let parts = encoded.split(separator: "/", omittingEmptySubsequences: false)
        var endsWithSlash = encoded.hasSuffix("/")
        for (index, segment) in parts.enumerated() {
            let lower = segment.lowercased()
            let isLast = index == parts.count - 1
            if lower == "." || lower == "%2e" {
                if isLast { endsWithSlash = true }
            } else if lower == ".." || lower == ".%2e" || lower == "%2e." || lower == "%2e%2e" {
                if !segments.isEmpty { segments.removeLast() }
                if isLast { endsWithSlash = true }
            } else if !segment.isEmpty {
                segments.append(segment)
            }
        }
        let joined = "/" + segments.joined(separator: "/")
        return endsWithSlash && !segments.isEmpty ? joined + "/" : joined
    }
}

/// Why a typed server address was refused. Each case's `description` is a sentence for the person who
/// typed it; none repeats a password.
public enum ServerAddressError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// Nothing was entered (only whitespace).
    case empty
    /// The text cannot be read as an address at all.
    case malformed
    /// A scheme other than http or https, such as `ftp`; the kit speaks only those two.
    case unsupportedScheme(String)
    /// Plain http to this host is refused by the transport policy (not loopback, or not enabled).
    case insecureHTTPNotAllowed(host: String)
    /// The address contains `user:password@`; credentials never go into an address.
    case userInfoNotAllowed
    /// The address has no host, such as `https://` or `https:///path`.
    case missingHost
    /// The host contains spaces or characters a host cannot have; carries the host as typed (clipped).
    case invalidHost(String)
    /// The port is not a decimal number.
    case invalidPort
    /// The port is outside 1–65535; carries the digits as typed (clipped).
    case portOutOfRange(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .empty:
            return "Enter the server's address, such as https://example.com."
        case .malformed:
            return "The address could not be read. Enter it as https://host or host:port, such as example.com."
        case .unsupportedScheme(let scheme):
            return "The address starts with \"\(scheme)://\", which is not supported. Use an https:// address."
        case .insecureHTTPNotAllowed(let host):
            return "Plain http to \(host) is not allowed because the connection would not be encrypted. "
                + "Use an https:// address (plain http is only possible to this device, in development builds)."
        case .userInfoNotAllowed:
            return "Remove the user name and password (the part before @) from the address; "
                + "you sign in after connecting."
        case .missingHost:
            return "The address has no host name. Enter it as https://host, such as https://example.com."
        case .invalidHost(let host):
            return "\"\(host)\" is not a valid host name. Check it for spaces or other characters "
                + "a host name cannot contain."
        case .invalidPort:
            return "The port after the colon must be a number between 1 and 65535."
        case .portOutOfRange(let port):
            return "The port \(port) is not between 1 and 65535. Check the number after the colon."
        }
    }

    /// The same sentence, for `localizedDescription`.
    public var errorDescription: String? { description }
}

extension String {
    /// The text without leading and trailing white space and line breaks (Unicode's White_Space).
    fileprivate func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
