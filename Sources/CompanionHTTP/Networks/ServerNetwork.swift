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
    /// The risk the person accepted to reach the home address (`internalAddress`) over plain http, or `nil`: then
    /// an http home address that the transport policy does not allow is kept but never connected to.
    public var plainHTTPAtHome: PlainHTTPRisk?

    /// Creates the settings of `server`; nothing beyond the system's defaults unless given.
    public init(
        server: ServerAddress, internalAddress: ServerAddress? = nil, trust: ServerTrust = .system,
        identityID: String? = nil, proxyCredential: ProxyCredential? = nil, plainHTTPAtHome: PlainHTTPRisk? = nil
    ) {
        self.server = server
        self.internalAddress = internalAddress
        self.trust = trust
        self.identityID = identityID
        self.proxyCredential = proxyCredential
        self.plainHTTPAtHome = plainHTTPAtHome
    }

    /// Reads stored settings; an http home address loads only with the person's choice stored beside it, and
    /// settings stored before that choice existed read it as not made.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        trust = try container.decode(ServerTrust.self, forKey: .trust)
        identityID = try container.decodeIfPresent(String.self, forKey: .identityID)
        proxyCredential = try container.decodeIfPresent(ProxyCredential.self, forKey: .proxyCredential)
        plainHTTPAtHome = try container.decodeIfPresent(PlainHTTPRisk.self, forKey: .plainHTTPAtHome)
        // With the choice made, an http address loads (the server signed in at its home address); the transport
        // policy still refuses, at each request, every http origin but the home address's.
        let policy: TransportPolicy = plainHTTPAtHome == nil ? .allowingInsecureLoopback : .development
        func address(_ key: CodingKeys) throws -> ServerAddress? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            do {
                return try ServerAddress(parsing: text, policy: policy)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
            }
        }
        guard let server = try address(.server) else {
            throw DecodingError.keyNotFound(
                CodingKeys.server,
                DecodingError.Context(codingPath: container.codingPath, debugDescription: "no server"))
        }
        self.server = server
        internalAddress = try address(.internalAddress)
    }

    /// Whether nothing is set beyond the defaults (the server needs no record).
    public var isDefault: Bool {
        internalAddress == nil && trust.isSystem && identityID == nil && proxyCredential == nil
            && plainHTTPAtHome == nil
    }

    /// Allows plain http to this server's home address (`home`, which becomes `internalAddress`; the server's own
    /// address when it is the home one), naming the `risk` the person accepted (H-NET-3). Only that address's
    /// origin is allowed; the server's other address stays https only.
    public mutating func allowPlainHTTPAtHome(_ home: ServerAddress, accepting risk: PlainHTTPRisk) {
        internalAddress = home
        plainHTTPAtHome = risk
    }

    /// `base` plus plain http to the home address when the person allowed it (`plainHTTPAtHome`): the policy every
    /// client and channel of this server follows.
    public func policy(under base: TransportPolicy) -> TransportPolicy {
        guard plainHTTPAtHome != nil, let internalAddress else { return base }
        return base.allowingPlainHTTP(toHome: internalAddress)
    }

    /// The home address when `base` (with the person's choice, `policy(under:)`) lets it be connected to, else
    /// `nil`: an http home address without the choice is kept in the settings but never used.
    public func usableInternalAddress(under base: TransportPolicy) -> ServerAddress? {
        guard let internalAddress, policy(under: base).permits(internalAddress.url) else { return nil }
        return internalAddress
    }

    /// Why the home address is not used under `base`, or `nil` when it is (or there is none).
    public func internalAddressRefusal(under base: TransportPolicy) -> TransportPolicyError? {
        guard let internalAddress else { return nil }
        do {
            try policy(under: base).check(internalAddress.url)
            return nil
        } catch {
            return error
        }
    }

    /// The address the failover sends to instead of `server`: the usable home address when it is another one.
    func failoverAddress(under base: TransportPolicy?) -> ServerAddress? {
        let home = base.map { usableInternalAddress(under: $0) } ?? internalAddress
        guard let home, home != server else { return nil }
        return home
    }

    /// The addresses configured for the server (external first): the only ones its credentials go to.
    public var addresses: [ServerAddress] { [server] + (internalAddress.map { $0 == server ? [] : [$0] } ?? []) }

    /// The secret values inside (the proxy password), for a journal to mask.
    public var secretValues: [String] { proxyCredential?.secretValues ?? [] }

    /// The server's transport: the platform's (`DefaultTransport`) with the server's trust and `identity`,
    /// sending to the internal address while it answers, behind the `ProxyGate` with the proxy's credentials.
    ///
    /// `identity` is the `ClientIdentity` whose id is `identityID` (the store holds identities apart, so one can be
    /// assigned to several servers); `clock`, `probe` and `journal` drive the address failover. With `policy` (the
    /// environment's), an http home address is used only when `policy(under:)` allows it.
    public func transport(
        identity: ClientIdentity?, redirectPolicy: RedirectPolicy = RedirectPolicy(), journal: Journal = Journal(),
        clock: any WallClock = SystemWallClock(), probe: any ConnectProbe = TCPConnectProbe(),
        connectTimeout: Duration = .milliseconds(1500), recheckAfter: Duration = .seconds(60),
        platform: (any Transport)? = nil, policy: TransportPolicy? = nil
    ) -> any Transport {
        let security = ConnectionSecurity(trust: trust, identity: identity, scope: addresses.map(\.url))
        var transport = platform ?? DefaultTransport.platform(redirectPolicy: redirectPolicy, security: security)
        if let internalAddress = failoverAddress(under: policy) {
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
