import CompanionHTTP
import CompanionSync
import Foundation

extension ScreenState {
    /// The state a published value puts a screen in (stale-while-revalidate marks cached values with their age).
    public init(_ loaded: Loaded<Value>) {
        self.init(loaded, isEmpty: { _ in false })
    }

    /// The state a published value puts a screen in; a fresh answer for which `isEmpty` holds is `empty`.
    ///
    /// A stored copy that is empty stays `stale` or `offline` with its value: that it is old, or that the
    /// server cannot be reached, matters more than that it is empty.
    public init(_ loaded: Loaded<Value>, isEmpty: (Value) -> Bool) {
        switch loaded.origin {
        case .network, .notModified:
            self =
                isEmpty(loaded.value)
                ? .empty(fetchedAt: loaded.fetchedAt) : .content(loaded.value, fetchedAt: loaded.fetchedAt)
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
        if let http = SyncError.httpFailure(in: error) { return failing(with: http, age: age ?? 0) }
        if let value { return .stale(value, age: age ?? 0, problem: String(describing: error)) }
        return .failed(reason: String(describing: error), signInRequired: false)
    }
}
