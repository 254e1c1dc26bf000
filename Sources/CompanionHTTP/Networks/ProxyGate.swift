import CompanionCore
import Foundation

/// What a reverse proxy in front of a server says before the server itself does, told apart from the server's own
/// answers: a transport wrapped around the platform's, below every middleware.
///
/// Rules and reasons:
/// - **HTTP Basic at the proxy.** With a `ProxyCredential`, every request to one of `addresses` (the server's
///   configured addresses, never another origin) carries `Authorization: Basic`, unless the request already
///   carries an `Authorization` of its own (a bearer token of the app: a request has one such header, so the
///   proxy's refusal then says the two collide). A `401` with `WWW-Authenticate: Basic` is the proxy's, not the
///   app's: it becomes `HTTPError.proxySignInRequired(.basic)`, thrown below the authentication middleware, so
///   it never signs the app out.
/// - **Forward-auth sign-in pages.** A success whose body is `text/html` where JSON was asked for (`Accept`) is a
///   proxy's sign-in page when the request was redirected to another origin (a 302 to the sign-in service) or
///   when the page asks for a password or names a sign-in: `proxySignInRequired(.page)` with the page's address,
///   never a decode error and never a sign-out. Any other HTML page stays what it was (the caller's
///   `unexpectedContentType`: probably the wrong address).
/// - **A client certificate the proxy wants.** nginx completes the handshake without one and answers `400`
///   `text/html` ("No required SSL certificate was sent", "The SSL certificate error"): that page becomes
///   `clientCertificateRequired`, saying whether one was offered.
/// - **A server that drops the connection instead.** A server that checks client certificates itself after a TLS
///   1.3 handshake (Home Assistant's `ssl_peer_certificate`) closes the connection before any HTTP byte when none
///   came. With no client certificate set for the server, such a close on https to one of `addresses` (nothing
///   received) becomes `clientCertificateRequired(offered: false)` ("may want a client certificate"), not a lost
///   connection; with one set it stays a lost connection.
/// - Nothing else is touched: other statuses and bodies pass through as they came.
public struct ProxyGate: Transport {
    private let inner: any Transport
    private let addresses: [URL]
    private let credential: ProxyCredential?
    private let offersIdentity: Bool

    /// The most of an HTML body read to tell a sign-in page from another page.
    static let pageLimit = 1024 * 1024

    /// Wraps `inner`. `credential` goes only to requests for one of `addresses` (origins, with any mount path);
    /// `offersIdentity` says whether `inner` offers a client certificate (for the refusal's sentence).
    public init(
        _ inner: any Transport, addresses: [URL] = [], credential: ProxyCredential? = nil, offersIdentity: Bool = false
    ) {
        self.inner = inner
        self.addresses = addresses
        self.credential = credential
        self.offersIdentity = offersIdentity
    }

