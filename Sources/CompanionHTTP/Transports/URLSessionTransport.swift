import CompanionCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The live transport: `URLSession`, streaming every body through one session delegate.
///
/// Why a session delegate: on Linux, FoundationNetworking has no `bytes(for:)` and ignores
/// per-task delegates, so streaming (SSE) and redirect control both go through a delegate set on
/// the session, which routes callbacks to the waiting request by task identifier.
///
/// The session it builds keeps no cookies and no HTTP cache: credentials are attached per origin by
/// the kit's authentication middleware, and offline data lives in the kit's own store. Cookies in
/// a shared jar would be sent to every port of a host, which breaks the rule that a credential goes
/// only to the origin that issued it.
///
/// A write (any method but GET, HEAD, OPTIONS and TRACE) never goes on a reused connection on Linux.
/// FoundationNetworking's libcurl resends a request by itself when a reused connection closes before any reply
/// byte, and it resends it without its body, then waits out the timeout: a write could reach the server twice,
/// the second time empty. So on Linux each write gets a session of its own (a fresh connection, closed with the
/// session), and only the app's own resend rule, with the same idempotency key, ever sends it again
/// (docs/reliability.md, "A write is sent once").
///
/// One server's TLS settings (`ConnectionSecurity`) are applied in the session's authentication challenge on
/// Apple platforms (`SecTrust` with the server's anchors or pinned keys, a `SecIdentity` with its chain: see
/// `SecurityChallengeResponder`). FoundationNetworking on Linux offers no way to apply them: its libcurl handle
/// gets no per-request CA, pinned key or client certificate, and the session delegate is never asked about
/// server trust or a client certificate (swift-corelibs-foundation's `EasyHandle` sets a CA file only on
/// Android, from an environment variable, for the whole process). There, a transport given anything but
/// `.system` refuses every request with a sentence saying so instead of connecting without it; `CurlTransport`
/// does all of it. A certificate that does not verify is `HTTPError.untrustedCertificate` on both.
public final class URLSessionTransport: Transport {
    private let session: URLSession
    private let delegate: SessionDelegate
    private let configuration: URLSessionConfiguration
    private let redirectPolicy: RedirectPolicy
    private let security: ConnectionSecurity
    private let unsupported: String?

    /// Creates a transport with its own session; `security` is one server's trust and client certificate.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(),
        redirectPolicy: RedirectPolicy = RedirectPolicy(), security: ConnectionSecurity = .system
    ) {
        (self.session, self.delegate) = Self.makeSession(configuration, redirectPolicy, security)
        self.configuration = configuration
        self.redirectPolicy = redirectPolicy
        self.security = security
        #if canImport(Security)
            unsupported = SecurityChallengeResponder(security: security).identityProblem.map {
                "the client certificate could not be opened: \($0)"
            }
        #else
            unsupported =
                security.isSystem
                ? nil
                : "URLSession on Linux (FoundationNetworking) cannot use this server's own trust or client "
                    + "certificate; the libcurl transport (COMPANION_TRANSPORT=curl, the default) can"
        #endif
    }

    private static func makeSession(
        _ configuration: URLSessionConfiguration, _ redirectPolicy: RedirectPolicy, _ security: ConnectionSecurity
    ) -> (URLSession, SessionDelegate) {
        #if canImport(Security)
            let delegate = SessionDelegate(
                redirectPolicy: redirectPolicy, responder: SecurityChallengeResponder(security: security))
        #else
            let delegate = SessionDelegate(redirectPolicy: redirectPolicy)
        #endif
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "CompanionHTTP.URLSessionTransport"
        return (URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue), delegate)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// An ephemeral configuration with no cookie jar, no cache and up to 8 connections per host.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.urlCredentialStorage = nil
        return configuration
    }

    /// Sends `request` and returns as soon as the response head arrives; the body streams after.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        if let unsupported { throw .transport(unsupported) }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        // libcurl on Linux arms its timer with whole seconds, so a sub-second timeout fires at once.
        urlRequest.timeoutInterval = max(1, request.timeout.seconds.rounded(.up))
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body

        // On Linux a write gets a session (and so a connection) of its own, invalidated once its task ends.
        #if canImport(FoundationNetworking)
            let oneShot = !request.method.isSafe
        #else
            let oneShot = false
        #endif
        let (session, delegate) =
            oneShot ? Self.makeSession(configuration, redirectPolicy, security) : (session, delegate)
        defer { if oneShot { session.finishTasksAndInvalidate() } }
        let task = session.dataTask(with: urlRequest)
        let (stream, bodyContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let exchange = Exchange(
            url: request.url, headers: request.headers, hasBody: !(request.body ?? Data()).isEmpty,
            body: bodyContinuation)
        bodyContinuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        delegate.register(exchange, for: task.taskIdentifier)

        let head: HTTPURLResponse
        do {
            head = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                    exchange.awaitHead(continuation)
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch {
            delegate.unregister(task.taskIdentifier)
            throw await Self.diagnosed(HTTPError.wrap(error, url: request.url), url: request.url)
        }
        var headers = HTTPHeaders()
        for (name, value) in head.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        let response = HTTPResponse(status: head.statusCode, headers: headers, url: head.url ?? request.url)
        return (response, HTTPBody(stream: stream))
    }
}

