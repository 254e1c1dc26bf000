import Foundation

/// One request as it goes down the middleware chain to a `Transport`: absolute URL, method, headers, body.
///
/// Middleware change requests by making modified copies; the value is never shared mutable state.
public struct HTTPRequest: Sendable, Hashable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL.
    public var url: URL
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?
    /// The idle timeout: how long the transport waits for the next bytes. Whole seconds on Linux,
    /// where libcurl rounds a sub-second timeout down to zero; the transport rounds up.
    public var timeout: Duration
    /// When set, the body is read whole (up to this many bytes) inside the retry loop, so a
    /// connection that breaks mid-body is retried like one that broke before the head. `nil` for
    /// streams, whose bodies are read as they arrive.
    public var bufferLimit: Int?
    /// This request's own retry policy; `nil` uses the retry middleware's.
    public var retryPolicy: RetryPolicy?
    /// What the request is for, in a person's words (`Request.label`), shown by the journal; never sent.
    public var label: String?

    /// Creates a request.
    public init(
        method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil,
        timeout: Duration = .seconds(30), bufferLimit: Int? = nil, retryPolicy: RetryPolicy? = nil,
        label: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.bufferLimit = bufferLimit
        self.retryPolicy = retryPolicy
        self.label = label
    }

    /// The idempotency key header name (IETF draft-ietf-httpapi-idempotency-key-header).
    public static let idempotencyKeyHeader = "Idempotency-Key"

    /// The idempotency key this request carries, if any.
    public var idempotencyKey: String? {
        get { headers[Self.idempotencyKeyHeader] }
        set { headers[Self.idempotencyKeyHeader] = newValue }
    }

    /// Whether this request may be sent twice: an idempotent method, or any method carrying an
    /// idempotency key (the server then applies the write once).
    public var isRetrySafe: Bool { method.isIdempotent || idempotencyKey != nil }
}

/// The status line and headers of a response; the body travels separately as an `HTTPBody`.
///
/// Its media type and declared length are read from the headers once, when the value is made and whenever its
/// headers change, and kept: a reply is asked for them several times on its way up (the proxy gate, the journal,
/// the size check, the decoding), each time a case-insensitive walk of the fields before.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders {
        didSet { read = Read(headers) }
    }
    /// The URL that answered, after any redirects.
    public var url: URL?
    /// `mediaType` and `contentLength`, as read from `headers`.
    private var read: Read

    /// Creates a response head.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.url = url
        self.read = Read(headers)
    }

    /// Equal when the status, the headers and the URL are (what is read from the headers follows them).
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.url == rhs.url
    }

    /// Hashes the status, the headers and the URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headers)
        hasher.combine(url)
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The declared body length, if the server sent a valid `Content-Length`.
    public var contentLength: Int? { read.contentLength }

    /// The media type of `Content-Type`, lowercased and without parameters (`application/json`).
    public var mediaType: String? { read.mediaType }

    /// What is read from a response's headers once.
    private struct Read: Sendable {
        var mediaType: String?
        var contentLength: Int?

        init(_ headers: HTTPHeaders) {
            mediaType = headers["Content-Type"].flatMap(HTTPResponse.mediaType(of:))
            contentLength = headers["Content-Length"].flatMap { Int($0) }
        }
    }

    /// The media type of a `Content-Type` value: lowercased, without parameters or the spaces around it.
    static func mediaType(of value: String) -> String? {
        // By bytes: Foundation's trimming is slow on Linux. A value that is already a bare lowercase type
        // (`application/json`), the usual case, is returned as it is.
        let bytes = value.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        guard end != bytes.startIndex else {
            // No type before the first `;` (an empty value, `;charset=…`): the first non-empty part, as it always was.
            return value.split(separator: ";").first.map { Self.trimmedLowercase(Substring($0).utf8) }
        }
        if end == bytes.endIndex, bytes.first.map(Self.isBare) == true, bytes.last.map(Self.isBare) == true,
            !bytes.contains(where: { (0x41...0x5A).contains($0) || $0 >= 0x80 })
        {
            return value
        }
        return Self.trimmedLowercase(Substring(value).utf8[..<end])
    }

    /// `type` without spaces or tabs around it, lowercased.
    private static func trimmedLowercase(_ type: Substring.UTF8View) -> String {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = type.firstIndex(where: { !isSpace($0) }), let last = type.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(Substring(type[first...last])).lowercased()
    }

    /// Not a space or a tab.
    private static func isBare(_ byte: UInt8) -> Bool { byte != 0x20 && byte != 0x09 }
}
