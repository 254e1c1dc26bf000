import Foundation

/// A reply of any status: the head, the body, and the decoded value on demand.
///
/// Rule: `Client.send` treats every non-2xx as an error, which is right for reading data. A flow
/// whose refusals are answers (a sign-in step's 401 "wrong code", a 409 "changed meanwhile" to show)
/// uses `Client.reply` and reads the status itself; the server's own sentence is in `failure`.
public struct Reply<Response: Sendable>: Sendable {
    /// The status line and headers.
    public let response: HTTPResponse
    /// The body as received (bounded by the client's size limit).
    public let body: Data
    /// The typed status failure for a non-2xx reply, with the server's error envelope; `nil` for 2xx.
    public let failure: HTTPError?
    private let decodeValue: @Sendable () throws(HTTPError) -> Response
    private let decoder: JSONDecoder

    /// Creates a reply whose bodies decode with `decoder` (the client's, with the kit's date rules).
    public init(
        response: HTTPResponse, body: Data, failure: HTTPError?, decoder: JSONDecoder = Client.makeDecoder(),
        decode: @escaping @Sendable () throws(HTTPError) -> Response
    ) {
        self.response = response
        self.body = body
        self.failure = failure
        self.decoder = decoder
        self.decodeValue = decode
    }

    /// The status code.
    public var status: Int { response.status }

    /// The decoded value of a 2xx reply; a non-2xx reply throws its status failure.
    public func value() throws(HTTPError) -> Response {
        if let failure { throw failure }
        return try decodeValue()
    }

    /// The body decoded as `T` whatever the status (a refusal's JSON body, for instance), with the client's
    /// decoder, so its dates follow the same rules as every reply.
    public func decode<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        try JSONDecoding.decode(type, from: body, response: response, decoder: decoder)
    }
}
