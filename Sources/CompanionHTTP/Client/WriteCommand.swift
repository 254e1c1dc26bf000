import CompanionCore
import Foundation

/// One write the person asked for, as a value that can be sent again unchanged.
///
/// Rules (every app's writes take this road):
/// - A command carries an `Idempotency-Key` made once, when the command is made. Retry sends the same request
///   with the same key, so a server that honours the key applies it once; a server that ignores it never sees
///   the command sent twice by the kit on its own.
/// - The transport never resends a write by itself (`CurlTransport` and `URLSessionTransport` never put one on
///   a reused connection). The only automatic resend is the command's own `resend` rule, with the same key.
/// - The default rule is `.never`: a failed write is shown with Retry, and only the person sends it again.
public struct WriteCommand<Response: Sendable>: Sendable {
    /// The request, key and resend rule included.
    public let request: Request<Response>

    /// The command's key.
    public var key: String { request.idempotencyKey ?? "" }

    /// The command's own resend rule.
    public var resend: RetryPolicy { request.retryPolicy ?? .never }

    /// Makes a command from `request` with a fresh key from `random`; `resend` is its own resend rule.
    public init(_ request: Request<Response>, resend: RetryPolicy = .never, random: any RandomSource) {
        self.init(request, key: random.uuid().uuidString.lowercased(), resend: resend)
    }

    /// Makes a command from `request` with a known key (a command read back to be sent again).
    public init(_ request: Request<Response>, key: String, resend: RetryPolicy = .never) {
        self.request = request.idempotencyKey(key).retrying(resend)
    }

    /// The same command (same key, same body) with another resend rule: Retry after a failure uses `.never`.
    public func resending(_ rule: RetryPolicy) -> WriteCommand {
        WriteCommand(request, key: key, resend: rule)
    }
}

extension RetryPolicy {
    /// Resends only a write whose reply was lost after it left (a broken connection or a timeout), never one
    /// that could not be sent: `resends` times after `first`, twice that, four times that… capped at `cap`,
    /// exactly, without jitter. A status is never resent.
    public static func lostReply(resends: Int, first: Duration, cap: Duration) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: resends + 1, baseDelay: first, maxDelay: cap, retryableStatuses: [],
            retryableFailures: [.connectionLost, .timedOut], jitter: false)
    }
}
