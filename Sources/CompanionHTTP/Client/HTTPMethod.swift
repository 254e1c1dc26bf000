/// An HTTP request method.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The method token, upper case.
    public let rawValue: String

    /// Creates a method from its token; it is upper-cased.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// `GET`.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2):
    /// GET, HEAD, OPTIONS, TRACE, PUT and DELETE. Only these are retried without an idempotency key.
    public var isIdempotent: Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(rawValue)
    }

    /// Whether the request only reads (RFC 9110 §9.2.1): GET, HEAD, OPTIONS, TRACE. Every other method is a
    /// write, and a transport never sends a write twice by itself.
    public var isSafe: Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE"].contains(rawValue)
    }

    /// The method token.
    public var description: String { rawValue }
}
