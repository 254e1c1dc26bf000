import CompanionCore
import CompanionHTTP
import Foundation

/// A write that found the value changed since it was read: both sides, for the person to choose.
public struct ChangedMeanwhile<Value: Sendable>: Sendable {
    /// The value (or version, decision id) the write was based on.
    public var basedOn: Value
    /// The server's current value, when its reply carried it.
    public var current: Value?
    /// The server's error code (`decision_changed`, `conflict`).
    public var serverCode: String?
    /// The server's sentence, word for word.
    public var serverSentence: String?
}

/// The outcome of a write that names what it was based on.
public enum WriteOutcome<Value: Sendable, Reply: Sendable>: Sendable {
    /// The server applied it; its reply.
    case applied(Reply)
    /// Someone changed it first; nothing was applied (M-QUEUE-12, M-UNDO-3).
    case changedMeanwhile(ChangedMeanwhile<Value>)
}

/// Optimistic concurrency: a write carries the version it was based on; a 409 or 412 is not an
/// error string but a typed outcome carrying both values.
public enum OptimisticWrite {
    /// Sends `request` (which names `basedOn` in its body or an `If-Match` header). A 409/412 becomes
    /// `.changedMeanwhile`, with the current value read from the server's envelope by `current`.
    public static func send<Value: Sendable, Reply: Sendable>(
        _ request: Request<Reply>, basedOn: Value, through client: Client,
        current: @Sendable (ServerErrorEnvelope) -> Value? = { _ in nil }
    ) async throws(HTTPError) -> WriteOutcome<Value, Reply> {
        do {
            return .applied(try await client.send(request))
        } catch {
            guard let status = error.statusCode, status == 409 || status == 412 else { throw error }
            let envelope = error.envelope
            return .changedMeanwhile(
                ChangedMeanwhile(
                    basedOn: basedOn, current: envelope.flatMap(current), serverCode: envelope?.code,
                    serverSentence: envelope?.message ?? envelope?.summary))
        }
    }
}
