import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation

/// O-ERR-2: when the server refuses the credential (401), a screen keeps what it shows and leads to
/// sign-in by the server's auth mode. There is no retry loop; drafts and caches stay.
enum SignInRequired {
    /// Whether `error` is the server refusing the credential.
    static func refused(_ error: any Error) -> HTTPError? {
        switch error {
        case let error as HTTPError where error.statusCode == 401: return error
        case SyncError.http(let error) where error.statusCode == 401: return error
        case SyncError.offlineWithoutCache(_, let cause) where cause.statusCode == 401: return cause
        default: return nil
        }
    }

    /// How to sign in again to `connection` when `error` is the server refusing the credential.
    static func route(after error: (any Error)?, on connection: ServerConnection) -> SignInRoute? {
        guard let error, refused(error) != nil else { return nil }
        return SignInRoute(connection)
    }
}

extension ScreenState {
    /// The state after a load failed with `error`. A 401 keeps the value on screen, marked stale with
    /// the server's sentence (the kit's rule would empty it); anything else follows the kit's rule.
    func keepingContent(failingWith error: any Error) -> ScreenState {
        guard let refusal = SignInRequired.refused(error), let value else { return failing(with: error) }
        let age: TimeInterval
        switch self {
        case .stale(_, let seconds, _), .offline(_, let seconds, _): age = seconds
        default: age = 0
        }
        return .stale(value, age: age, problem: refusal.description)
    }
}
