import CompanionHTTP
import CompanionSync
import Foundation

extension ScreenState {
    /// The state a published value puts a screen in (stale-while-revalidate marks cached values with their age).
    public init(_ loaded: Loaded<Value>) {
        switch loaded.origin {
        case .network, .notModified:
            self = .content(loaded.value, fetchedAt: loaded.fetchedAt)
        case .cache:
            if let failure = loaded.failure {
                self =
                    failure.isConnectivity
                    ? .offline(loaded.value, age: loaded.age, reason: failure.description)
                    : .stale(loaded.value, age: loaded.age, problem: failure.description)
            } else {
                self = .stale(loaded.value, age: loaded.age, problem: nil)
            }
        }
    }

    /// The state after a load failed with `error`, keeping what is on screen.
    public func failing(with error: any Error) -> ScreenState {
        let age: TimeInterval
        switch self {
        case .stale(_, let value, _), .offline(_, let value, _): age = value
        default: age = 0
        }
        switch error {
        case let error as HTTPError: return failing(with: error, age: age)
        case SyncError.http(let error): return failing(with: error, age: age)
        case SyncError.offlineWithoutCache(_, let cause): return failing(with: cause, age: age)
        default:
            if let value { return .stale(value, age: age, problem: String(describing: error)) }
            return .failed(reason: String(describing: error), signInRequired: false)
        }
    }
}
