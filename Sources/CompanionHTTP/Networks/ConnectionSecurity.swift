import Foundation

/// What a transport needs to make one server's TLS connections: whom to trust and which client certificate to
/// offer. `.system` is the device's trust and no client certificate.
///
/// Rule: it belongs to one server (a transport is made per server from its `ServerNetwork`), so nothing of it
/// applies to another server's client. Within that client, pinned keys and the client certificate apply only
/// to the origins in `scope` (the server's own addresses): a redirect to another origin (a forward-auth sign-in
/// service, a CDN) is not held to the server's key and gets no client certificate. The server's CAs do apply
/// there: a home network's CA that signs the server usually signs its sign-in service too, and it still vouches
/// only for the names it signed.
public struct ConnectionSecurity: Sendable, Hashable {
    /// The server's trust beyond the system's.
    public var trust: ServerTrust
    /// The client certificate to offer when the server asks, or `nil`.
    public var identity: ClientIdentity?
    /// The origins (`scheme://host:port`, default ports filled in) it applies to; empty: every
    /// request of the transport.
    public var scope: Set<String>

    /// Creates security settings for the origins of `scope` (every origin when empty).
    public init(trust: ServerTrust = .system, identity: ClientIdentity? = nil, scope: [URL] = []) {
        self.trust = trust
        self.identity = identity
        self.scope = Set(scope.map(RedirectPolicy.origin(of:)))
    }

    /// Whether its pins and identity apply to a request for `url`.
    public func applies(to url: URL) -> Bool { scope.isEmpty || scope.contains(RedirectPolicy.origin(of: url)) }

    /// What applies to an origin outside `scope`: the server's CAs alone.
    public var outsideScope: ConnectionSecurity { ConnectionSecurity(trust: ServerTrust(anchors: trust.anchors)) }

    /// The device's trust and no client certificate.
    public static let system = ConnectionSecurity()

    /// Whether this is exactly the system's behaviour.
    public var isSystem: Bool { trust.isSystem && identity == nil }
}
