#if os(Linux) && canImport(CCurl)
    import CCurl
    import CompanionCore
    import Foundation
    import Synchronization

    /// The Linux transport: libcurl directly, without FoundationNetworking in between.
    ///
    /// It exists only because Linux lacks what Apple's `URLSession` gives: it is not compiled on Apple platforms,
    /// where `URLSessionTransport` is the transport (docs/apple.md).
    ///
    /// Why: on Linux `URLSession` is a layer over the same libcurl, and that layer costs about two
    /// thirds of a small request's time, rounds every timeout to whole seconds and drops a POST body
    /// on a 307/308 redirect. This transport keeps what the kit needs and nothing else:
    /// - Connections are reused: every transfer runs on one shared libcurl multi handle, whose
    ///   connection cache keeps idle keep-alive connections per origin. A write (a method that is not
    ///   idempotent) opens a fresh connection, because libcurl would silently resend it if a reused
    ///   connection turned out dead; the kit's retry policy alone decides whether a write is resent.
    /// - Bodies stream: each chunk libcurl receives is yielded to the `HTTPBody` at once (SSE, large
    ///   downloads).
    /// - The timeout is the kit's idle timeout, to the millisecond: a transfer that receives nothing
    ///   for `request.timeout` fails with `timedOut`, whatever its length.
    /// - libcurl follows no redirect: this transport follows them itself, asking the `RedirectPolicy`
    ///   about every hop, as `URLSessionTransport` does. A 301/302 answer to a POST and every 303
    ///   continue as a GET without a body; 307 and 308 resend the method and the body.
    /// - TLS peers are verified (libcurl's default, never turned off here).
    /// - Cancelling the calling task, or dropping the body before its end, aborts the transfer.
    /// - No cookies and no cache: credentials are attached per origin by the kit's middleware.
    /// - One server's TLS settings (`ConnectionSecurity`: its CAs or pinned keys, a client certificate with its
    ///   chain) apply to every transfer of the transport made for it; a certificate libcurl refuses is
    ///   `HTTPError.untrustedCertificate` with what the server presented.
    public struct CurlTransport: Transport {
        private let redirectPolicy: RedirectPolicy
        private let security: CurlSecurity?
        /// What a hop to an origin outside the server's own gets (its CAs alone).
        private let outsideScope: CurlSecurity?
        private let scope: ConnectionSecurity

        /// Creates a transport; every instance shares one libcurl engine and its connection cache. `security` is
        /// one server's trust and client certificate (the system's by default).
        public init(redirectPolicy: RedirectPolicy = RedirectPolicy(), security: ConnectionSecurity = .system) {
            self.redirectPolicy = redirectPolicy
            self.security = security.isSystem ? nil : CurlSecurity(security)
            self.outsideScope = security.outsideScope.isSystem ? nil : CurlSecurity(security.outsideScope)
            self.scope = security
        }

        /// Sends `request`, following redirects the policy allows, and returns as soon as the
        /// final response head arrives; the body streams after.
        public func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
            var current = request
            var hops = 0
            while true {
                let hopSecurity = scope.applies(to: current.url) ? security : outsideScope
                let (response, body) = try await CurlEngine.shared.exchange(current, security: hopSecurity)
                guard let target = Self.redirectTarget(of: response, from: current.url) else {
                    return (response, body)
                }
                // Read the redirect's own (small) body to its end so the connection can be reused.
                _ = try? await body.collect(upTo: 1 << 20)
                hops += 1
                if hops > redirectPolicy.maxRedirects {
                    throw .tooManyRedirects(url: HTTPError.describe(request.url))
                }
                switch redirectPolicy.decide(from: current.url, to: target, headers: current.headers) {
                case .refuse(let reason):
                    throw .redirectRefused(
                        from: HTTPError.describe(current.url), to: HTTPError.describe(target), reason: reason)
                case .follow(let headers):
                    current = Self.redirected(current, to: target, status: response.status, headers: headers)
                }
            }
        }

        /// Where a 301, 302, 303, 307 or 308 with a `Location` points, resolved against `url`.
        static func redirectTarget(of response: HTTPResponse, from url: URL) -> URL? {
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"],
                let target = URL(string: location, relativeTo: url)?.absoluteURL
            else { return nil }
            return target
        }

        /// The next hop's request: 303 (and 301/302 after a POST) become a GET without a body.
        static func redirected(_ request: HTTPRequest, to url: URL, status: Int, headers: HTTPHeaders) -> HTTPRequest {
            var next = request
            next.url = url
            next.headers = headers
            let becomesGet =
                status == 303 ? request.method != .head : (status == 301 || status == 302) && request.method == .post
            if becomesGet {
                next.method = .get
                next.body = nil
                next.headers.removeAll { name in
                    let lower = name.lowercased()
                    return lower == "content-type" || lower == "content-length"
                }
            }
            return next
        }
    }
#endif
