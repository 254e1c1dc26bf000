import CompanionCore
import CompanionHTTP
import Foundation

/// One write the person asked for, as a value that can be sent again unchanged.
///
/// Rules, which differ from the kit's defaults (M-NET-1..3, O-7, O-8):
/// - Every POST carries an `Idempotency-Key` made once, when the command is made; Retry sends the
///   same request with the same key, so the server applies it once (M-NET-3, M-PLAN-3).
/// - An answer or a withdrawal whose reply was lost (the request left, then a reset, a cut-off body or
///   a timeout) is sent again by itself with the same key, up to 3 times, after 1, 2 and 4 s, then is
///   unconfirmed with Retry (M-NET-2).
/// - Results, plans and saves are never resent by themselves: Retry only.
/// - A request that never left (no connection, connection refused) is not resent and nothing is kept
///   for later: there is no outbox (M-NET-1).
public struct WriteCommand<Response: Sendable>: Sendable {
    /// The request, key and retry policy included.
    public let request: Request<Response>

    /// The command's key.
    public var key: String { request.idempotencyKey ?? "" }

    /// Makes a command from `request` with a fresh key; `resendsLostReply` for answers and withdrawals.
    public init(_ request: Request<Response>, resendsLostReply: Bool, random: any RandomSource) {
        self.request =
            request
            .idempotencyKey(random.uuid().uuidString.lowercased())
            .retrying(resendsLostReply ? Self.lostReplyResends : .never)
    }

    /// The policy of answers and withdrawals: 3 resends at exactly 1, 2 and 4 s, only for a lost reply.
    public static var lostReplyResends: RetryPolicy {
        RetryPolicy(
            maxAttempts: 4, baseDelay: .seconds(1), maxDelay: .seconds(4), retryableStatuses: [],
            retryableFailures: [.connectionLost, .timedOut], jitter: false)
    }
}
