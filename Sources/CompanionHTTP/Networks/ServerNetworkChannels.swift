import CompanionCore
import Foundation

extension ServerNetwork {
    /// The server's channel transport: the platform's WebSocket transport (`DefaultChannelTransport`) with the
    /// server's trust and `identity`, connecting to the internal address while it answers, with the proxy's Basic
    /// credential on the upgrade: the same settings, in the same places, as the server's HTTP transport
    /// (`transport(identity:…)`).
    ///
    /// `platform` replaces the platform's WebSocket transport (a test's counting wrapper); the server's settings
    /// still apply around it. With `policy` (the environment's), an http home address is used only when
    /// `policy(under:)` allows it.
    public func channelTransport(
        identity: ClientIdentity?, journal: Journal = Journal(), clock: any WallClock = SystemWallClock(),
        probe: any ConnectProbe = TCPConnectProbe(), connectTimeout: Duration = .milliseconds(1500),
        recheckAfter: Duration = .seconds(60), platform: (any ChannelTransport)? = nil, policy: TransportPolicy? = nil
    ) -> any ChannelTransport {
        let security = ConnectionSecurity(trust: trust, identity: identity, scope: addresses.map(\.url))
        let failover = failoverAddress(under: policy).map { internalAddress in
            AddressFailover(
                external: server.url, internal: internalAddress.url, connectTimeout: connectTimeout,
                recheckAfter: recheckAfter, clock: clock, probe: probe, journal: journal)
        }
        return ServerChannelTransport(
            inner: platform ?? DefaultChannelTransport.webSocket(security: security), addresses: addresses.map(\.url),
            credential: proxyCredential, failover: failover)
    }
}

/// One server's settings around a channel transport: the home address while it answers (`AddressFailover`), and the
/// proxy's Basic credential on an upgrade to one of the server's addresses.
///
/// Rules (as `FailoverTransport` and `ProxyGate` for HTTP): the credential goes only to the server's own
/// addresses, and never replaces an `Authorization` the request carries; a connection the internal address refused
/// (nothing was sent) is made again at once to the external address, which is used from then on.
struct ServerChannelTransport: ChannelTransport {
    let inner: any ChannelTransport
    let addresses: [URL]
    let credential: ProxyCredential?
    let failover: AddressFailover?

    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        if let failover, await failover.choose() == .internal, let url = failover.internalURL(for: request.httpURL) {
            var routed = signed(request, for: url)
            routed.url = url
            do {
                return try await inner.open(routed)
            } catch .connection(.unreachable) {
                await failover.internalUnreachable()
            }
        }
        return try await inner.open(signed(request, for: request.httpURL))
    }

    func networkChanged() async -> Bool {
        await failover?.networkChanged() ?? false
    }

    private func signed(_ request: ChannelRequest, for url: URL) -> ChannelRequest {
        var request = request
        guard let credential, request.headers["Authorization"] == nil,
            addresses.contains(where: { RedirectPolicy.origin(of: $0) == RedirectPolicy.origin(of: url) })
        else { return request }
        request.headers["Authorization"] = credential.authorization
        return request
    }
}
