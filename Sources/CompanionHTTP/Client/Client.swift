import CompanionCore
import Foundation

/// The HTTP client for one server: joins request paths to the server's base URL, runs the
/// middleware chain, enforces the size limit, and decodes replies.
///
/// The chain, outermost first: idempotency keys, retry, the caller's middleware (authentication),
/// the journal, the transport. Streams (SSE) skip retry; they reconnect on their own terms.
///
/// Its state is fixed at creation (the chain, the decoder, the base URL), so sending is `nonisolated`: a
/// request runs on the caller's task without a hop onto the client's actor and back.
public actor Client {
    /// Everything a client is built from. Every dependency has a live default and can be replaced in tests.
    public struct Configuration: Sendable {
        /// Headers sent with every request (a `User-Agent` by default).
        public var defaultHeaders: HTTPHeaders
        /// The idle timeout when a request sets none.
        public var timeout: Duration
        /// The largest body read when a request sets none.
        public var maxResponseBytes: Int
        /// The retry policy; `.never` turns retries off.
        public var retryPolicy: RetryPolicy
        /// Whether every POST and PATCH gets an idempotency key automatically, which makes it
        /// retry-safe. Off by default: turn it on only for a server that honours `Idempotency-Key`
        /// (Mainworthy does; Omnigent ignores it, so a retried message could be posted twice). A
        /// request can always carry its own key (`Request.idempotencyKey(_:)`), as an outbox row does.
        public var automaticIdempotencyKeys: Bool
        /// Middleware placed between retry and the journal, such as authentication.
        public var middlewares: [any Middleware]
        /// Which URLs may be connected to, checked before every send: https only by default;
        /// plain http to a loopback host only where a caller opts in (`.allowingInsecureLoopback`).
        public var transportPolicy: TransportPolicy
        /// Where exchanges are recorded.
        public var journal: Journal
        /// Whether each exchange is written to the journal (retries and errors always are).
        public var recordsExchanges: Bool
        /// How dates in JSON decode.
        public var dateDecoding: @Sendable (any Decoder) throws -> Date
        /// The time source.
        public var clock: any WallClock
        /// How waits happen.
        public var sleeper: any Sleeper
        /// Randomness for jitter and keys.
        public var random: any RandomSource

        /// Creates a configuration with live dependencies.
        public init(
            defaultHeaders: HTTPHeaders = ["User-Agent": "CompanionKit/0.1", "Accept": "application/json"],
            timeout: Duration = .seconds(30), maxResponseBytes: Int = 32 * 1024 * 1024,
            retryPolicy: RetryPolicy = RetryPolicy(), automaticIdempotencyKeys: Bool = false,
            middlewares: [any Middleware] = [], transportPolicy: TransportPolicy = .httpsOnly,
            journal: Journal = Journal(), recordsExchanges: Bool = true,
            dateDecoding: @escaping @Sendable (any Decoder) throws -> Date = Client.defaultDateDecoding,
            clock: any WallClock = SystemWallClock(), sleeper: any Sleeper = TaskSleeper(),
            random: any RandomSource = SystemRandomSource()
        ) {
            self.defaultHeaders = defaultHeaders
            self.timeout = timeout
            self.maxResponseBytes = maxResponseBytes
            self.retryPolicy = retryPolicy
            self.automaticIdempotencyKeys = automaticIdempotencyKeys
            self.middlewares = middlewares
            self.transportPolicy = transportPolicy
            self.journal = journal
            self.recordsExchanges = recordsExchanges
            self.dateDecoding = dateDecoding
            self.clock = clock
            self.sleeper = sleeper
            self.random = random
        }
    }

    /// Decodes dates by the kit's timestamp rules (`Timestamp.decode`): ISO 8601 with or without a
    /// zone and with up to nanosecond fractions, Unix seconds or milliseconds; zoneless stamps are UTC.
    public static let defaultDateDecoding: @Sendable (any Decoder) throws -> Date = { decoder in
        try Timestamp.decode(from: decoder)
    }

    /// The server's base URL (origin plus any mount path).
    public nonisolated let baseURL: URL
    /// The configuration.
    public nonisolated let configuration: Configuration
    private nonisolated let chain: HTTPNext
    private nonisolated let streamChain: HTTPNext
    /// `scheme://host[:port]/mount` of `baseURL` (see `prefix(of:)`), worked out once.
    private nonisolated let urlPrefix: String?
    /// Whether the transport policy permits `urlPrefix`'s scheme and authority. Every request URL is the prefix
    /// followed by `/` and a percent-encoded path (`url(for:query:)`), so it has the same scheme and authority, and
    /// the policy, which looks at nothing else, decides the same for it: a permitted prefix needs no second look.
    private nonisolated let prefixPermitted: Bool
    /// The one JSON decoder of this client: its dates follow `configuration.dateDecoding`.
    nonisolated let decoder: JSONDecoder
    /// The last request URL made, with the text it was parsed from: a client asks for the same route again and
    /// again (a poll, a list's pages, a feed's refresh), and parsing the text into a `URL` was most of building a
    /// request. The same text always parses to the same URL, so handing back the kept one changes nothing else.
    private nonisolated let lastURL = Locked<(text: String, url: URL)?>(nil)

    /// Creates a client for the server at `baseURL`.
    public init(
        baseURL: URL, configuration: Configuration = Configuration(),
        transport: any Transport = DefaultTransport.make()
    ) {
        self.baseURL = baseURL
        self.configuration = configuration
        var outer: [any Middleware] = []
        if configuration.automaticIdempotencyKeys {
            outer.append(IdempotencyKeyMiddleware(random: configuration.random))
        }
        let retry = RetryMiddleware(
            policy: configuration.retryPolicy, sleeper: configuration.sleeper, random: configuration.random,
            clock: configuration.clock, journal: configuration.journal)
        let inner =
            configuration.middlewares
            + (configuration.recordsExchanges ? [JournalMiddleware(journal: configuration.journal)] : [])
        self.chain = transport.chained(with: outer + [retry] + inner)
        self.streamChain = transport.chained(with: inner)
        self.decoder = Self.makeDecoder(dateDecoding: configuration.dateDecoding)
        let urlPrefix = Self.prefix(of: baseURL)
        self.urlPrefix = urlPrefix
        self.prefixPermitted =
            urlPrefix.flatMap { URL(string: $0 + "/") }.map { configuration.transportPolicy.permits($0) } ?? false
    }

    /// A JSON decoder with the kit's date rules (or `dateDecoding`): the one way the kit decodes JSON.
    public static func makeDecoder(
        dateDecoding: @escaping @Sendable (any Decoder) throws -> Date = Client.defaultDateDecoding
    ) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(dateDecoding)
        return decoder
    }

    /// The absolute URL for a path below the base URL, keeping the base's mount path.
    public nonisolated func url(for path: String, query: Query = Query()) throws(HTTPError) -> URL {
        guard let prefix = urlPrefix else {
            throw .invalidRequest("the server address is not a valid URL")
        }
        let (pathPart, queryPart) = Self.split(path)
        let encodedPath = PercentEncoding.escape(pathPart, keeping: Self.pathKept)
        var text = prefix + (encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath)
        var queryText = queryPart.map { PercentEncoding.escape($0, keeping: Self.queryKept) } ?? ""
        for item in query {
            if !queryText.isEmpty { queryText += "&" }
            queryText += PercentEncoding.escape(item.name, keeping: PercentEncoding.unreserved)
            if let value = item.value {
                queryText += "=" + PercentEncoding.escape(value, keeping: PercentEncoding.unreserved)
            }
        }
        if !queryText.isEmpty { text += "?" + queryText }
        if let kept = lastURL.withLock({ last in last?.text == text ? last?.url : nil }) { return kept }
        guard let url = URL(string: text) else { throw .invalidRequest("\(path) is not a valid path") }
        lastURL.withLock { $0 = (text, url) }
        return url
    }

    /// `scheme://host[:port]/mount` without a trailing slash. Request URLs are then built by string,
    /// which is cheaper than through `URLComponents` on Linux. Worked out once, in `init`, and kept in a
    /// `nonisolated let` (an earlier version kept it in an actor-isolated property read from the actor's
    /// methods, which made Swift 6.3.1 on Linux crash in `swift_job_run` under concurrent requests).
    private static func prefix(of url: URL) -> String? {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = parts.scheme,
            let host = parts.percentEncodedHost
        else { return nil }
        var mount = parts.percentEncodedPath
        while mount.hasSuffix("/") { mount.removeLast() }
        let port = parts.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme.lowercased())://\(bracketed)\(port)\(mount)"
    }

    /// What a path keeps as it is: RFC 3986's path characters and `%`, so an escape already made (a segment from
    /// `PercentEncoding.segment`) is kept.
    private static let pathKept = PercentEncoding.Kept(
        CharacterSet.urlPathAllowed.union(CharacterSet(charactersIn: "%")))
    /// What a query written into the path keeps as it is.
    private static let queryKept = PercentEncoding.Kept(
        CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "%")))

    /// Builds the `HTTPRequest` a `Request` becomes.
    public nonisolated func httpRequest<Response>(for request: Request<Response>) throws(HTTPError) -> HTTPRequest {
        let url = try url(for: request.path, query: request.query)
        guard prefixPermitted || configuration.transportPolicy.permits(url) else {
            throw .insecureTransport(url: HTTPError.describe(url))
        }
        var headers = configuration.defaultHeaders
        for (name, value) in request.headers { headers[name] = value }
        var body = request.body
        if let value = request.jsonBody { body = try Self.encodeJSON(value) }
        if body != nil, headers["Content-Type"] == nil {
            // The kit's bodies are JSON unless a request says otherwise (forms set their own type).
            headers["Content-Type"] = "application/json"
        }
        return HTTPRequest(
            method: request.method, url: url, headers: headers, body: body,
            timeout: request.timeout ?? configuration.timeout,
            bufferLimit: request.maxResponseBytes ?? configuration.maxResponseBytes, retryPolicy: request.retryPolicy,
            label: request.label)
    }

    /// Encodes a JSON body the one way the kit does: sorted keys, slashes unescaped, dates as ISO 8601
    /// with fractional seconds in UTC (`Timestamp.encode`).
    public static func encodeJSON(_ value: any Encodable & Sendable) throws(HTTPError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in try Timestamp.encode(date, to: encoder) }
        do {
            return try encoder.encode(value)
        } catch {
            throw .invalidRequest("the body could not be encoded as JSON")
        }
    }

    /// Sends `request` and returns its decoded reply; a non-success status throws `.status` with the
    /// server's error envelope.
    public nonisolated func send<Response>(_ request: Request<Response>) async throws(HTTPError) -> Response {
        try await exchange(request).value
    }

    /// Sends `request` and returns its decoded reply together with the response head.
    public nonisolated func exchange<Response>(_ request: Request<Response>) async throws(HTTPError) -> (
        value: Response, response: HTTPResponse
    ) {
        let http = try httpRequest(for: request)
        let (response, body) = try await chain(http)
        let limit = request.maxResponseBytes ?? configuration.maxResponseBytes
        if let length = response.contentLength, length > limit, response.isSuccess {
            throw .bodyTooLarge(limit: limit, url: HTTPError.describe(http.url))
        }
        let data = try await body.collect(
            upTo: response.isSuccess ? limit : min(limit, 1024 * 1024), url: http.url,
            expectedLength: response.contentLength)
        guard response.isSuccess else { throw failure(http, response, data) }
        return (try request.decode(data, response, decoder), response)
    }

    /// Decodes a body `request` was answered with earlier (a stored copy), exactly as `send` decodes a
    /// fresh one: with this client's decoder and its date rules.
    public nonisolated func decode<Response>(
        _ request: Request<Response>, body: Data, response: HTTPResponse
    ) throws(HTTPError) -> Response {
        try request.decode(body, response, decoder)
    }

    /// Decodes `data` as `type` with this client's decoder (a value that arrived another way than as a reply,
    /// such as an event's payload), with the same date rules as every reply.
    public nonisolated func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(HTTPError) -> T {
        try JSONDecoding.decode(type, from: data, response: HTTPResponse(status: 200), decoder: decoder)
    }

    /// Sends `request` and returns the reply whatever its status, for flows that read a refusal's
    /// body as an answer (sign-in steps). Only transport failures throw.
    public nonisolated func reply<Response>(_ request: Request<Response>) async throws(HTTPError) -> Reply<Response> {
        let http = try httpRequest(for: request)
        let (response, body) = try await chain(http)
        let limit = request.maxResponseBytes ?? configuration.maxResponseBytes
        if let length = response.contentLength, length > limit, response.isSuccess {
            throw .bodyTooLarge(limit: limit, url: HTTPError.describe(http.url))
        }
        let data = try await body.collect(
            upTo: response.isSuccess ? limit : min(limit, 1024 * 1024), url: http.url,
            expectedLength: response.contentLength)
        let failure = response.isSuccess ? nil : failure(http, response, data)
        let decode = request.decode
        let decoder = decoder
        return Reply(response: response, body: data, failure: failure, decoder: decoder) {
            () throws(HTTPError) -> Response in
            try decode(data, response, decoder)
        }
    }

    /// Sends an already built request through the full chain (retry included).
    nonisolated func sendThroughChain(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        try await chain(request)
    }

    /// Sends a request through the chain without retry and returns the streaming body (for SSE).
    public nonisolated func open(_ request: Request<Void>) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        var http = try httpRequest(for: request)
        http.bufferLimit = nil
        return try await streamChain(http)
    }

    /// Turns a non-success response into `.status`, parsing the server's envelope.
    nonisolated func failure(_ request: HTTPRequest, _ response: HTTPResponse, _ data: Data) -> HTTPError {
        .status(
            HTTPError.StatusFailure(
                method: request.method.rawValue, url: HTTPError.describe(request.url), status: response.status,
                envelope: ServerErrorEnvelope.parse(data, mediaType: response.mediaType),
                retryAfter: RetryPolicy.retryAfter(response.headers["Retry-After"], now: configuration.clock.now())))
    }

    private static func split(_ path: String) -> (String, String?) {
        // By bytes: `?` is ASCII, so its byte position is a character boundary.
        guard let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (path, nil) }
        return (String(path[..<mark]), String(path[path.utf8.index(after: mark)...]))
    }

}
