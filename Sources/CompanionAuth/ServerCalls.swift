import CompanionCore
import CompanionHTTP
import Foundation

/// A reply of any status with its body read, for sign-in protocols whose refusals carry data
/// (a pending second-factor flow, a cookie on a second-factor answer).
public struct RawReply: Sendable {
    /// The status line and headers.
    public var response: HTTPResponse
    /// The body, read whole (at most 1 MiB).
    public var data: Data

    /// Creates a reply.
    public init(response: HTTPResponse, data: Data) {
        self.response = response
        self.data = data
    }

    /// The status code.
    public var status: Int { response.status }
    /// The body as JSON, or `nil` when it is not JSON.
    public var json: JSONValue? { JSONValue(data: data) }
    /// The server's error envelope, when the body is one.
    public var envelope: ServerErrorEnvelope? { ServerErrorEnvelope.parse(data, mediaType: response.mediaType) }

    /// `name=value` of the first `Set-Cookie` named `name`, or `nil`.
    public func cookie(named name: String) -> String? {
        guard let header = response.headers["Set-Cookie"] else { return nil }
        for part in header.split(separator: ",") {
            let pair = part.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if pair.hasPrefix(name + "="), pair.count > name.count + 1 { return pair }
        }
        return nil
    }
}

extension Client {
    /// Sends `method path` with an optional JSON (or form) body and extra headers; any status comes back
    /// as a reply. Sign-in steps use it because their refusals carry data.
    public func call(
        _ method: HTTPMethod, _ path: String, json: [String: JSONValue]? = nil, form: [String: String]? = nil,
        headers: HTTPHeaders = HTTPHeaders()
    ) async throws(AuthError) -> RawReply {
        var headers = headers
        var body: Data?
        if let json {
            body = JSONValue.object(json).jsonString().data(using: .utf8)
            headers["Content-Type"] = "application/json"
        } else if let form {
            var parts = URLComponents()
            parts.queryItems = form.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            let encoded = (parts.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            body = Data(encoded.utf8)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        }
        // One attempt: a sign-in step is not repeated behind the caller's back (minting retries itself,
        // with its idempotency key), and a refusal is an answer, so any status comes back as a reply.
        var request = Request<Void>(method: method, path: path, headers: headers, body: body) { _, _, _ in () }
        request.retryPolicy = .never
        do {
            let reply = try await reply(request)
            return RawReply(response: reply.response, data: reply.body)
        } catch {
            throw .http(error)
        }
    }
}

extension AuthError {
    /// A failure that is not a refusal of the step: network, or an unexpected status.
    public static func unexpected(_ reply: RawReply, _ what: String) -> AuthError {
        let said = reply.envelope?.summary.map { ": \($0)" } ?? ""
        return .unexpectedReply("\(what) answered with status \(reply.status)\(said)")
    }
}
