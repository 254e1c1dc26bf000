import Foundation

/// Which transport a `Client` uses when none is given.
///
/// Rule: on Linux it is `CurlTransport` (libcurl directly: faster, millisecond timeouts, 307/308
/// keep their body); on Apple platforms it is `URLSessionTransport`. Setting the environment
/// variable `COMPANION_TRANSPORT=urlsession` picks `URLSessionTransport` on Linux too, which is how
/// the test suite runs once over each transport. Either sits behind the `ProxyGate`, so a reverse proxy's own
/// answers (its Basic challenge, a forward-auth sign-in page, nginx's client-certificate page) are told apart
/// from the server's for every client.
public enum DefaultTransport {
    /// The environment variable that picks the transport on Linux: `curl` (default) or `urlsession`.
    ///
    /// Linux only: it exists because Linux has two transports to choose from (FoundationNetworking's `URLSession`,
    /// which cannot apply a server's own trust, and libcurl). Apple platforms ignore it: `URLSessionTransport` is
    /// the only transport there.
    public static let environmentVariable = "COMPANION_TRANSPORT"

    /// A new default transport applying `redirectPolicy` to every hop.
    public static func make(redirectPolicy: RedirectPolicy = RedirectPolicy()) -> any Transport {
        ProxyGate(platform(redirectPolicy: redirectPolicy))
    }

    /// The platform's transport alone (no `ProxyGate`), with one server's TLS settings.
    public static func platform(
        redirectPolicy: RedirectPolicy = RedirectPolicy(), security: ConnectionSecurity = .system
    ) -> any Transport {
        #if os(Linux) && canImport(CCurl)
            if ProcessInfo.processInfo.environment[environmentVariable]?.lowercased() == "urlsession" {
                return URLSessionTransport(redirectPolicy: redirectPolicy, security: security)
            }
            return CurlTransport(redirectPolicy: redirectPolicy, security: security)
        #else
            return URLSessionTransport(redirectPolicy: redirectPolicy, security: security)
        #endif
    }
}
