import CompanionCore
import Foundation

/// When and how long to wait before sending a failed request again.
///
/// Defaults and their reasons:
/// - Only requests that are safe to repeat are retried: idempotent methods (RFC 9110 §9.2.2), or a
///   POST/PATCH carrying an `Idempotency-Key`, which the server uses to apply the write once.
/// - Retried statuses: 408, 429, 500, 502, 503, 504 (RFC 9110 §15.5.9, RFC 6585 §4, §15.6). Other
///   4xx mean the request itself is wrong; sending it again cannot help.
/// - Retried failures: a lost connection, a timeout, an unreachable server. Not offline (wait for
///   the network instead), not TLS (it will fail the same way), not cancellation.
/// - Delay: exponential backoff with "full jitter" (a random wait between zero and the capped
///   exponential), so many clients failing together do not return together.
/// - `Retry-After` (RFC 9110 §10.2.3), in seconds or as an HTTP date, replaces the computed delay;
///   a `Retry-After` longer than `maxRetryAfter` ends the retries and surfaces the error instead.
/// - At most `maxAttempts` sends in all, so the wait is bounded.
///
/// An app whose rules differ says so per request (`Request.retrying(_:)`): which failures count
/// (`retryableFailures`, for example only a reply lost after the request left, never a refused
/// connection) and a fixed schedule without jitter (`jitter: false`: exactly 1, 2, 4 s).
public struct RetryPolicy: Sendable, Hashable {
    /// A transport failure a policy may retry.
    public enum Failure: Sendable, Hashable, CaseIterable {
        /// The connection broke after the request was sent (reset, cut-off body): the reply was lost.
        case connectionLost
        /// The server stopped answering for longer than the timeout: the reply may have been lost.
        case timedOut
        /// The server could not be reached at all: the request never left.
        case unreachable
    }

    /// Total sends, the first included.
    public var maxAttempts: Int
    /// The backoff before the second send, before jitter.
    public var baseDelay: Duration
    /// The cap on any computed backoff.
    public var maxDelay: Duration
    /// The longest `Retry-After` the client is willing to wait.
    public var maxRetryAfter: Duration
    /// Statuses worth another try.
    public var retryableStatuses: Set<Int>
    /// Transport failures worth another try.
    public var retryableFailures: Set<Failure>
    /// Whether the backoff is randomised ("full jitter"); without it the waits are exactly the capped
    /// exponential: `baseDelay`, twice that, four times that.
    public var jitter: Bool

    /// Creates a policy; the defaults are described on the type.
    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(60), retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableFailures: Set<Failure> = Set(Failure.allCases), jitter: Bool = true
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatuses = retryableStatuses
        self.retryableFailures = retryableFailures
        self.jitter = jitter
    }

    /// A policy that never retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// Whether a failure of this kind is worth another try.
    public func isRetryable(_ error: HTTPError) -> Bool {
        switch error {
        case .connectionLost: return retryableFailures.contains(.connectionLost)
        case .timedOut: return retryableFailures.contains(.timedOut)
        case .unreachable: return retryableFailures.contains(.unreachable)
        case .status(let failure): return retryableStatuses.contains(failure.status)
        default: return false
        }
    }

    /// The backoff before send number `attempt + 1` (attempt counts from 1), with full jitter unless
    /// `jitter` is off.
    public func backoff(afterAttempt attempt: Int, random: any RandomSource) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let capped = min(maxDelay.seconds, baseDelay.seconds * pow(2, exponent))
        let factor = jitter ? random.unitInterval() : 1
        return .milliseconds(Int64((capped * factor * 1000).rounded()))
    }

    /// Parses `Retry-After`: delta-seconds or an HTTP date (relative to `now`); `nil` when absent or invalid.
    public static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = httpDate(value) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT",
            let day = Int(parts[1]), let year = Int(parts[3]),
            let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
                .firstIndex(of: String(parts[2]))
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = clock[0]
        components.minute = clock[1]
        components.second = clock[2]
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        return calendar.date(from: components)
    }
}

