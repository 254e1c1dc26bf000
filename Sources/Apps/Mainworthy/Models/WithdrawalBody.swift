import Foundation

/// The body of a withdrawal: `POST …/decisions/{id}/withdrawal`.
public struct WithdrawalBody: Sendable, Hashable, Encodable {
    /// The reason, or `nil`.
    public var reason: String?

    /// Creates a body.
    public init(reason: String?) { self.reason = reason }

    /// Encodes `reason`, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
    }

    enum CodingKeys: String, CodingKey { case reason }

    /// The body with what was typed, or why nothing may be sent (a required reason left blank).
    public static func make(reason: String, required: Bool) -> Result<WithdrawalBody, InputProblem> {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if required, reason.isEmpty { return .failure(.withdrawalReasonRequired) }
        return .success(WithdrawalBody(reason: reason.isEmpty ? nil : reason))
    }
}
