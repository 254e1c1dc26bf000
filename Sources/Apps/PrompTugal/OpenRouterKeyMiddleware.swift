import CompanionCore
import CompanionHTTP
import Foundation

/// Attaches the OpenRouter key to requests for OpenRouter, and to nothing else.
///
/// Rules (P-SECRET-2, P-OPEN-26):
/// - The key goes only into `Authorization: Bearer …` of an https request whose host is exactly `openrouter.ai`
///   (default port, no user info). Subdomains are not OpenRouter until a real endpoint needs one.
/// - Every other request leaves without it: an `Authorization` header carrying the key is removed, and a request
///   that would carry the key in its query or body is refused before it leaves, so a bug elsewhere cannot send it.
/// - A redirect from OpenRouter to another host drops it: the kit's transport strips credential headers on every
///   redirect to another origin (`RedirectPolicy`), and the middleware runs again only for requests it sees.
public struct OpenRouterKeyMiddleware: Middleware {
    /// The only origin the key is sent to: `https://openrouter.ai`.
    public struct BoundOrigin: Sendable, Hashable {
        /// The scheme, lowercased.
        public let scheme: String
        /// The host, lowercased.
        public let host: String
        /// The port (the scheme's default when `nil`).
        public let port: Int?

        /// Creates an origin.
        public init(scheme: String, host: String, port: Int?) {
            self.scheme = scheme.lowercased()
            self.host = host.lowercased()
            self.port = port
        }

        /// `https://openrouter.ai`.
        public static let openRouter = BoundOrigin(scheme: "https", host: "openrouter.ai", port: nil)

        /// Whether `url` is on this origin.
        public func matches(_ url: URL) -> Bool {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                components.user == nil, components.password == nil,
                components.scheme?.lowercased() == scheme, components.host?.lowercased() == host
            else { return false }
            let defaultPort = scheme == "https" ? 443 : 80
            return (components.port ?? defaultPort) == (port ?? defaultPort)
        }
    }

    private let key: @Sendable () -> String?
    private let origin: BoundOrigin

    /// Attaches the key `key()` returns (read per request, so a key entered later is used and a deleted one is
    /// not) to requests for `origin` (OpenRouter; tests bind a loopback origin to watch the real transport).
    public init(origin: BoundOrigin = .openRouter, key: @escaping @Sendable () -> String?) {
        self.origin = origin
        self.key = key
    }

    /// Adds or withholds the key.
    public func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        guard let secret = key(), !secret.isEmpty else { return try await next(request) }
        var outgoing = request
        if origin.matches(request.url) {
            outgoing.headers["Authorization"] = "Bearer " + secret
            return try await next(outgoing)
        }
        if let header = outgoing.headers["Authorization"], header.contains(secret) {
            outgoing.headers["Authorization"] = nil
        }
        let query = request.url.query ?? ""
        let body = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        if query.contains(secret) || body.contains(secret)
            || outgoing.headers.contains(where: { $0.value.contains(secret) })
        {
            throw .invalidRequest("the OpenRouter key may only be sent to openrouter.ai; the request was not sent")
        }
        return try await next(outgoing)
    }
}
