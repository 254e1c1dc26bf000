import CompanionHTTP
import Foundation

/// A refusal by the server: status, code, its own sentence, and what else it said.
public struct ServerRefusal: Sendable, Hashable {
    /// The status.
    public var status: Int
    /// The code, such as `decision_changed`.
    public var code: String?
    /// The server's sentence, word for word; a generic one when it sent none.
    public var message: String
    /// For 409 `decision_changed`: the decision standing now (`nil` when the question is open again).
    public var current: Decision?
    /// For 403 `capability_missing`: the capability.
    public var capability: String?
    /// For 422 `invalid`: field → problem.
    public var fields: [String: String]

    /// Creates a refusal (one the app words itself, such as a case number no case has).
    public init(
        status: Int, code: String?, message: String, current: Decision? = nil, capability: String? = nil,
        fields: [String: String] = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.current = current
        self.capability = capability
        self.fields = fields
    }

    /// Reads a status failure's envelope; with `client`, the decision standing now is decoded as the client decodes
    /// replies (without one it is not read).
    public init(_ failure: HTTPError.StatusFailure, client: Client? = nil) {
        status = failure.status
        code = failure.envelope?.code
        message = failure.envelope?.message ?? HTTPError.status(failure).description
        capability = failure.envelope?.details?["capability"]?.stringValue
        var fields: [String: String] = [:]
        for problem in failure.envelope?.fieldProblems ?? [] { fields[problem.field] = problem.message }
        self.fields = fields
        if let current = failure.envelope?.details?["current"], !current.isNull,
            let data = current.jsonString().data(using: .utf8), let client
        {
            self.current = try? client.decode(Decision.self, from: data)
        } else {
            self.current = nil
        }
    }
}