    /// Sends `request` with the proxy's credential where it belongs, and turns the proxy's own answers into errors.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        var request = request
        var attempt = HTTPError.ProxySignIn.BasicAttempt.notConfigured
        if let credential, addresses.contains(where: { Self.origin(of: $0) == Self.origin(of: request.url) }) {
            if request.headers["Authorization"] == nil {
                request.headers["Authorization"] = credential.authorization
                attempt = .refused
            } else {
                attempt = .displacedByAppCredential
            }
        }
        let (response, body): (HTTPResponse, HTTPBody)
        do {
            (response, body) = try await inner.send(request)
        } catch {
            if case .connectionLost(_, let received) = error, received == 0, !offersIdentity,
                request.url.scheme?.lowercased() == "https",
                addresses.contains(where: { Self.origin(of: $0) == Self.origin(of: request.url) })
            {
                throw .clientCertificateRequired(.init(host: Self.hostAndPort(request.url), offered: false))
            }
            throw error
        }
        if response.status == 401, let challenge = response.headers["WWW-Authenticate"], Self.isBasic(challenge) {
            _ = try? await body.collect(upTo: Self.pageLimit)
            throw .proxySignInRequired(
                .init(
                    kind: .basic(realm: Self.realm(of: challenge), attempt: attempt),
                    address: Self.origin(of: request.url)))
        }
        guard response.mediaType == "text/html", response.status == 400 || response.isSuccess else {
            return (response, body)
        }
        if response.isSuccess, !Self.wantsJSON(request) { return (response, body) }
        let data = try await body.collect(upTo: Self.pageLimit, url: request.url)
        let page = String(decoding: data.prefix(Self.pageLimit), as: UTF8.self)
        if response.status == 400 {
            if let sentence = Self.clientCertificateSentence(page) {
                throw .clientCertificateRequired(
                    .init(host: Self.hostAndPort(request.url), offered: offersIdentity, serverSentence: sentence))
            }
            return (response, HTTPBody(data))
        }
        let answered = response.url ?? request.url
        if Self.origin(of: answered) != Self.origin(of: request.url) || Self.looksLikeSignIn(page) {
            throw .proxySignInRequired(.init(kind: .page, address: HTTPError.describe(answered)))
        }
        return (response, HTTPBody(data))
    }

    /// A refused WebSocket upgrade read the way `send` reads an HTTP answer: the proxy's Basic challenge
    /// (`proxySignInRequired`) and nginx's client-certificate page (`clientCertificateRequired`); `nil` for any other
    /// answer, which is the server's own refusal.
    public static func upgradeRefusal(
        status: Int, headers: HTTPHeaders, page: String, url: URL, sentBasic: Bool, offersIdentity: Bool
    ) -> HTTPError? {
        if status == 401, let challenge = headers["WWW-Authenticate"], isBasic(challenge) {
            return .proxySignInRequired(
                .init(
                    kind: .basic(realm: realm(of: challenge), attempt: sentBasic ? .refused : .notConfigured),
                    address: origin(of: url)))
        }
        if status == 400, let sentence = clientCertificateSentence(page) {
            return .clientCertificateRequired(
                .init(host: hostAndPort(url), offered: offersIdentity, serverSentence: sentence))
        }
        return nil
    }

    /// Whether a `WWW-Authenticate` value offers the Basic scheme (RFC 7617; the scheme name is case-insensitive).
    public static func isBasic(_ challenge: String) -> Bool {
        challenge.split(separator: ",").contains { part in
            part.trimmingCharacters(in: .whitespaces).lowercased().split(separator: " ").first == "basic"
        }
    }

    /// The `realm` of a Basic challenge, unquoted.
    public static func realm(of challenge: String) -> String? {
        guard let range = challenge.range(of: "realm=", options: .caseInsensitive) else { return nil }
        var rest = challenge[range.upperBound...]
        if rest.hasPrefix("\"") {
            rest = rest.dropFirst()
            return String(rest.prefix { $0 != "\"" })
        }
        return String(rest.prefix { $0 != "," && $0 != " " })
    }

    /// Whether the request asked for JSON and not for HTML.
    static func wantsJSON(_ request: HTTPRequest) -> Bool {
        let accept = (request.headers["Accept"] ?? "").lowercased()
        return accept.contains("json") && !accept.contains("text/html")
    }

    /// What nginx says on the 400 page it answers a missing or refused client certificate with, word for word.
    public static func clientCertificateSentence(_ page: String) -> String? {
        ["No required SSL certificate was sent", "The SSL certificate error", "SSL certificate error"]
            .first { page.contains($0) }
    }

    /// Whether an HTML page is a sign-in form: a password field, or a title or heading that names signing in.
    public static func looksLikeSignIn(_ page: String) -> Bool {
        let lower = page.lowercased()
        if lower.contains("type=\"password\"") || lower.contains("type='password'") || lower.contains("type=password") {
            return true
        }
        var headings: [Substring] = []
        for tag in ["<title", "<h1"] {
            guard let open = lower.range(of: tag), let close = lower[open.upperBound...].range(of: "</") else {
                continue
            }
            headings.append(lower[open.upperBound..<close.lowerBound])
        }
        return headings.contains { text in
            ["sign in", "sign-in", "log in", "login", "authenticat", "single sign-on"].contains { text.contains($0) }
        }
    }

    /// `scheme://host:port`, lowercased, default ports filled in.
    static func origin(of url: URL) -> String { RedirectPolicy.origin(of: url) }

    static func hostAndPort(_ url: URL) -> String {
        "\(url.host ?? "the server"):\(url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443))"
    }
}