extension URLSessionTransport {
    /// On Linux, libcurl's "SSL certificate problem: …" under FoundationNetworking is a certificate that did not
    /// verify: it becomes `untrustedCertificate` with what the server presents (read by a handshake that sends
    /// nothing). On Apple platforms the challenge responder already made that refusal.
    fileprivate static func diagnosed(_ error: HTTPError, url: URL) async -> HTTPError {
        #if os(Linux) && canImport(CCurl)
            guard case .tls(_, let detail) = error else { return error }
            let prefix = "SSL certificate problem: "
            if detail.hasPrefix(prefix) {
                return await CertificateDiagnosis.refusal(
                    for: url, failure: .untrusted(reason: String(detail.dropFirst(prefix.count))), pins: [],
                    fallback: error)
            }
            if detail.contains("no alternative certificate subject name matches") {
                return await CertificateDiagnosis.refusal(
                    for: url, failure: .untrusted(reason: CurlCertificateFailure.reason(verifyResult: 0)), pins: [],
                    fallback: error)
            }
            return error
        #else
            return error
        #endif
    }
}

/// One request in flight: the continuation waiting for its head and the stream its body feeds.
private final class Exchange: Sendable {
    struct State {
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        var headDelivered = false
        var pendingHeadError: (any Error)?
        var received = 0
        var redirects = 0
        var refusal: HTTPError?
        var currentHeaders: HTTPHeaders
    }

    let url: URL
    /// Whether the request has a body: only then can a timeout before any byte left be told apart.
    let hasBody: Bool
    let body: AsyncThrowingStream<Data, any Error>.Continuation
    let state: Locked<State>

    init(url: URL, headers: HTTPHeaders, hasBody: Bool, body: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.url = url
        self.hasBody = hasBody
        self.body = body
        self.state = Locked(State(currentHeaders: headers))
    }

    /// Stores the continuation, or fails it at once when the task already failed before it was stored.
    func awaitHead(_ continuation: CheckedContinuation<HTTPURLResponse, any Error>) {
        let early: (any Error)? = state.withLock { state in
            if let error = state.pendingHeadError { return error }
            state.head = continuation
            return nil
        }
        if let early { continuation.resume(throwing: early) }
    }

    func deliverHead(_ response: HTTPURLResponse) -> Bool {
        let (continuation, refusal) = state.withLock {
            state -> (CheckedContinuation<HTTPURLResponse, any Error>?, HTTPError?) in
            let continuation = state.head
            state.head = nil
            state.headDelivered = true
            return (continuation, state.refusal)
        }
        if let refusal {
            continuation?.resume(throwing: refusal)
            body.finish(throwing: refusal)
            return false
        }
        continuation?.resume(returning: response)
        return true
    }

