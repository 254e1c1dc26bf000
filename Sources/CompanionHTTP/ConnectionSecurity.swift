import Foundation

/// What a transport needs to make one server's TLS connections: whom to trust and which client certificate to
/// offer. `.system` is the device's trust and no client certificate.
///
/// Rule: it belongs to one server (a transport is made per server from its `ServerNetwork`), so a pin or an
/// identity never applies to another server's connections.
public struct ConnectionSecurity: Sendable, Hashable {
    /// The server's trust beyond the system's.
    public var trust: ServerTrust
    /// The client certificate to offer when the server asks, or `nil`.
    public var identity: ClientIdentity?

    /// Creates security settings.
    public init(trust: ServerTrust = .system, identity: ClientIdentity? = nil) {
        self.trust = trust
        self.identity = identity
    }

    /// The device's trust and no client certificate.
    public static let system = ConnectionSecurity()

    /// Whether this is exactly the system's behaviour.
    public var isSystem: Bool { trust.isSystem && identity == nil }
}
