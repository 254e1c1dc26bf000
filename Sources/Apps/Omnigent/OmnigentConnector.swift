import CompanionApp
import CompanionCore
import CompanionHTTP
import Foundation

/// Finds out what an address is before anything else happens (server setup).
public enum OmnigentConnector {
    /// What went wrong while connecting, with a sentence a person can act on.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The address itself is not acceptable.
        case address(ServerAddressError)
        /// The server did not answer as an Omnigent server.
        case notOmnigent(HTTPError)
        /// The person (or the app) cancelled the connect: nothing is said, as the real app returns silently.
        case cancelled

        /// A sentence a person can act on.
        public var description: String {
            switch self {
            case .address(let error): return error.description
            case .notOmnigent(let error):
                return "This does not look like an Omnigent server: \(error.description)"
            case .cancelled: return "The connect was cancelled."
            }
        }
    }

    /// The manifest's profile: Omnigent's, with one more attempt for a read that meets a dropped connection.
    static let manifestProfile: AppProfile = {
        var profile = OmnigentServer.profile
        profile.retryPolicy = RetryPolicy(maxAttempts: 2)
        return profile
    }()

    /// Connects to `address` on the environment's transport: the workspace mount probe (one HEAD, same-origin
    /// only), then the manifest. The address (with any mount found) is read under the environment's policy.
    ///
    /// On a Databricks host (a workspace or an App, whose sign-in happens inside the web view, O-URL-10) no
    /// manifest is asked for, as the real app's `ConnectView` asks for none there: a workspace answers it to a
    /// person not yet signed in with 401, 403, a redirect to its sign-in page or 404, and the web view is where
    /// that sign-in happens, so setup goes on to the page. On any other host a missing manifest means the
    /// address is not an Omnigent server. A connect the caller cancelled throws `cancelled`, which says nothing.
    public static func connect(
        _ address: ServerAddress, environment: AppEnvironment
    ) async throws(Failure) -> ServerConnection {
        let discovered = await WorkspaceDiscovery.discover(address.url, environment: environment)
        let resolved: ServerAddress
        do {
            resolved = try environment.address(discovered.absoluteString)
        } catch {
            throw .address(error)
        }
        let apiBase = WorkspaceDiscovery.apiBase(for: resolved.url)
        if HostKind(host: resolved.host).signsInInWebView {
            environment.journal.record(
                .note, "omnigent manifest not asked on a Databricks host; sign-in in the web view")
            return ServerConnection(address: resolved, apiBase: apiBase, manifest: nil)
        }
        let client = environment.client(for: apiBase, profile: manifestProfile)
        do {
            let manifest = try await client.send(OmnigentAPI.manifest())
            environment.journal.record(.note, "omnigent manifest", fields: ["mode": manifest.auth.mode])
            return ServerConnection(address: resolved, apiBase: apiBase, manifest: manifest)
        } catch {
            if case .cancelled = error { throw .cancelled }
            throw .notOmnigent(error)
        }
    }
}
