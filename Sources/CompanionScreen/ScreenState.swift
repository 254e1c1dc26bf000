import Foundation

/// What a screen shows, as one value a SwiftUI view can `switch` on.
///
/// Rules:
/// - A screen never goes blank once it had something to show. A refresh that fails keeps the last value and
///   says why (`offline` when the server cannot be reached, `stale` with the error otherwise, a refused
///   credential included); only a screen with nothing to show is `failed`. Whether a refusal ends the sign-in
///   (and whether the app then deletes what it kept) is the app's revocation rule, applied where the server's
///   parts are joined (`ServerBundle` in CompanionApp), not here.
/// - `empty` is an answer with nothing in it (an empty month, a search without hits), told apart from
///   content so a view can show its empty placeholder; it is never a failure.
public enum ScreenState<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Nothing to show yet; a load is under way.
    case loading
    /// A value the server just confirmed.
    case content(Value, fetchedAt: Date)
    /// The server answered, and the answer has nothing to show: its value is kept (a month's totals, a list's
    /// revision) for what a view shows around its empty placeholder.
    case empty(Value, fetchedAt: Date)
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
        case .content(let value, _), .empty(let value, _), .stale(let value, _, _), .offline(let value, _, _):
            return value
        case .loading, .failed: return nil
        }
    }

    /// Which of the six states this is, without its values (for a view's switch or a JSON `state` field).
    public var kind: ScreenKind {
        switch self {
        case .loading: return .loading
        case .content: return .content
        case .empty: return .empty
        case .stale: return .stale
        case .offline: return .offline
        case .failed: return .failed
        }
    }

    /// How old what is shown is, in seconds: 0 for an answer the server just gave, the stored copy's age for a
    /// stale or offline one, `nil` when nothing is shown.
    public var age: TimeInterval? {
        switch self {
        case .content, .empty: return 0
        case .stale(_, let age, _), .offline(_, let age, _): return age
        case .loading, .failed: return nil
        }
    }

    /// When what is shown was fetched, where the state carries the time (content and empty).
    public var fetchedAt: Date? {
        switch self {
        case .content(_, let date), .empty(_, let date): return date
        default: return nil
        }
    }

    /// The sentence saying what went wrong: a stale value's problem, the offline reason, or why the screen
    /// failed; `nil` when nothing did.
    public var problem: String? {
        switch self {
        case .stale(_, _, let problem): return problem
        case .offline(_, _, let reason), .failed(let reason, _): return reason
        case .loading, .content, .empty: return nil
        }
    }

    /// Whether the screen failed because the server refused the credential.
    public var signInRequired: Bool {
        if case .failed(_, let signIn) = self { return signIn }
        return false
    }

    /// Whether a load is still expected to replace what is shown.
    public var isLoading: Bool {
        switch self {
        case .loading: return true
        case .stale(_, _, let problem): return problem == nil
        default: return false
        }
    }

    /// The age of what is shown at `now`: a value fetched at a known time ages with the clock.
    public func age(at now: Date) -> TimeInterval? {
        if let fetchedAt { return max(0, now.timeIntervalSince(fetchedAt)) }
        return age
    }

    /// This state for a screen of another value when it carries none (`loading`, or `failed` with its reason and
    /// sign-in flag), so a screen that waits on another one's data shows its wait or failure; `nil` when this
    /// state carries a value.
    public func withoutValue<Other: Sendable & Equatable>(as other: Other.Type = Other.self) -> ScreenState<Other>? {
        switch self {
        case .loading: return .loading
        case .failed(let reason, let signIn): return .failed(reason: reason, signInRequired: signIn)
        case .content, .empty, .stale, .offline: return nil
        }
    }

    /// The same state with its value transformed.
    public func map<Other: Sendable & Equatable>(_ transform: (Value) -> Other) -> ScreenState<Other> {
        switch self {
        case .loading: return .loading
        case .content(let value, let fetchedAt): return .content(transform(value), fetchedAt: fetchedAt)
        case .empty(let value, let fetchedAt): return .empty(transform(value), fetchedAt: fetchedAt)
        case .stale(let value, let age, let problem): return .stale(transform(value), age: age, problem: problem)
        case .offline(let value, let age, let reason): return .offline(transform(value), age: age, reason: reason)
        case .failed(let reason, let signIn): return .failed(reason: reason, signInRequired: signIn)
        }
    }
}

/// The six states of a screen, without their values.
public enum ScreenKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing yet; a load is under way.
    case loading
    /// A value the server just confirmed.
    case content
    /// An answer with nothing in it.
    case empty
    /// A stored value shown while asking again, or after the server answered with an error.
    case stale
    /// A stored value shown because the server cannot be reached.
    case offline
    /// Nothing to show.
    case failed
}
