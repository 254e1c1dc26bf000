#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which transports the kit may use to reach a server: the App Transport Security stance of the apps.
///
/// Rule: https always; plain http only to a loopback host (`localhost`, 127.0.0.0/8, `::1`) and only when
/// the app enables it explicitly (`.allowingInsecureLoopback`), which development builds and the Linux tests
/// do. Reason: a release app never talks plain http to a remote host, where a network observer could read
/// or change credentials and data; traffic to the same machine never crosses a network.
///
/// Development builds (`.development`) also keep an `http://` address a person typed explicitly for any host,
/// such as a dev server on the LAN; inference (an address typed without a scheme) still never picks http for
/// a remote host, so plain http to another machine only ever happens because someone wrote it.
///
/// One exception is a person's, per server: plain http to **one server's home address** (its internal address on
/// the home network), allowed by a choice that names the risk (`ServerNetwork.allowPlainHTTPAtHome(accepting:)` in
/// CompanionHTTP, applied by `AppEnvironment` to that server's clients and channels only). The policy then lists
/// that address's origin in `plainHTTPHomeOrigins`: http to exactly that scheme, host and port, and to nothing else.
/// Reason: most self-hosted servers at home are served over plain http on the LAN, and refusing them all would
/// leave those apps unusable at home; the choice is the person's, for one address they named.
public struct TransportPolicy: Sendable, Hashable, Codable {
    /// Whether plain http is allowed to a loopback host.
    public var allowsInsecureLoopback: Bool
    /// Whether an explicit `http://` address to any host is kept (development builds only).
    public var allowsExplicitInsecureHTTP: Bool = false
    /// The origins (`http://host[:port]`) of home addresses where a person allowed plain http for their server.
    public var plainHTTPHomeOrigins: Set<String> = []

    /// Creates a policy; plain http to loopback stays off unless `allowsInsecureLoopback` is `true`.
    public init(allowsInsecureLoopback: Bool = false, allowsExplicitInsecureHTTP: Bool = false) {
        self.allowsInsecureLoopback = allowsInsecureLoopback
        self.allowsExplicitInsecureHTTP = allowsExplicitInsecureHTTP
    }

    /// Decodes a stored policy; one stored before `allowsExplicitInsecureHTTP` existed reads it as `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        allowsInsecureLoopback = try container.decode(Bool.self, forKey: .allowsInsecureLoopback)
        allowsExplicitInsecureHTTP =
            try container.decodeIfPresent(Bool.self, forKey: .allowsExplicitInsecureHTTP) ?? false
        plainHTTPHomeOrigins = try container.decodeIfPresent(Set<String>.self, forKey: .plainHTTPHomeOrigins) ?? []
    }

    /// This policy plus plain http to `homeAddress`'s origin only (its scheme, host and port; not another port or
    /// host), for the server whose person allowed it. An https address adds nothing.
    public func allowingPlainHTTP(toHome homeAddress: ServerAddress) -> TransportPolicy {
        guard homeAddress.scheme == "http" else { return self }
        var policy = self
        policy.plainHTTPHomeOrigins.insert(homeAddress.origin)
        return policy
    }

    /// A development build's policy: plain http to loopback, and to any host whose `http://` was written out.
    public static let development = TransportPolicy(allowsInsecureLoopback: true, allowsExplicitInsecureHTTP: true)

    /// The default policy, for release builds: https only, also for `localhost`.
    public static let httpsOnly = TransportPolicy()

    /// The development policy: https, plus plain http to a loopback host (how the Linux tests reach their
    /// local servers).
    public static let allowingInsecureLoopback = TransportPolicy(allowsInsecureLoopback: true)

    /// Throws when the policy forbids a request to `url`: a scheme other than http or https, a URL
    /// without a valid host, or plain http that the policy does not allow for that host.
    public func check(_ url: URL) throws(TransportPolicyError) {
        let text = url.absoluteString
        guard let split = AddressSyntax(text[...]), let scheme = split.scheme else {
            throw .unsupportedScheme(url.scheme?.lowercased() ?? "")
        }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let authority = try? split.parseAuthority() else { throw .invalidHost }
        if scheme == "http", !permitsExplicitHTTP(to: authority.host),
            !permitsHomeHTTP(host: authority.host, port: authority.port)
        {
            throw .insecureHTTP(host: authority.host.text)
        }
    }

    /// Whether a request to `url` is allowed; `check(_:)` says why not.
    public func permits(_ url: URL) -> Bool {
        do {
            try check(url)
            return true
        } catch {
            return false
        }
    }

    /// Whether http may be inferred for `host` (an address without a scheme): loopback only.
    func permitsHTTP(to host: HostName) -> Bool {
        allowsInsecureLoopback && host.isLoopback
    }

    /// Whether an `http://` written out for `host` is kept.
    func permitsExplicitHTTP(to host: HostName) -> Bool {
        allowsExplicitInsecureHTTP || permitsHTTP(to: host)
    }

    /// Whether `http://host:port` is a home address a person allowed plain http for (port 80 when `nil`).
    func permitsHomeHTTP(host: HostName, port: Int?) -> Bool {
        guard !plainHTTPHomeOrigins.isEmpty else { return false }
        let origin = "http://" + host.text + (port.map { $0 == 80 ? "" : ":\($0)" } ?? "")
        return plainHTTPHomeOrigins.contains(origin)
    }
}

/// Why a `TransportPolicy` refused a URL.
public enum TransportPolicyError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// The URL's scheme is neither http nor https (empty when it has none); the kit speaks only those two.
    case unsupportedScheme(String)
    /// The URL has no host, one the kit does not accept, or user info (`user:pass@`).
    case invalidHost
    /// Plain http to this host is not allowed: it is not loopback, or insecure loopback is not enabled.
    case insecureHTTP(host: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .unsupportedScheme(let scheme) where scheme.isEmpty:
            return "The address has no scheme. Use an https:// address."
        case .unsupportedScheme(let scheme):
            return "The scheme \"\(scheme.clipped())\" is not supported. Use an https:// address."
        case .invalidHost:
            return "The address has no valid host name, or carries a user name and password. "
                + "Use an address such as https://example.com."
        case .insecureHTTP(let host):
            return "Plain http to \(host.clipped()) is not allowed: the connection would not be encrypted. "
                + "Use https (plain http is only possible to this device, in development builds)."
        }
    }

    /// The same sentence, for `localizedDescription`.
    public var errorDescription: String? { description }
}
