import CompanionCore
import Foundation

/// One API call as a value: where it goes, what it sends, and how its reply becomes `Response`.
///
/// Rule: a request knows nothing about the server it goes to; the `Client` joins its `path` to the
/// server's base URL (keeping a mount path such as `/omnigent`), adds headers and sends it.
public struct Request<Response: Sendable>: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The path below the server's base URL, such as `/v1/sessions`; it may carry its own `?query`. An id put
    /// into it goes through `PercentEncoding.segment` (`"/v1/sessions/\(PercentEncoding.segment(id))"`).
    public var path: String
    /// Query parameters appended to the path, in name order.
    public var query: Query
    /// What the request is for, in a person's words (`"load the session list"`): the journal records it with each
    /// of the exchange's events (`JournalEvent.requestLabel`), so a network panel shows it without reading the
    /// URL. Never sent to the server. `nil` when the caller gave none.
    public var label: String?
    /// Extra header fields.
    public var headers: HTTPHeaders
    /// The body as bytes, sent as they are. `jsonBody`, when set, replaces it.
    public var body: Data?
    /// A value encoded as the JSON body when the request is sent, by the client's encoder (sorted
    /// keys, dates as ISO 8601 with fractional seconds). Building a request never throws; a value
    /// that cannot be encoded fails the send with `HTTPError.invalidRequest`.
    public var jsonBody: (any Encodable & Sendable)?
    /// This request's retry policy; `nil` uses the client's. `.never` makes a write that must not be
    /// repeated by the transport layer (the caller decides about resending it).
    public var retryPolicy: RetryPolicy?
    /// The idle timeout; `nil` uses the client's.
    public var timeout: Duration?
    /// The largest body read; `nil` uses the client's.
    public var maxResponseBytes: Int?
    /// How the body becomes the response value.
    public let decode: @Sendable (Data, HTTPResponse, JSONDecoder) throws(HTTPError) -> Response

    /// Creates a request with a custom decoder.
    public init(
        method: HTTPMethod = .get, path: String, query: Query = Query(), headers: HTTPHeaders = HTTPHeaders(),
        body: Data? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil, label: String? = nil,
        decode: @escaping @Sendable (Data, HTTPResponse, JSONDecoder) throws(HTTPError) -> Response
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.label = label
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.decode = decode
    }

    /// The idempotency key this request carries, if any. Set one to make a write retry-safe and
    /// to replay it later (an outbox row stores its key).
    public var idempotencyKey: String? {
        get { headers[HTTPRequest.idempotencyKeyHeader] }
        set { headers[HTTPRequest.idempotencyKeyHeader] = newValue }
    }

    /// A copy with `query`'s items added (a dictionary's `nil` values are left out).
    public func adding(query items: Query) -> Self {
        var copy = self
        copy.query = query.merging(items)
        return copy
    }

    /// A copy labelled `label` (what it is for, shown by the journal; never sent).
    public func labelled(_ label: String) -> Self {
        var copy = self
        copy.label = label
        return copy
    }

    /// A copy carrying `key` as its idempotency key.
    public func idempotencyKey(_ key: String) -> Self {
        var copy = self
        copy.idempotencyKey = key
        return copy
    }
}

extension Request where Response: Decodable {
    /// A JSON request whose reply decodes as `Response`.
    public init(
        method: HTTPMethod = .get, path: String, query: Query = Query(), headers: HTTPHeaders = HTTPHeaders(),
        body: Data? = nil, label: String? = nil
    ) {
        self.init(method: method, path: path, query: query, headers: headers, body: body, label: label) {
            data, response, decoder throws(HTTPError) in
            try JSONDecoding.decode(Response.self, from: data, response: response, decoder: decoder)
        }
    }

    /// A GET of `path`; `nil` query values are left out.
    public static func get(_ path: String, query: Query = Query()) -> Self {
        Self(method: .get, path: path, query: query)
    }

    /// A DELETE of `path`; `nil` query values are left out.
    public static func delete(_ path: String, query: Query = Query()) -> Self {
        Self(method: .delete, path: path, query: query)
    }

    /// A POST of `path` with `body` encoded as JSON when sent.
    public static func post(_ path: String, body: some Encodable & Sendable) -> Self {
        Self(method: .post, path: path).with(jsonBody: body)
    }

    /// A POST of `path` without a body.
    public static func post(_ path: String) -> Self {
        Self(method: .post, path: path)
    }

    /// A PUT of `path` with `body` encoded as JSON when sent.
    public static func put(_ path: String, body: some Encodable & Sendable) -> Self {
        Self(method: .put, path: path).with(jsonBody: body)
    }

    /// A PATCH of `path` with `body` encoded as JSON when sent.
    public static func patch(_ path: String, body: some Encodable & Sendable) -> Self {
        Self(method: .patch, path: path).with(jsonBody: body)
    }

    /// A POST of `path` with an `application/x-www-form-urlencoded` body (fields in name order).
    public static func post(_ path: String, form fields: [String: String]) -> Self {
        Self(method: .post, path: path, headers: FormEncoding.headers, body: FormEncoding.encode(fields))
    }
}

extension Request {
    /// A copy whose body is `value`, encoded as JSON when sent.
    public func with(jsonBody value: some Encodable & Sendable) -> Self {
        var copy = self
        copy.jsonBody = value
        return copy
    }

    /// A copy with its own retry policy (`.never` for a write the caller resends itself).
    public func retrying(_ policy: RetryPolicy) -> Self {
        var copy = self
        copy.retryPolicy = policy
        return copy
    }
}

