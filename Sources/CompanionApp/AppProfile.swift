import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// What an app registers about its server, once: the parts of the road that are its own.
///
/// Everything else (transport, stores, secrets, journal, clock) comes from the `AppEnvironment`. The defaults
/// are the kit's: JSON, a 30 s timeout, idempotent methods retried, 401 alone signs out, data kept offline and
/// kept after a sign-out.
public struct AppProfile: Sendable {
    /// Headers every request carries (`User-Agent`, `Accept`).
    public var defaultHeaders: HTTPHeaders
    /// The idle timeout of a request that sets none.
    public var timeout: Duration
    /// The largest body read when a request sets none.
    public var maxResponseBytes: Int
    /// The retry policy of reads (writes follow their `WriteCommand`'s own rule).
    public var retryPolicy: RetryPolicy
    /// Whether every POST and PATCH gets an idempotency key without being a `WriteCommand`. Off by default.
    public var automaticIdempotencyKeys: Bool
    /// Which refusals end the sign-in.
    public var revocation: RevocationRule
    /// Where the offline data lives and what a revocation does to it.
    public var data: DataPolicy
    /// Middleware of the app's own (placed inside the credential's, before the journal).
    public var middlewares: [any Middleware]
    /// Whether each exchange is written to the journal.
    public var recordsExchanges: Bool
    /// The sentence a screen shows for a failed read, given its context (the failure, the read's key, whether a
    /// value stays shown): the kit's sentence by default; an app may prefer its server's own words or its own
    /// language. The screen's state itself is the kit's (`ServerBundle.failing`).
    public var sentence: @Sendable (ReadFailure) -> String
    /// The sentence shown with a stored copy that a read asked for without the network (`FetchPolicy.offline`:
    /// the person chose to read offline), given the read's key. With one, such a copy is `offline` with it; without
    /// one (the default) it is `stale` with no problem.
    public var offlineCopy: (@Sendable (String) -> String)? = nil

    /// Creates a profile; every parameter has the kit's default.
    public init(
        userAgent: String, accept: String = "application/json", headers: HTTPHeaders = [:],
        timeout: Duration = .seconds(30), maxResponseBytes: Int = 32 * 1024 * 1024,
        retryPolicy: RetryPolicy = RetryPolicy(), automaticIdempotencyKeys: Bool = false,
        revocation: RevocationRule = RevocationRule(), data: DataPolicy = DataPolicy(),
        middlewares: [any Middleware] = [], recordsExchanges: Bool = true,
        sentence: @escaping @Sendable (ReadFailure) -> String = { $0.description }
    ) {
        var all: HTTPHeaders = ["User-Agent": userAgent, "Accept": accept]
        for (name, value) in headers { all[name] = value }
        self.defaultHeaders = all
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.retryPolicy = retryPolicy
        self.automaticIdempotencyKeys = automaticIdempotencyKeys
        self.revocation = revocation
        self.data = data
        self.middlewares = middlewares
        self.recordsExchanges = recordsExchanges
        self.sentence = sentence
    }
}

/// Where an app keeps what it reads, and what happens to it when the server ends the sign-in.
public struct DataPolicy: Sendable, Hashable {
    /// Where the store lives.
    public enum Storage: String, Sendable, Hashable {
        /// In the environment's stores (on disk in the app): readable offline, after a restart too.
        case offline
        /// In memory only, never on disk: gone with the process.
        case memoryOnly
    }

    /// Where the store lives.
    public var storage: Storage
    /// Whether a revocation deletes the account's data (a lost phone's answer), or keeps it for the same person
    /// signing in again.
    public var wipesOnRevocation: Bool

    /// Creates a policy: offline and kept by default.
    public init(storage: Storage = .offline, wipesOnRevocation: Bool = false) {
        self.storage = storage
        self.wipesOnRevocation = wipesOnRevocation
    }
}
