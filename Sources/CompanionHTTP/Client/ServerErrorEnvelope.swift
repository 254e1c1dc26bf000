import CompanionCore
import Foundation

/// What a server said about its own error, parsed from the body of a failed response.
///
/// Rule: the server's sentence reaches the person unchanged (Certain C-ERR-2, Mainworthy's
/// `error.message`); the kit adds context around it, never replaces it. Recognised shapes:
/// - Omnigent and Mainworthy: `{"error": {"code": "…", "message": "…", …}}` (extra members kept in `details`)
/// - FastAPI/Certain: `{"detail": "…", "code": "…"}` and 422 `{"detail": [{"loc": […], "msg": "…"}]}`
/// - plain: `{"error": "…"}` and `{"message": "…"}`
/// - django-allauth: `{"status": 400, "errors": [{"message": "…", "code": "…", "param": "…"}]}`
/// - an HTML error page: its `<title>`
public struct ServerErrorEnvelope: Sendable, Hashable {
    /// A problem with one input field, as validation errors report it.
    public struct FieldProblem: Sendable, Hashable {
        /// The field's location, such as `body.agent_id`.
        public var field: String
        /// The server's sentence about it.
        public var message: String
        /// The server's code for it, if any.
        public var code: String?

        /// Creates a field problem.
        public init(field: String, message: String, code: String? = nil) {
            self.field = field
            self.message = message
            self.code = code
        }
    }

    /// The machine-readable code (`not_found`, `runner_unavailable`, `token_revoked`), if any.
    public var code: String?
    /// The server's sentence, if it sent one.
    public var message: String?
    /// Per-field problems of a validation error.
    public var fieldProblems: [FieldProblem]
    /// The whole error object, for members an app reads itself (Mainworthy's `current` on 409).
    public var details: JSONValue?

    /// Creates an envelope.
    public init(
        code: String? = nil, message: String? = nil, fieldProblems: [FieldProblem] = [], details: JSONValue? = nil
    ) {
        self.code = code
        self.message = message
        self.fieldProblems = fieldProblems
        self.details = details
    }

    /// The sentence to show: the server's message, or its field problems joined, or `nil`.
    public var summary: String? {
        if let message, !message.isEmpty { return message }
        if !fieldProblems.isEmpty {
            return fieldProblems.map { $0.field.isEmpty ? $0.message : "\($0.field): \($0.message)" }
                .joined(separator: "; ")
        }
        return nil
    }

    /// Parses a failed response's body; `nil` when it holds none of the known shapes.
    public static func parse(_ body: Data, mediaType: String?) -> ServerErrorEnvelope? {
        if let json = JSONValue(data: body) {
            return parse(json: json)
        }
        if mediaType == "text/html" || body.starts(with: Data("<".utf8)) {
            return htmlTitle(body).map { ServerErrorEnvelope(message: $0) }
        }
        return nil
    }

    static func parse(json: JSONValue) -> ServerErrorEnvelope? {
        guard case .object(let root) = json else { return nil }
        if let error = root["error"] {
            if case .object(let members) = error {
                let problems = (members["fields"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map {
                    FieldProblem(field: $0.key, message: $0.value.stringValue ?? $0.value.jsonString(), code: nil)
                }
                return ServerErrorEnvelope(
                    code: members["code"]?.stringValue, message: members["message"]?.stringValue,
                    fieldProblems: problems, details: error)
            }
            if let sentence = error.stringValue {
                return ServerErrorEnvelope(code: root["code"]?.stringValue, message: sentence, details: json)
            }
        }
        if let detail = root["detail"] {
            if let sentence = detail.stringValue {
                return ServerErrorEnvelope(code: root["code"]?.stringValue, message: sentence, details: json)
            }
            if let items = detail.arrayValue {
                let problems = items.compactMap { item -> FieldProblem? in
                    guard let message = item["msg"]?.stringValue else { return nil }
                    let location = (item["loc"]?.arrayValue ?? []).map { $0.stringValue ?? $0.jsonString() }
                    return FieldProblem(
                        field: location.joined(separator: "."), message: message, code: item["type"]?.stringValue)
                }
                return ServerErrorEnvelope(code: root["code"]?.stringValue, fieldProblems: problems, details: json)
            }
        }
        if let errors = root["errors"]?.arrayValue {
            let problems = errors.compactMap { item -> FieldProblem? in
                guard let message = item["message"]?.stringValue else { return nil }
                return FieldProblem(
                    field: item["param"]?.stringValue ?? "", message: message, code: item["code"]?.stringValue)
            }
            let single = problems.count == 1 && problems[0].field.isEmpty
            return ServerErrorEnvelope(
                code: problems.first?.code, message: single ? problems[0].message : nil,
                fieldProblems: single ? [] : problems, details: json)
        }
        if let sentence = root["message"]?.stringValue {
            return ServerErrorEnvelope(code: root["code"]?.stringValue, message: sentence, details: json)
        }
        return nil
    }

    /// The page's `<title>`, or its first `<h1>` when it has no title.
    private static func htmlTitle(_ body: Data) -> String? {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        for tag in ["title", "h1"] {
            guard let open = text.range(of: "<\(tag)>", options: .caseInsensitive),
                let close = text.range(
                    of: "</\(tag)>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
            else { continue }
            let title = text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
            if !title.isEmpty { return String(title.prefix(200)) }
        }
        return nil
    }
}
