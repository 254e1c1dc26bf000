import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

/// Finds out what an address is before anything else happens (server setup).
public enum OmnigentConnector {
    /// What went wrong while connecting, with a sentence a person can act on.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The address itself is not acceptable.
        case address(ServerAddressError)
        /// The server did not answer as an Omnigent server.
        case notOmnigent(HTTPError)

        /// A sentence a person can act on.
        public var description: String {
            switch self {
            case .address(let error): return error.description
            case .notOmnigent(let error):
                return "This does not look like an Omnigent server: \(error.description)"
            }
        }
    }

    /// Connects to `address`: the workspace mount probe (one HEAD, same-origin only), then the manifest.
    public static func connect(
        _ address: ServerAddress, policy: TransportPolicy, journal: Journal
    ) async throws(Failure) -> ServerConnection {
        let discovered = await WorkspaceDiscovery.discover(address.url, journal: journal)
        let resolved: ServerAddress
        do {
            resolved = try ServerAddress(parsing: discovered.absoluteString, policy: policy)
        } catch {
            throw .address(error)
        }
        let apiBase = WorkspaceDiscovery.apiBase(for: resolved.url)
        let client = Client(
            baseURL: apiBase,
            configuration: Client.Configuration(
                retryPolicy: RetryPolicy(maxAttempts: 2), transportPolicy: policy, journal: journal))
        do {
            let manifest = try await client.send(OmnigentAPI.manifest())
            journal.record(.note, "omnigent manifest", fields: ["mode": manifest.auth.mode])
            return ServerConnection(address: resolved, apiBase: apiBase, manifest: manifest)
        } catch {
            throw .notOmnigent(error)
        }
    }

    /// The signed-in identity's account key: `/v1/me` (header mode answers `local`).
    public static func account(of connection: ServerConnection, client: Client) async throws(HTTPError) -> AccountKey {
        let me = try await client.send(OmnigentAPI.me())
        return AccountKey(address: connection.address, userID: me.userID ?? "local")
    }
}
