import CompanionHTTP
import Foundation

/// What a screen shows, as one value a SwiftUI view can `switch` on.
///
/// Rule: a screen never goes blank once it had something to show. A refresh that fails keeps the
/// last value and says why (`offline` when the server cannot be reached, `stale` with an error
/// otherwise); only a screen with nothing to show is `failed`.
public enum ScreenState<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Nothing to show yet; a load is under way.
    case loading
    /// A value the server just confirmed.
    case content(Value, fetchedAt: Date)
    /// A cached value, `age` seconds old, shown while the server is asked again or after the
    /// server answered with an error (`problem` says what it said).
    case stale(Value, age: TimeInterval, problem: String?)
    /// A cached value, `age` seconds old, shown because the server cannot be reached.
    case offline(Value, age: TimeInterval, reason: String)
    /// Nothing to show. `signInRequired` when the server refused the credential (O-ERR-2).
    case failed(reason: String, signInRequired: Bool)

    /// The value on screen, if any.
    public var value: Value? {
        switch self {
        case .content(let value, _), .stale(let value, _, _), .offline(let value, _, _): return value
        case .loading, .failed: return nil
        }
    }

    /// Whether a load is still expected to replace what is shown.
    public var isLoading: Bool {
        switch self {
        case .loading: return true
        case .stale(_, _, let problem): return problem == nil
        default: return false
        }
    }

    /// The state after a load failed with `error`: the last value kept (offline or stale), or failed.
    public func failing(with error: HTTPError, age: TimeInterval) -> ScreenState {
        let signIn = error.statusCode == 401
        guard let value else { return .failed(reason: error.description, signInRequired: signIn) }
        if error.isConnectivity { return .offline(value, age: age, reason: error.description) }
        if signIn { return .failed(reason: error.description, signInRequired: true) }
        return .stale(value, age: age, problem: error.description)
    }

    /// The same state with its value transformed.
    public func map<Other: Sendable & Equatable>(_ transform: (Value) -> Other) -> ScreenState<Other> {
        switch self {
        case .loading: return .loading
        case .content(let value, let fetchedAt): return .content(transform(value), fetchedAt: fetchedAt)
        case .stale(let value, let age, let problem): return .stale(transform(value), age: age, problem: problem)
        case .offline(let value, let age, let reason): return .offline(transform(value), age: age, reason: reason)
        case .failed(let reason, let signIn): return .failed(reason: reason, signInRequired: signIn)
        }
    }
}
