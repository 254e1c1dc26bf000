import CompanionCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong between asking for a resource and holding its decoded value.
///
/// Rule: each case tells apart a situation a person handles differently (go online, wait, fix the
/// address, sign in again, tell the server's admin), carries what went wrong, and reads as a
/// sentence that says what to do. URLs in it are redacted: no query secret or user info.
public enum HTTPError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The request could not be built (bad path, unencodable body).
    case invalidRequest(String)
    /// The transport policy refused the URL: plain http to a host that is not loopback, or not allowed.
    case insecureTransport(url: String)
    /// The device has no network connection.
    case offline(detail: String)
    /// The server could not be reached: refused, unknown host, no route.
    case unreachable(host: String, detail: String)
    /// The server stopped sending for longer than the timeout.
    case timedOut(url: String)
    /// The secure connection failed (a TLS handshake error) for a reason other than the cases below.
    case tls(host: String, detail: String)
    /// The server's certificate is not trusted for this server (no chain to a trusted CA, or not a pinned key):
    /// the connection was closed before anything was sent. It carries the certificate a person checks.
    case untrustedCertificate(CertificateRefusal)
    /// The server, or the proxy in front of it, asks for a client certificate and none was set for it, or it
    /// refused the one sent.
    case clientCertificateRequired(ClientCertificateRefusal)
    /// A proxy in front of the server wants its own sign-in first (HTTP Basic, or a forward-auth sign-in page):
    /// this is not the app's sign-in, and it never signs the app out.
    case proxySignInRequired(ProxySignIn)
    /// The request was cancelled by the caller.
    case cancelled
    /// The connection broke before the whole response arrived (reset, truncated body).
    case connectionLost(url: String, receivedBytes: Int)
    /// A redirect was refused because following it would weaken security.
    case redirectRefused(from: String, to: String, reason: RedirectRefusal)
    /// Redirects went on for too long (a loop).
    case tooManyRedirects(url: String)
    /// The server answered with a status that is not success.
    case status(StatusFailure)
    /// The body did not decode into the expected type.
    case undecodable(DecodingFailure)
    /// The body was not of the expected media type (an HTML page where JSON was expected).
    case unexpectedContentType(expected: String, received: String, url: String, serverSentence: String?)
    /// The body was larger than the limit set for this request.
    case bodyTooLarge(limit: Int, url: String)
    /// Any other transport failure.
    case transport(String)

    /// Why a redirect was refused.
    public enum RedirectRefusal: String, Sendable, Hashable {
        /// From https to http.
        case downgrade
        /// To a URL the transport policy does not permit.
        case policy
    }

    /// A non-success status, with what the server said about it.
    public struct StatusFailure: Sendable, Hashable {
        /// The request method.
        public var method: String
        /// The redacted URL.
        public var url: String
        /// The status code.
        public var status: Int
        /// The server's own error, if its body held one.
        public var envelope: ServerErrorEnvelope?
        /// The `Retry-After` delay, if the server sent one.
        public var retryAfter: Duration?

        /// Creates a status failure.
        public init(
            method: String, url: String, status: Int, envelope: ServerErrorEnvelope? = nil, retryAfter: Duration? = nil
        ) {
            self.method = method
            self.url = url
            self.status = status
            self.envelope = envelope
            self.retryAfter = retryAfter
        }
    }

    /// A body that did not fit the expected type.
    public struct DecodingFailure: Sendable, Hashable {
        /// The type that was expected.
        public var type: String
        /// Where in the document it failed, such as `items[0].name` (empty for the root).
        public var path: String
        /// What was wrong there.
        public var detail: String
        /// The redacted URL.
        public var url: String

        /// Creates a decoding failure.
        public init(type: String, path: String, detail: String, url: String) {
            self.type = type
            self.path = path
            self.detail = detail
            self.url = url
        }
    }

    /// A certificate refused before anything was sent: the presented certificate, and the pins it failed.
    public struct CertificateRefusal: Sendable, Hashable {
        /// `host:port` of the server.
        public var host: String
        /// What the server presented.
        public var certificate: ServerCertificate
        /// The keys pinned for this server; when not empty, the server presented another key (its key changed).
        public var pinned: [PinnedKey]
        /// Why the certificate did not verify (`it is self-signed`), when it was checked against CAs.
        public var reason: String?

        /// Creates a refusal.
        public init(host: String, certificate: ServerCertificate, pinned: [PinnedKey] = [], reason: String? = nil) {
            self.host = host
            self.certificate = certificate
            self.pinned = pinned
            self.reason = reason
        }

        /// Whether a key is pinned for the server and another one was presented.
        public var keyChanged: Bool { !pinned.isEmpty }
    }

    /// A client certificate asked for and missing, or refused.
    public struct ClientCertificateRefusal: Sendable, Hashable {
        /// `host:port` of the server.
        public var host: String
        /// Whether a client certificate was offered (then it was refused); `false`: none is set for this server.
        public var offered: Bool
        /// What the server (proxy) said, word for word (`No required SSL certificate was sent`).
        public var serverSentence: String?

        /// Creates a refusal.
        public init(host: String, offered: Bool, serverSentence: String? = nil) {
            self.host = host
            self.offered = offered
            self.serverSentence = serverSentence
        }
    }

    /// A proxy's own sign-in, standing between the app and its server.
    public struct ProxySignIn: Sendable, Hashable {
        /// Which sign-in the proxy wants.
        public enum Kind: Sendable, Hashable {
            /// HTTP Basic (`401` with `WWW-Authenticate: Basic`), in `realm`; `attempt` says what was sent.
            case basic(realm: String?, attempt: BasicAttempt)
            /// A forward-auth sign-in page (a redirect to another origin, or an HTML sign-in page where JSON was
            /// asked for), to be opened in a browser or the app's web view.
            case page
        }

        /// What a request refused by the proxy's Basic challenge carried.
        public enum BasicAttempt: Sendable, Hashable {
            /// No proxy credentials are set for this server.
            case notConfigured
            /// The configured user name and password were sent and refused.
            case refused
            /// Credentials are set, but the request carried the app's own `Authorization` (a bearer token), and a
            /// request has one such header: the proxy and the app cannot both be answered on it.
            case displacedByAppCredential
        }

        /// Which sign-in.
        public var kind: Kind
        /// Where: the sign-in page's redacted address (`.page`), or the proxied server's origin (`.basic`).
        public var address: String

        /// Creates the state.
        public init(kind: Kind, address: String) {
            self.kind = kind
            self.address = address
        }
    }

    /// The status code, when this is a status failure.
    public var statusCode: Int? {
        if case .status(let failure) = self { return failure.status }
        return nil
    }

    /// The server's error envelope, when there is one.
    public var envelope: ServerErrorEnvelope? {
        switch self {
        case .status(let failure): return failure.envelope
        default: return nil
        }
    }

    /// Whether the failure says nothing reached the server or came back: the case for offline data.
    public var isConnectivity: Bool {
        switch self {
        case .offline, .unreachable, .timedOut, .connectionLost: return true
        default: return false
        }
    }

    /// Whether the server refused the credential (401), or it lacks a permission (403).
    public var isAuthenticationFailure: Bool { statusCode == 401 }

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "The request could not be built: \(reason)."
        case .insecureTransport(let url):
            return "Refused to connect to \(url) without encryption. Use an https:// address."
        case .offline:
            return "You are offline. Connect to the internet and try again."
        case .unreachable(let host, _):
            return "Could not reach \(host). Check the address and that the server is running."
        case .timedOut(let url):
            return "The server at \(url) stopped answering. Try again later."
        case .tls(let host, _):
            return "The secure connection to \(host) failed. Its certificate may be expired or untrusted."
        case .untrustedCertificate(let refusal):
            return Self.sentence(refusal)
        case .clientCertificateRequired(let refusal):
            let said = refusal.serverSentence.map { " It said: \($0)." } ?? ""
            if refusal.offered {
                return
                    "\(refusal.host) refused the client certificate sent.\(said) Check that the server trusts its CA "
                    + "and that the certificate was imported with its intermediate certificates."
            }
            return "\(refusal.host) asks for a client certificate, and none is set for this server.\(said) "
                + "Import your certificate (a PKCS#12 file) and assign it to this server."
        case .proxySignInRequired(let signIn):
            switch signIn.kind {
            case .basic(let realm, let attempt):
                let place = realm.map { " (\"\($0)\")" } ?? ""
                switch attempt {
                case .notConfigured:
                    return "The proxy in front of \(signIn.address) asks for a user name and password\(place) before "
                        + "the app's own sign-in. Add the proxy's user name and password for this server."
                case .refused:
                    return "The proxy in front of \(signIn.address) refused the user name and password\(place). "
                        + "Enter the proxy's user name and password for this server again."
                case .displacedByAppCredential:
                    return "The proxy in front of \(signIn.address) asks for its user name and password\(place), but "
                        + "the app's own sign-in uses the same Authorization header, and a request carries only one. "
                        + "Let the proxy accept the app's sign-in (or a client certificate) for this server instead."
                }
            case .page:
                return
                    "Sign in to the proxy first: \(signIn.address) answered with a sign-in page instead of the app's "
                    + "data. Open it in a browser, sign in, and try again."
            }
        case .cancelled:
            return "The request was cancelled."
        case .connectionLost(let url, let received):
            return "The connection to \(url) broke after \(received) bytes. Try again."
        case .redirectRefused(let from, let to, let reason):
            switch reason {
            case .downgrade:
                return
                    "\(from) redirected to the unencrypted \(to); the app refused to follow. Tell the server's admin."
            case .policy:
                return "\(from) redirected to \(to), which the app may not connect to. Tell the server's admin."
            }
        case .tooManyRedirects(let url):
            return "\(url) redirected too many times. The server is misconfigured; tell its admin."
        case .status(let failure):
            let said = failure.envelope?.summary.map { " The server said: \($0)" } ?? ""
            return
                "\(failure.method) \(failure.url) failed with status \(failure.status) (\(Self.reason(failure.status))).\(said)"
        case .undecodable(let failure):
            let place = failure.path.isEmpty ? "" : " at \(failure.path)"
            return
                "The reply from \(failure.url) did not match \(failure.type)\(place): \(failure.detail). The server may run an unsupported version."
        case .unexpectedContentType(let expected, let received, let url, let sentence):
            let said = sentence.map { " It said: \($0)" } ?? ""
            return "\(url) sent \(received) where \(expected) was expected; is this the right server address?\(said)"
        case .bodyTooLarge(let limit, let url):
            return "The reply from \(url) is larger than \(limit) bytes and was not read."
        case .transport(let detail):
            return "The request failed: \(detail)."
        }
    }

    /// The certificate sentence: what was presented, why it is refused, what to do. Never silently re-pinned.
    private static func sentence(_ refusal: CertificateRefusal) -> String {
        let certificate = refusal.certificate
        let style = Date.ISO8601FormatStyle().year().month().day()
        let shown =
            "\(certificate.subject), issued by \(certificate.issuer), valid \(style.format(certificate.notBefore)) "
            + "to \(style.format(certificate.notAfter)), SHA-256 \(certificate.fingerprint), "
            + "key sha256//\(certificate.publicKeyPin)"
        if refusal.keyChanged {
            let pinned = refusal.pinned.map { "sha256//\($0.pin) (certificate SHA-256 \($0.fingerprint))" }
            return "\(refusal.host) presented a different key from the one pinned for it: pinned "
                + pinned.joined(separator: " or ") + "; presented \(shown). Nothing was sent. If the server's "
                + "certificate was replaced on purpose, check the new fingerprint and trust it again; otherwise "
                + "someone may be intercepting the connection."
        }
        let why = refusal.reason.map { " (\($0))" } ?? ""
        return "\(refusal.host) presented a certificate this device does not trust\(why): \(shown). Nothing was "
            + "sent. If this is your own server, compare the fingerprint and trust it for this server only: pin its "
            + "key, or import the CA that signed it."
    }

    /// The same sentence, for `LocalizedError` users (SwiftUI alerts).
    public var errorDescription: String? { description }

    /// A redacted URL string for messages: no user info, no secret query values, no fragment.
    public static func describe(_ url: URL) -> String { Redactor().redact(url: url) }

    /// Maps any error from a transport, a stream or a cancelled task onto `HTTPError`.
    public static func wrap(_ error: any Error, url: URL?, receivedBytes: Int = 0) -> HTTPError {
        if let error = error as? HTTPError { return error }
        if error is CancellationError { return .cancelled }
        let place = url.map(describe) ?? "the server"
        let host = url?.host ?? "the server"
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut(url: place)
            case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff:
                return .offline(detail: "URLError \(urlError.code.rawValue)")
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed:
                return .unreachable(host: host, detail: "URLError \(urlError.code.rawValue)")
            case .networkConnectionLost, .cannotParseResponse, .badServerResponse, .zeroByteResource:
                return .connectionLost(url: place, receivedBytes: receivedBytes)
            case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
                .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
                .clientCertificateRequired:
                return .tls(host: host, detail: "URLError \(urlError.code.rawValue)")
            case .httpTooManyRedirects, .redirectToNonExistentLocation:
                return .tooManyRedirects(url: place)
            case .appTransportSecurityRequiresSecureConnection:
                return .insecureTransport(url: place)
            case .dataLengthExceedsMaximum:
                return .bodyTooLarge(limit: 0, url: place)
            case .unknown:
                // FoundationNetworking reports many libcurl failures as -1 with curl's own sentence.
                return fromCurlSentence(
                    urlError.localizedDescription, host: host, place: place, receivedBytes: receivedBytes)
            default:
                return .transport("URLError \(urlError.code.rawValue) for \(place)")
            }
        }
        return .transport(String(describing: type(of: error)))
    }

    /// Classifies a libcurl failure sentence (curl's messages name no credentials).
    static func fromCurlSentence(_ sentence: String, host: String, place: String, receivedBytes: Int) -> HTTPError {
        let lower = sentence.lowercased()
        if lower.contains("ssl") || lower.contains("certificate") || lower.contains("tls") {
            return .tls(host: host, detail: sentence)
        }
        if lower.contains("transfer closed") || lower.contains("partial") || lower.contains("recv failure")
            || lower.contains("reset") || lower.contains("empty reply")
        {
            return .connectionLost(url: place, receivedBytes: receivedBytes)
        }
        if lower.contains("timed out") || lower.contains("timeout") { return .timedOut(url: place) }
        if lower.contains("couldn't connect") || lower.contains("could not resolve") {
            return .unreachable(host: host, detail: sentence)
        }
        return .transport("\(sentence) (\(place))")
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "the request was not accepted"
        case 401: return "sign in again"
        case 403: return "you do not have permission"
        case 404: return "not found"
        case 408: return "the server timed out waiting"
        case 409: return "it changed meanwhile"
        case 410: return "it is gone"
        case 413: return "too large for the server"
        case 422: return "the input was not valid"
        case 429: return "too many requests; wait and try again"
        case 500..<600: return "a server error; try again later"
        default: return HTTPURLResponse.localizedString(forStatusCode: status)
        }
    }
}
