import CompanionHTTP
import Foundation

/// When to read the cache and when to go to the network: two independent choices.
///
/// Rule: the cache can be read never, before the network, or only when the network fails; the
/// network can be used never, always, or only on a cache miss. Stale-while-revalidate is
/// "before the network" + "always": the cached copy is published at once, then the fresh one.
public struct FetchPolicy: Sendable, Hashable, CustomStringConvertible {
    /// When the cache is read.
    public enum CacheRead: String, Sendable, Hashable {
        /// Never: every value comes from the network.
        case never
        /// First: a cached copy is published before the network is asked.
        case beforeNetwork
        /// Only as a fallback when the network fails.
        case onNetworkFailure
    }

    /// When the network is used.
    public enum NetworkUse: String, Sendable, Hashable {
        /// Never: offline reading.
        case never
        /// Always (after a cached copy was published, if any).
        case always
        /// Only when no cached copy was published.
        case onCacheMiss
    }

    /// When the cache is read.
    public var cacheRead: CacheRead
    /// When the network is used.
    public var network: NetworkUse

    /// Creates a policy.
    public init(cacheRead: CacheRead, network: NetworkUse) {
        self.cacheRead = cacheRead
        self.network = network
    }

    /// Cached copy at once, then the fresh one (PrompTugal's team data, P-OPEN-18; Omnigent's lists).
    public static let staleWhileRevalidate = FetchPolicy(cacheRead: .beforeNetwork, network: .always)
    /// The cached copy if there is one, else the network.
    public static let cacheElseNetwork = FetchPolicy(cacheRead: .beforeNetwork, network: .onCacheMiss)
    /// The network; on failure the cached copy, marked with its age and the failure (P-TEAM-6).
    public static let networkElseCache = FetchPolicy(cacheRead: .onNetworkFailure, network: .always)
    /// Only the cache (`companion get --offline`).
    public static let offline = FetchPolicy(cacheRead: .beforeNetwork, network: .never)
    /// Only the network, ignoring the cache (`companion get --fresh`, a pull, M-LIST-3).
    public static let fresh = FetchPolicy(cacheRead: .never, network: .always)

    /// "cache before network, network always".
    public var description: String { "cache \(cacheRead.rawValue), network \(network.rawValue)" }
}

/// One published value and where it came from.
public struct Loaded<Value: Sendable>: Sendable {
    /// Where a value came from.
    public enum Origin: String, Sendable, Hashable {
        /// The offline store.
        case cache
        /// A fresh network reply.
        case network
        /// The network confirmed the cached copy (304 Not Modified).
        case notModified
    }

    /// The value.
    public var value: Value
    /// Where it came from.
    public var origin: Origin
    /// When its body was fetched.
    public var fetchedAt: Date
    /// Its age when published, in seconds (0 for a fresh reply).
    public var age: TimeInterval
    /// For a cached fallback: the network failure that made it the answer.
    public var failure: HTTPError?

    /// Whether the value is the cache's, not confirmed by the network in this load.
    public var isStale: Bool { origin == .cache }

    /// The same load with its value transformed (a reply turned into what a screen shows).
    public func map<Other: Sendable>(_ transform: (Value) throws -> Other) rethrows -> Loaded<Other> {
        let other: Loaded<Other>.Origin =
            switch origin {
            case .cache: .cache
            case .network: .network
            case .notModified: .notModified
            }
        return Loaded<Other>(
            value: try transform(value), origin: other, fetchedAt: fetchedAt, age: age, failure: failure)
    }
}
