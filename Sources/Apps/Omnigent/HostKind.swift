import CompanionCore
import Foundation

/// What kind of host an Omnigent address names (O-URL-9), which decides where sign-in happens (O-URL-10),
/// as the real app's `ServerAuthentication` classifies it.
public enum HostKind: String, Sendable, Hashable {
    /// A Databricks workspace (`databricks.com`, `*.databricks.com`, `*.azuredatabricks.net`).
    case databricksWorkspace
    /// A Databricks App (`*.databricksapps.com`).
    case databricksApp
    /// Any other host: the generic path.
    case generic

    /// Classifies `host`, case-insensitively and on a dot boundary, so `notdatabricks.com` and
    /// `databricks.com.example.org` stay generic; no host (`nil`, empty) is generic.
    public init(host: String?) {
        let lower = host?.lowercased() ?? ""
        func matches(_ domain: String) -> Bool { lower == domain || lower.hasSuffix("." + domain) }
        if matches("databricksapps.com") {
            self = .databricksApp
        } else if matches("databricks.com") || matches("azuredatabricks.net") {
            self = .databricksWorkspace
        } else {
            self = .generic
        }
    }

    /// Classifies the host of `origin` (a URL as text), and only its host: user info, port, path, query and
    /// fragment do not count, so `https://databricks.com@example.org` and `https://example.org/databricks.com`
    /// are generic (their host is `example.org`); text that is no URL is generic.
    public init(origin: String?) {
        self.init(host: origin.flatMap { URLComponents(string: $0)?.host })
    }

    /// Whether sign-in runs inside the web view (Databricks) rather than by the server's auth mode.
    public var signsInInWebView: Bool { self != .generic }
}
