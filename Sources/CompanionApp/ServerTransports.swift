import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Each server's own transport, made from its network settings in the secret store (`NetworkSettings`: pinned
/// keys or CAs, a client identity, proxy credentials, an internal address), kept for the life of the environment.
///
/// Rules:
/// - A server with nothing set uses the environment's shared transport (one connection pool for every client).
/// - A server with settings gets `NetworkSettings.transport(for:)`, redirects under the environment's transport
///   policy (plus plain http to its home address when the person allowed it: `ServerNetwork.policy(under:)`, and
///   an http home address without that choice is never used), every event in its journal; the same transport serves every client of that server while its
///   settings are unchanged (so the failover remembers which address answered), and a new one is made when
///   they change (a pin added by the person).
/// - Settings that cannot be read make a transport that refuses every request with the reason: a server with
///   its own trust or certificate is never reached without them.
/// - A transport a test gave the environment is used for every server, settings or not.
final class ServerTransports: Sendable {
    private let cache = Locked<[String: (network: ServerNetwork, transport: any Transport)]>([:])

    /// The transport for `baseURL` in `environment`.
    func transport(for baseURL: URL, in environment: AppEnvironment) -> any Transport {
        guard environment.appliesServerNetworks,
            let address = environment.settingsAddress(baseURL)
        else { return environment.transport }
        let settings = NetworkSettings(store: environment.secrets, clock: environment.clock)
        let network: ServerNetwork
        do {
            network = try settings.network(for: address)
        } catch {
            return Refusing(sentence: error.description)
        }
        guard !network.isDefault else { return environment.transport }
        if let cached = cache.withLock({ $0[address.serverKey] }), cached.network == network {
            return cached.transport
        }
        let policy = network.policy(under: environment.transportPolicy)
        let transport: any Transport
        do {
            transport = try settings.transport(
                for: address, redirectPolicy: RedirectPolicy(permits: { policy.permits($0) }),
                journal: environment.journal, policy: environment.transportPolicy)
        } catch {
            return Refusing(sentence: error.description)
        }
        cache.withLock { $0[address.serverKey] = (network, transport) }
        return transport
    }

    /// A transport that sends nothing and says why.
    private struct Refusing: Transport {
        let sentence: String

        func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
            throw .transport("this server's network settings could not be read: \(sentence)")
        }
    }
}
