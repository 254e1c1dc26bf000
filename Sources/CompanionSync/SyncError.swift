import CompanionHTTP
import CompanionStore

/// What can go wrong between the store and the network.
///
/// Rule: a network failure and a store failure stay what they are (their own typed errors, with
/// the server's sentence); the cases added here are the ones only the joining layer can see.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The policy allowed no network and nothing is cached: an offline error state, never an empty success.
    case notCached(key: String)
    /// The network failed and nothing is cached to fall back on.
    case offlineWithoutCache(key: String, cause: HTTPError)
    /// The reply arrived but did not decode; the previous cached copy is kept.
    case undecodable(key: String, detail: String)
    /// The network layer failed.
    case http(HTTPError)
    /// The store failed.
    case store(StoreError)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .notCached(let key):
            return "\(key) has not been read yet and the app may not go online for it. Connect and try again."
        case .offlineWithoutCache(let key, let cause):
            return "\(key) could not be read and no copy is kept offline. \(cause.description)"
        case .undecodable(let key, let detail):
            return "The reply for \(key) could not be read (\(detail)); the last good copy is kept."
        case .http(let error):
            return error.description
        case .store(let error):
            return error.description
        }
    }

    /// The HTTP failure `error` is or carries (a network failure, or one with no cached copy to fall back on).
    public static func httpFailure(in error: any Error) -> HTTPError? {
        switch error {
        case let error as HTTPError: return error
        case SyncError.http(let error): return error
        case SyncError.offlineWithoutCache(_, let cause): return cause
        default: return nil
        }
    }

    /// Wraps any error from the network, the store or a decoder.
    static func wrap(_ error: any Error) -> SyncError {
        if let error = error as? SyncError { return error }
        if let error = error as? HTTPError { return .http(error) }
        if let error = error as? StoreError { return .store(error) }
        return .http(HTTPError.wrap(error, url: nil))
    }
}