/// Sends a request again, as a `RetryPolicy` allows, waiting through an injected `Sleeper`.
public struct RetryMiddleware: Middleware {
    /// The policy.
    public let policy: RetryPolicy
    private let sleeper: any Sleeper
    private let random: any RandomSource
    private let clock: any WallClock
    private let journal: Journal?

    /// Creates the middleware.
    public init(
        policy: RetryPolicy = RetryPolicy(), sleeper: any Sleeper = TaskSleeper(),
        random: any RandomSource = SystemRandomSource(),
        clock: any WallClock = SystemWallClock(), journal: Journal? = nil
    ) {
        self.policy = policy
        self.sleeper = sleeper
        self.random = random
        self.clock = clock
        self.journal = journal
    }

    /// Sends `request`, retrying retryable failures of retry-safe requests.
    public func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        let policy = request.retryPolicy ?? self.policy
        guard request.isRetrySafe, policy.maxAttempts > 1 else { return try await next(request) }
        var attempt = 1
        while true {
            let delay: Duration
            do throws(HTTPError) {
                let (response, body) = try await next(request)
                guard policy.retryableStatuses.contains(response.status), attempt < policy.maxAttempts else {
                    guard let limit = request.bufferLimit else { return (response, body) }
                    if response.isSuccess, let length = response.contentLength, length > limit {
                        throw HTTPError.bodyTooLarge(limit: limit, url: HTTPError.describe(request.url))
                    }
                    // Read the body here, so a connection lost mid-body is retried too.
                    let data = try await body.collect(
                        upTo: response.isSuccess ? limit : min(limit, 1 << 20), url: request.url,
                        expectedLength: response.contentLength)
                    return (response, HTTPBody(data))
                }
                // Read the (small) error body so the connection is free and the last one can be returned.
                let data = (try? await body.collect(upTo: 64 * 1024, url: request.url)) ?? Data()
                let retryAfter = RetryPolicy.retryAfter(response.headers["Retry-After"], now: clock.now())
                if let retryAfter, retryAfter > policy.maxRetryAfter { return (response, HTTPBody(data)) }
                delay = retryAfter ?? policy.backoff(afterAttempt: attempt, random: random)
                journal?.record(
                    .note, "retry \(request.method) \(HTTPError.describe(request.url))",
                    fields: [
                        "attempt": "\(attempt)", "status": "\(response.status)", "delayMs": "\(delay.milliseconds)",
                    ])
            } catch {
                guard policy.isRetryable(error), attempt < policy.maxAttempts else { throw error }
                delay = policy.backoff(afterAttempt: attempt, random: random)
                journal?.record(
                    .note, "retry \(request.method) \(HTTPError.describe(request.url))",
                    fields: ["attempt": "\(attempt)", "error": error.description, "delayMs": "\(delay.milliseconds)"])
            }
            do {
                try await sleeper.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }
}

/// Gives every POST and PATCH an `Idempotency-Key` before it can be retried.
///
/// Rule: one key per logical write. The key is generated here, outside the retry middleware, so
/// every retry of the write carries the same key; a request that already carries a key (an outbox
/// replay after a restart) keeps it.
public struct IdempotencyKeyMiddleware: Middleware {
    private let random: any RandomSource
    /// The methods that get a key.
    public let methods: Set<HTTPMethod>

    /// Creates the middleware.
    public init(random: any RandomSource = SystemRandomSource(), methods: Set<HTTPMethod> = [.post, .patch]) {
        self.random = random
        self.methods = methods
    }

    /// Adds a fresh key when the request is a write without one.
    public func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        guard methods.contains(request.method), request.idempotencyKey == nil else { return try await next(request) }
        var keyed = request
        keyed.idempotencyKey = random.uuid().uuidString.lowercased()
        return try await next(keyed)
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var milliseconds: Int64 {
        let parts = components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }
}
