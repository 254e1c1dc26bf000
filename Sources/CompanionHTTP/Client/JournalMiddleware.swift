import CompanionCore
import Foundation

/// Writes each exchange to the `Journal`: method, URL, status, timing, sizes, redacted headers and JSON bodies,
/// and the request's label (`Request.label`) on each of the exchange's events.
///
/// Rule: it records what was sent on the wire, so it sits innermost, after authentication has
/// added credentials; the journal's redactor masks them. A body is previewed only when it is JSON
/// (after masking secret fields) and only up to `bodyPreviewLimit` bytes.
///
/// On the request's path it only keeps the values (URL, headers, body, times, sizes): the journal makes the
/// lines and redacts them when it is read (`Journal.record(_:deferred:)`), so an exchange nobody looks at costs
/// no redaction, and one that is looked at shows exactly what it showed before.
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
        let method = request.method
        let url = request.url
        let headers = includeHeaders ? request.headers : nil
        let body = bodyPreviewLimit > 0 ? request.body : nil
        let previewLimit = bodyPreviewLimit
        let bytesOut = request.body?.count ?? 0
        let label = request.label
        journal.record(.request) { redactor in
            var fields = ["bytesOut": "\(bytesOut)"]
            fields[JournalEvent.requestLabelField] = label
            if let headers { fields["headers"] = Self.render(headers, redactor) }
            if let body, let preview = redactor.redact(json: body) {
                fields["body"] = String(preview.prefix(previewLimit))
            }
            return (Self.line(method, url, redactor), fields)
        }
        let start = ContinuousClock.now
        do {
            let (response, body) = try await next(request)
            let headMs = (ContinuousClock.now - start).milliseconds
            let responseHeaders = includeHeaders ? response.headers : nil
            let status = response.status
            @Sendable func headFields(_ redactor: Redactor) -> [String: String] {
                var fields = ["status": "\(status)", "headMs": "\(headMs)"]
                fields[JournalEvent.requestLabelField] = label
                if let responseHeaders { fields["headers"] = Self.render(responseHeaders, redactor) }
                return fields
            }
            if response.mediaType == "text/event-stream" {
                journal.record(.response) { redactor in (Self.line(method, url, redactor), headFields(redactor)) }
                return (response, body)
            }
            let journal = journal
            let observed = body.observed { bytes, error in
                let totalMs = (ContinuousClock.now - start).milliseconds
                journal.record(error == nil ? .response : .error) { redactor in
                    var fields = headFields(redactor)
                    fields["bytesIn"] = "\(bytes)"
                    fields["totalMs"] = "\(totalMs)"
                    if let error { fields["error"] = error.description }
                    return (Self.line(method, url, redactor), fields)
                }
            }
            return (response, observed)
        } catch {
            let totalMs = (ContinuousClock.now - start).milliseconds
            journal.record(.error) { redactor in
                var fields = ["error": error.description, "totalMs": "\(totalMs)"]
                fields[JournalEvent.requestLabelField] = label
                return (Self.line(method, url, redactor), fields)
            }
            throw error
        }
    }

    /// `GET https://host/path`, the URL redacted.
    private static func line(_ method: HTTPMethod, _ url: URL, _ redactor: Redactor) -> String {
        "\(method) \(redactor.redact(url: url))"
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

extension JournalEvent {
    /// The field in which the journal keeps a request's label (`Request.label`), on the request's event and on its
    /// response or error event.
    public static let requestLabelField = "label"

    /// The label of the request this event belongs to, when the request had one: what a network panel shows in
    /// place of the URL, without reading the message's text.
    public var requestLabel: String? { fields[Self.requestLabelField] }
}
