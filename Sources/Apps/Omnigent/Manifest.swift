import CompanionCore
import Foundation

/// The server's manifest at `/.well-known/omnigent.json` (O-AUTH-1).
public struct Manifest: Codable, Sendable, Hashable {
    /// How the server authenticates.
    public struct Auth: Codable, Sendable, Hashable {
        /// `oidc`, `accounts`, `header`, `custom` or `none`.
        public var mode: String
        /// The session cookie's name, if any.
        public var sessionCookie: String?
        /// Redirect URIs for native OIDC, non-null only for `oidc`.
        public var nativeRedirectURIs: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case mode
            case sessionCookie = "session_cookie"
            case nativeRedirectURIs = "native_redirect_uris"
        }
    }

    /// The manifest's version.
    public var manifestVersion: Int
    /// The server's version.
    public var serverVersion: String?
    /// The server's display name.
    public var serverName: String?
    /// The authentication description.
    public var auth: Auth

    enum CodingKeys: String, CodingKey, CaseIterable {
        case auth
        case manifestVersion = "manifest_version"
        case serverVersion = "server_version"
        case serverName = "server_name"
    }

    /// The auth mode as a value; unknown modes count as `custom` (O-OPEN-16).
    public var authMode: AuthMode { AuthMode(rawValue: auth.mode) ?? .custom }
}

/// How an Omnigent server signs people in.
public enum AuthMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// An external identity provider.
    case oidc
    /// Username and password on the server.
    case accounts
    /// A trusted proxy header; on loopback, single-user with no sign-in.
    case header
    /// Anything else: sign in inside the web view.
    case custom
    /// No authentication.
    case none
}
