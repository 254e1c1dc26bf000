/// Sends one request and returns the response head and a streaming body.
///
/// Rule: a transport does one exchange and nothing else. Retries, journaling, authentication and
/// decoding are middleware or the `Client`, so a test can swap the transport for a fake one and
/// keep every other behaviour.
public protocol Transport: Sendable {
    /// Sends `request`; throws only `HTTPError`. A non-success status is a response, not an error.
    func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody)
}

/// The rest of the chain below a middleware.
public typealias HTTPNext = @Sendable (HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody)

/// A step between the client and the transport that may change the request, the response, or
/// send the request again (retry, journal, authentication, idempotency keys).
public protocol Middleware: Sendable {
    /// Handles `request`, calling `next` zero or more times.
    func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody)
}

extension Transport {
    /// This transport behind `middlewares`, the first one outermost.
    public func chained(with middlewares: [any Middleware]) -> HTTPNext {
        var next: HTTPNext = { request async throws(HTTPError) in try await self.send(request) }
        for middleware in middlewares.reversed() {
            let inner = next
            next = { request async throws(HTTPError) in try await middleware.intercept(request, next: inner) }
        }
        return next
    }
}
