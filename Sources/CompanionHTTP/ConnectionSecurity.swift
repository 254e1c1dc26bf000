import Foundation

/// What a transport needs to make one server's TLS connections: whom to trust and which client certificate to
/// offer. `.system` is the device's trust and no client certificate.
///
/// Rule: it belongs to one server (a transport is made per server from its `ServerNetwork`), so a pin or an
/// identity never applies to another server's connections: only to the origins in `scope`. A redirect to
/// another origin (a forward-auth sign-in service, a CDN) is checked with the system's trust and offered no
/// client certificate.
public struct ConnectionSecurity: Sendable, Hashable {
    /// The server's trust beyond the system's.
    public var trust: ServerTrust
    /// The client certificate to offer when the server asks, or `nil`.
    public var identity: ClientIdentity?
    /// The origins (`scheme://host:port`, as `RedirectPolicy.origin(of:)` writes them) it applies to; empty: every
    /// request of the transport.
    public var scope: Set<String>

    /// Creates security settings for the origins of `scope` (every origin when empty).
    public init(trust: ServerTrust = .system, identity: ClientIdentity? = nil, scope: [URL] = []) {
        self.trust = trust
        self.identity = identity
        self.scope = Set(scope.map(RedirectPolicy.origin(of:)))
    }

    /// Whether it applies to a request for `url`.
    public func applies(to url: URL) -> Bool { scope.isEmpty || scope.contains(RedirectPolicy.origin(of: url)) }

    /// The device's trust and no client certificate.
    public static let system = ConnectionSecurity()

    /// Whether this is exactly the system's behaviour.
    public var isSystem: Bool { trust.isSystem && identity == nil }
}
