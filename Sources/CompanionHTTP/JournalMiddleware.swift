import CompanionCore
import Foundation

/// Writes each exchange to the `Journal`: method, URL, status, timing, sizes, and redacted headers
/// and JSON bodies.
///
/// Rule: it records what was sent on the wire, so it sits innermost, after authentication has
/// added credentials; the journal's redactor masks them. A body is previewed only when it is JSON
/// (after masking secret fields) and only up to `bodyPreviewLimit` bytes.
public struct JournalMiddleware: Middleware {
    private let journal: Journal
    /// How many bytes of a JSON body are previewed; 0 turns previews off.
    public let bodyPreviewLimit: Int
    /// Whether request and response headers are recorded (redacted).
    public let includeHeaders: Bool

    /// Creates the middleware.
    public init(journal: Journal, bodyPreviewLimit: Int = 2_048, includeHeaders: Bool = true) {
        self.journal = journal
        self.bodyPreviewLimit = bodyPreviewLimit
        self.includeHeaders = includeHeaders
    }

    /// Records the request, then the response when its body ends, or the error.
    public func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        let redactor = journal.redactor
        let line = "\(request.method) \(redactor.redact(url: request.url))"
        var fields = ["bytesOut": "\(request.body?.count ?? 0)"]
        if includeHeaders {
            fields["headers"] = Self.render(request.headers, redactor)
        }
        if bodyPreviewLimit > 0, let body = request.body, let preview = redactor.redact(json: body) {
            fields["body"] = String(preview.prefix(bodyPreviewLimit))
        }
        journal.record(.request, line, fields: fields)
        let start = ContinuousClock.now
        do {
            let (response, body) = try await next(request)
            let headMs = (ContinuousClock.now - start).milliseconds
            var responseFields = ["status": "\(response.status)", "headMs": "\(headMs)"]
            if includeHeaders {
                responseFields["headers"] = Self.render(response.headers, redactor)
            }
            if response.mediaType == "text/event-stream" {
                journal.record(.response, line, fields: responseFields)
                return (response, body)
            }
            let journal = journal
            let headFields = responseFields
            let observed = body.observed { bytes, error in
                var final = headFields
                final["bytesIn"] = "\(bytes)"
                final["totalMs"] = "\((ContinuousClock.now - start).milliseconds)"
                if let error {
                    final["error"] = error.description
                    journal.record(.error, line, fields: final)
                } else {
                    journal.record(.response, line, fields: final)
                }
            }
            return (response, observed)
        } catch {
            journal.record(
                .error, line,
                fields: ["error": error.description, "totalMs": "\((ContinuousClock.now - start).milliseconds)"])
            throw error
        }
    }

    /// `Name: value; …` in the order sent, secret values masked by name; the journal then scrubs the
    /// line once more by shape and by registered value.
    private static func render(_ headers: HTTPHeaders, _ redactor: Redactor) -> String {
        var text = ""
        for (name, value) in headers {
            if !text.isEmpty { text += "; " }
            text += name + ": " + (redactor.isSecretHeader(name) ? Redactor.mask : value)
        }
        return text
    }
}
