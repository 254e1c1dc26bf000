import Foundation

/// A user name and password for HTTP Basic at a reverse proxy in front of a server (nginx `auth_basic`, Traefik
/// `basicAuth`), asked for before the app's own sign-in.
///
/// Rules: it is stored in the secret store beside the server's credential; it goes only to the addresses
/// configured for that server (never across a redirect to another origin: `RedirectPolicy` strips
/// `Authorization`); `description` names the user only.
public struct ProxyCredential: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates a credential.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` header value: `Basic base64(user:password)` (RFC 7617, UTF-8).
    public var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// The secret values inside, for a journal to mask (the password, and the header value that encodes it).
    public var secretValues: [String] { [password, authorization, String(authorization.dropFirst(6))] }

    /// The user; never the password.
    public var description: String { "proxy user \(user)" }
}
