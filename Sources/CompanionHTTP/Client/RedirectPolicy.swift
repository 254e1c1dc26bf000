import CompanionCore
import Foundation

/// What the transport does with a redirect.
///
/// Rules, each closing a way credentials leak:
/// - Never from https to http: the next hop would travel in clear text.
/// - Never to a URL the `permits` check refuses (the app's transport policy).
/// - To another origin (scheme, host or port differ), drop every credential header first:
///   `Authorization`, `Cookie`, `Proxy-Authorization` and any header the redactor calls secret
///   (`X-Certain-Token`, `X-Session-Token`). A credential goes only to the origin that issued it.
/// - At most `maxRedirects` hops.
public struct RedirectPolicy: Sendable {
    /// The most hops followed before `tooManyRedirects`.
    public var maxRedirects: Int
    /// Whether a URL may be connected to (wire the app's `TransportPolicy` here).
    public var permits: @Sendable (URL) -> Bool
    /// Decides which headers are credentials.
    public var redactor: Redactor

    /// Creates a policy.
    public init(
        maxRedirects: Int = 10, redactor: Redactor = Redactor(),
        permits: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) {
        self.maxRedirects = maxRedirects
        self.permits = permits
        self.redactor = redactor
    }

    /// What to do with one hop.
    public enum Decision: Sendable, Equatable {
        /// Follow, sending these headers.
        case follow(HTTPHeaders)
        /// Refuse, for this reason.
        case refuse(HTTPError.RedirectRefusal)
    }

    /// Decides a hop from `from` to `to`, carrying `headers`.
    public func decide(from: URL, to: URL, headers: HTTPHeaders) -> Decision {
        if from.scheme?.lowercased() == "https", to.scheme?.lowercased() != "https" { return .refuse(.downgrade) }
        if !permits(to) { return .refuse(.policy) }
        guard Self.origin(of: from) != Self.origin(of: to) else { return .follow(headers) }
        var stripped = headers
        stripped.removeAll { redactor.isSecretHeader($0) }
        return .follow(stripped)
    }

    /// `scheme://host:port` with the default port filled in, lowercased.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
