import CompanionCore

/// A deep link that passed its app's grammar: which server it names and which page path it opens.
///
/// Rule: the `server` is only the server's identity (scheme, host, port) and never holds the page path, so
/// the path can never leak into the saved server or recents; `path` is rebuilt from the decoded
/// identifiers, so it holds only characters a path segment allows.
public struct DeepLink: Sendable, Hashable {
    /// The server the link names, with its scheme inferred from the host (see `LinkParser`).
    public let server: ServerAddress
    /// `host[:port]` exactly as the link names it, lowercased, for the consent text.
    public let hostDisplay: String
    /// The name of the app whose grammar the link passed, for the consent text.
    public let appName: String
    /// The name of the pattern that matched, such as `conversation`.
    public let route: String
    /// The decoded identifiers by name, such as `["id": "conv_abc"]`.
    public let parameters: [String: String]
    /// The page path to open, such as `/c/conv_abc`; identifiers are percent-encoded again.
    public let path: String
}