/// `application/x-www-form-urlencoded` bodies (the WHATWG URL standard's serializer: space as `+`,
/// every byte outside `*-._` and ASCII letters and digits percent-encoded).
public enum FormEncoding {
    /// The body for `fields`, in name order so the same fields always give the same bytes.
    public static func encode(_ fields: [String: String]) -> Data {
        let pairs = fields.sorted { $0.key < $1.key }.map { escape($0.key) + "=" + escape($0.value) }
        return Data(pairs.joined(separator: "&").utf8)
    }

    /// The `Content-Type` of such a body.
    public static let headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]

    /// What a form keeps as it is; a space is kept here and then written as `+`.
    private static let kept = PercentEncoding.Kept(
        characters: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._ ")

    private static func escape(_ text: String) -> String {
        PercentEncoding.escape(text, keeping: kept).replacingOccurrences(of: " ", with: "+")
    }
}

extension Request where Response == Data {
    /// A request whose reply is the raw body.
    public static func raw(
        _ method: HTTPMethod = .get, _ path: String, body: Data? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) -> Self {
        Self(method: method, path: path, headers: headers, body: body) { data, _, _ in data }
    }
}

/// The factories of a request whose reply has no body to read (204, 202, or a body the caller ignores): the same
/// names as a decoding request's, so a write that answers nothing is `.post(path, body: value)` as well. A non-2xx
/// status still throws `.status`; `Client.reply` reads any status.
extension Request where Response == Void {
    /// A request whose reply body is ignored.
    public init(
        method: HTTPMethod = .get, path: String, query: Query = Query(), headers: HTTPHeaders = HTTPHeaders(),
        body: Data? = nil, label: String? = nil
    ) {
        self.init(method: method, path: path, query: query, headers: headers, body: body, label: label) { _, _, _ in ()
        }
    }

    /// A request whose reply body is ignored, with a body given as bytes.
    public static func empty(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) -> Self {
        Self(method: method, path: path, headers: headers, body: body)
    }

    /// A GET of `path` whose reply is not read as a value (a stream opened with `Client.open`).
    public static func get(_ path: String, query: Query = Query()) -> Self {
        Self(method: .get, path: path, query: query)
    }

    /// A DELETE of `path` that answers nothing to read.
    public static func delete(_ path: String, query: Query = Query()) -> Self {
        Self(method: .delete, path: path, query: query)
    }

    /// A POST of `path` without a body that answers nothing to read.
    public static func post(_ path: String) -> Self { Self(method: .post, path: path) }

    /// A POST of `path` with `body` encoded as JSON when sent, that answers nothing to read.
    public static func post(_ path: String, body: some Encodable & Sendable) -> Self {
        Self(method: .post, path: path).with(jsonBody: body)
    }

    /// A PUT of `path` with `body` encoded as JSON when sent, that answers nothing to read.
    public static func put(_ path: String, body: some Encodable & Sendable) -> Self {
        Self(method: .put, path: path).with(jsonBody: body)
    }

    /// A PATCH of `path` with `body` encoded as JSON when sent, that answers nothing to read.
    public static func patch(_ path: String, body: some Encodable & Sendable) -> Self {
        Self(method: .patch, path: path).with(jsonBody: body)
    }

    /// A POST of `path` with an `application/x-www-form-urlencoded` body (fields in name order), that answers
    /// nothing to read.
    public static func post(_ path: String, form fields: [String: String]) -> Self {
        Self(method: .post, path: path, headers: FormEncoding.headers, body: FormEncoding.encode(fields))
    }
}

/// JSON decoding with errors that name the field path and the media type received.
public enum JSONDecoding {
    /// Decodes `type` from a response body; an HTML page or a decoding failure becomes a typed `HTTPError`.
    public static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, response: HTTPResponse, decoder: JSONDecoder
    ) throws(HTTPError) -> T {
        // The URL is described (redacted) only for an error: every decoded reply passes here.
        var url: String { response.url.map(HTTPError.describe) ?? "" }
        if let media = response.mediaType, !isJSON(media) {
            let sentence = ServerErrorEnvelope.parse(data, mediaType: media)?.summary
            throw .unexpectedContentType(
                expected: "application/json", received: media, url: url, serverSentence: sentence)
        }
        // The kit's own JSON value is read straight from the bytes where that gives exactly what the decoder would
        // (no key strategy applies to it); anything else, and any error, comes from the decoder.
        if T.self == JSONValue.self, case .useDefaultKeys = decoder.keyDecodingStrategy,
            let value = JSONValue.reading(data) as? T
        {
            return value
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw .undecodable(failure(error, type: T.self, url: url))
        } catch {
            throw .undecodable(HTTPError.DecodingFailure(type: "\(T.self)", path: "", detail: "not JSON", url: url))
        }
    }

    /// Whether a media type is JSON (`application/json`, `text/json`, or any `+json` suffix).
    public static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json")
    }

    static func failure<T>(_ error: DecodingError, type: T.Type, url: String) -> HTTPError.DecodingFailure {
        let (path, detail): ([any CodingKey], String)
        switch error {
        case .keyNotFound(let key, let context):
            (path, detail) = (context.codingPath + [key], "the field is missing")
        case .valueNotFound(_, let context):
            (path, detail) = (context.codingPath, "the value is null")
        case .typeMismatch(let expected, let context):
            (path, detail) = (context.codingPath, "expected \(expected)")
        case .dataCorrupted(let context):
            let underlying = context.underlyingError == nil ? "invalid value" : "not valid JSON"
            (path, detail) = (context.codingPath, context.codingPath.isEmpty ? underlying : "invalid value")
        @unknown default:
            (path, detail) = ([], "unknown decoding error")
        }
        return HTTPError.DecodingFailure(type: "\(T.self)", path: render(path), detail: detail, url: url)
    }

    /// `items[0].name` from a coding path.
    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
