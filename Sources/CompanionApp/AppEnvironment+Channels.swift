import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

extension AppEnvironment {
    /// A live channel (WebSocket) to `path` of the server at `baseURL`, speaking `dialect`: the channel an app core
    /// gets instead of opening a socket itself.
    ///
    /// Rules: it is made with the server's own network settings, exactly as its HTTP transport is (pinned keys or
    /// imported CAs, the client identity with its chain, the proxy's Basic credential, the home and away addresses:
    /// `channelTransport(for:)`); its URL must pass the environment's transport policy; it journals in the
    /// environment's journal, where a message's secret-named members are masked and the server's secrets (the proxy
    /// password, the identity's passphrase) are registered; it waits and jitters with the environment's sleeper and
    /// random source. It does not connect until `start()`.
    public func channel(
        for baseURL: URL, path: String, dialect: any ChannelDialect, headers: HTTPHeaders = HTTPHeaders(),
        policy: ReconnectPolicy = ReconnectPolicy(), maxMessageBytes: Int = 16 << 20
    ) -> ChannelConnection {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        let url = URL(string: text + (path.hasPrefix("/") ? path : "/" + path)) ?? baseURL
        return ChannelConnection(
            ChannelRequest(url: url, headers: headers, maxMessageBytes: maxMessageBytes),
            transport: channelTransport(for: baseURL), dialect: dialect, policy: policy, sleeper: sleeper,
            random: random, journal: journal)
    }

    /// A Server-Sent Events stream of `client` as a live channel (`EventSourceChannelTransport` with
    /// `EventStreamDialect`): the same state, reconnect and journal as a WebSocket channel.
    public func eventChannel(
        client: Client, request: Request<Void>, configuration: EventSourceConfiguration = EventSourceConfiguration(),
        policy: ReconnectPolicy = ReconnectPolicy()
    ) -> ChannelConnection {
        ChannelConnection(
            ChannelRequest(url: client.baseURL),
            transport: EventSourceChannelTransport(client: client, request: request, configuration: configuration),
            dialect: EventStreamDialect(), policy: policy, sleeper: sleeper, random: random, journal: journal)
    }

    /// The channel transport for the server at `baseURL`: its network settings from `secrets`
    /// (`ServerNetwork.channelTransport`), under the transport policy (plus plain http to its home address when its
    /// person allowed it, `ServerNetwork.policy(under:)`). Settings that cannot be read make a
    /// transport that refuses with the reason: a server with its own trust is never reached without it.
    public func channelTransport(for baseURL: URL) -> any ChannelTransport {
        guard appliesServerNetworks, let address = settingsAddress(baseURL) else {
            return PolicyChannelTransport(inner: DefaultChannelTransport.webSocket(), policy: transportPolicy)
        }
        let settings = NetworkSettings(store: secrets, clock: clock)
        do throws(SecretStoreError) {
            let network = try settings.network(for: address)
            let policy = network.policy(under: transportPolicy)
            var identity: ClientIdentity?
            if let id = network.identityID {
                guard let stored = try settings.identity(id) else { throw .damaged(account: "identity \(id)") }
                identity = stored
            }
            for secret in network.secretValues + (identity?.secretValues ?? []) { journal.register(secret: secret) }
            return PolicyChannelTransport(
                inner: network.channelTransport(
                    identity: identity, journal: journal, clock: clock, policy: transportPolicy),
                policy: policy)
        } catch {
            return RefusingChannelTransport(sentence: error.description)
        }
    }
}

/// Refuses a channel whose URL the transport policy does not permit (plain `ws` to a host that is not loopback).
private struct PolicyChannelTransport: ChannelTransport {
    let inner: any ChannelTransport
    let policy: TransportPolicy

    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        guard policy.permits(request.httpURL) else {
            throw .connection(.insecureTransport(url: HTTPError.describe(request.url)))
        }
        return try await inner.open(request)
    }

    func networkChanged() async -> Bool { await inner.networkChanged() }
}

/// A transport that opens nothing and says why.
private struct RefusingChannelTransport: ChannelTransport {
    let sentence: String

    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        throw .connection(.transport("this server's network settings could not be read: \(sentence)"))
    }
}
