import CompanionCore
import Foundation

/// Everything between the app and one self-hosted server besides the app's own sign-in: whom to trust, which
/// client certificate to offer, the proxy's Basic credentials, and the server's internal address.
///
/// It is one value per server key (the external address's `serverKey`), kept in the secret store beside the
/// server's credential (CompanionAuth's `NetworkSettings`), and turned into that server's transport by
/// `transport(identity:…)`: every client made for the server sends through it, so an app core gets all of it
/// without code of its own.
public struct ServerNetwork: Sendable, Hashable, Codable {
    /// The server: its external (public) address, whose `serverKey` files everything kept for it.
    public var server: ServerAddress
    /// Its internal (home network) address, tried first, or `nil`.
    public var internalAddress: ServerAddress?
    /// Its trust beyond the system's: pinned keys, its own CAs.
    public var trust: ServerTrust
    /// The id of the client identity assigned to it (`ClientIdentity.id`), or `nil`.
    public var identityID: String?
    /// HTTP Basic credentials for the proxy in front of it, or `nil`.
    public var proxyCredential: ProxyCredential?

    /// Creates the settings of `server`; nothing beyond the system's defaults unless given.
    public init(
        server: ServerAddress, internalAddress: ServerAddress? = nil, trust: ServerTrust = .system,
        identityID: String? = nil, proxyCredential: ProxyCredential? = nil
    ) {
        self.server = server
        self.internalAddress = internalAddress
        self.trust = trust
        self.identityID = identityID
        self.proxyCredential = proxyCredential
    }

    /// Whether nothing is set beyond the defaults (the server needs no record).
    public var isDefault: Bool {
        internalAddress == nil && trust.isSystem && identityID == nil && proxyCredential == nil
    }

    /// The addresses configured for the server (external first): the only ones its credentials go to.
    public var addresses: [ServerAddress] { [server] + (internalAddress.map { [$0] } ?? []) }

    /// The secret values inside (the proxy password), for a journal to mask.
    public var secretValues: [String] { proxyCredential?.secretValues ?? [] }

    /// The server's transport: the platform's (`DefaultTransport`) with the server's trust and `identity`,
    /// sending to the internal address while it answers, behind the `ProxyGate` with the proxy's credentials.
    ///
    /// `identity` is the `ClientIdentity` whose id is `identityID` (the store holds identities apart, so one can be
    /// assigned to several servers); `clock`, `probe` and `journal` drive the address failover.
    public func transport(
        identity: ClientIdentity?, redirectPolicy: RedirectPolicy = RedirectPolicy(), journal: Journal = Journal(),
        clock: any WallClock = SystemWallClock(), probe: any ConnectProbe = TCPConnectProbe(),
        connectTimeout: Duration = .milliseconds(1500), recheckAfter: Duration = .seconds(60),
        platform: (any Transport)? = nil
    ) -> any Transport {
        let security = ConnectionSecurity(trust: trust, identity: identity, scope: addresses.map(\.url))
        var transport = platform ?? DefaultTransport.platform(redirectPolicy: redirectPolicy, security: security)
        if let internalAddress {
            transport = FailoverTransport(
                transport,
                failover: AddressFailover(
                    external: server.url, internal: internalAddress.url, connectTimeout: connectTimeout,
                    recheckAfter: recheckAfter, clock: clock, probe: probe, journal: journal))
        }
        return ProxyGate(
            transport, addresses: addresses.map(\.url), credential: proxyCredential, offersIdentity: identity != nil)
    }
}