    func deliver(_ data: Data) {
        state.withLock { $0.received += data.count }
        body.yield(data)
    }

    /// Ends the exchange; `bodyBytesSent` is how much of the request's body left (a timeout before any did is a
    /// connection never accepted: nothing was sent).
    func complete(_ error: (any Error)?, bodyBytesSent: Int64 = 0) {
        let (continuation, delivered, received, refusal) = state.withLock { state in
            let continuation = state.head
            state.head = nil
            if continuation == nil, !state.headDelivered, let error { state.pendingHeadError = error }
            return (continuation, state.headDelivered, state.received, state.refusal)
        }
        if let error {
            let wrapped =
                refusal
                ?? HTTPError.connectTimeout(
                    HTTPError.wrap(error, url: url, receivedBytes: received), url: url, hasBody: hasBody,
                    bodyBytesSent: bodyBytesSent, headDelivered: delivered)
            if !delivered {
                if continuation != nil {
                    continuation?.resume(throwing: wrapped)
                } else {
                    state.withLock { $0.pendingHeadError = wrapped }
                }
            }
            body.finish(throwing: wrapped)
        } else {
            if !delivered {
                continuation?.resume(
                    throwing: HTTPError.transport("the server closed the connection without a response"))
            }
            body.finish()
        }
    }
}

/// Routes session callbacks to the exchange of each task.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])
    private let redirectPolicy: RedirectPolicy
    #if canImport(Security)
        private let responder: any ChallengeResponder

        init(redirectPolicy: RedirectPolicy, responder: any ChallengeResponder) {
            self.redirectPolicy = redirectPolicy
            self.responder = responder
        }

        /// Server trust and client certificates, answered by the server's `ChallengeResponder`; a refusal it makes
        /// (an untrusted certificate, a changed key) becomes the task's error.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let answer = responder.answer(challenge)
            if let refusal = answer.refusal, let exchange = exchange(task.taskIdentifier) {
                exchange.state.withLock { $0.refusal = refusal }
            }
            completionHandler(answer.disposition, answer.credential)
        }
    #else
        init(redirectPolicy: RedirectPolicy) { self.redirectPolicy = redirectPolicy }
    #endif

    func register(_ exchange: Exchange, for identifier: Int) {
        exchanges.withLock { $0[identifier] = exchange }
    }

    func unregister(_ identifier: Int) {
        _ = exchanges.withLock { $0.removeValue(forKey: identifier) }
    }

    private func exchange(_ identifier: Int) -> Exchange? {
        exchanges.withLock { $0[identifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(dataTask.taskIdentifier) else {
            completionHandler(.cancel)
            dataTask.cancel()
            return
        }
        guard let http = response as? HTTPURLResponse else {
            exchange.complete(HTTPError.transport("the reply was not HTTP"))
            completionHandler(.cancel)
            dataTask.cancel()
            return
        }
        if exchange.deliverHead(http) {
            completionHandler(.allow)
        } else {
            completionHandler(.cancel)
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(dataTask.taskIdentifier)?.deliver(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error, bodyBytesSent: task.countOfBytesSent)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let exchange = exchange(task.taskIdentifier), let target = request.url else {
            completionHandler(nil)
            return
        }
        let from = response.url ?? exchange.url
        let outcome: URLRequest? = exchange.state.withLock { state in
            state.redirects += 1
            if state.redirects > redirectPolicy.maxRedirects {
                state.refusal = .tooManyRedirects(url: HTTPError.describe(exchange.url))
                return nil
            }
            switch redirectPolicy.decide(from: from, to: target, headers: state.currentHeaders) {
            case .refuse(let reason):
                state.refusal = .redirectRefused(
                    from: HTTPError.describe(from), to: HTTPError.describe(target), reason: reason)
                return nil
            case .follow(let headers):
                state.currentHeaders = headers
                var next = request
                next.allHTTPHeaderFields = headers.dictionary
                next.httpShouldHandleCookies = false
                return next
            }
        }
        completionHandler(outcome)
    }
}
