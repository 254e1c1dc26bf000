import CompanionAuth
import CompanionHTTP
import CompanionSync
import Foundation

/// What went wrong with a Mainworthy call, as the screens tell it.
///
/// Rules (M-NET-1, M-NET-4, O-7, O-21): a request that never left is `notConnected` and nothing is
/// queued; a reply lost after the request left is `unconfirmed` (the write may have happened); a
/// server's refusal carries its `message` word for word; a 401 anywhere is `signedOut`. No case holds
/// a secret.
public enum MainworthyError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The request never left: no connection, or the server refused the connection.
    case notConnected(HTTPError)
    /// The request left, but no reply came back (reset, timeout, cut-off body), after any resends.
    case unconfirmed(HTTPError)
    /// The server refused: its status, code and sentence, and for 409 `decision_changed` the decision
    /// standing now.
    case refused(ServerRefusal)
    /// The session is gone (401): signed out, drafts kept.
    case signedOut(serverSentence: String?)
    /// The input was refused before anything was sent.
    case input(InputProblem)
    /// Any other failure (a reply that did not decode, a secret store that failed).
    case other(String)

    /// Classifies a failure of a call; with `client`, a refusal's decision standing now is decoded as the client
    /// decodes replies.
    public init(_ error: HTTPError, client: Client? = nil) {
        switch error {
        case .offline, .unreachable:
            self = .notConnected(error)
        case .connectionLost, .timedOut:
            self = .unconfirmed(error)
        case .status(let failure) where failure.status == 401:
            self = .signedOut(serverSentence: failure.envelope?.message)
        case .status(let failure):
            self = .refused(ServerRefusal(failure, client: client))
        default:
            self = .other(error.description)
        }
    }

    /// Classifies a failed read through the store: its HTTP failure as above, anything else (nothing stored, a
    /// reply that did not decode, the store) in its own words.
    public init(_ error: SyncError, client: Client? = nil) {
        if let failure = SyncError.httpFailure(in: error) {
            self.init(failure, client: client)
        } else {
            self = .other(error.description)
        }
    }

    /// The refusal's code (`decision_changed`, `capability_missing`, …), if this is one.
    public var code: String? {
        if case .refused(let refusal) = self { return refusal.code }
        return nil
    }

    /// A sentence a person can act on; a server's sentence is given as it came.
    public var description: String {
        switch self {
        case .notConnected:
            return "There is no connection to the server, so nothing was sent. Connect and try again."
        case .unconfirmed:
            return
                "The server did not confirm this. It may or may not have been recorded; press Retry to send it again."
        case .refused(let refusal):
            return refusal.message
        case .signedOut(let sentence):
            return sentence ?? "You were signed out. Sign in again."
        case .input(let problem):
            return problem.description
        case .other(let detail):
            return detail
        }
    }

    /// The same sentence, for `LocalizedError` users (SwiftUI alerts).
    public var errorDescription: String? { description }
}

extension MainworthyError {
    /// Whether the request left and no reply came.
    public var isUnconfirmed: Bool {
        if case .unconfirmed = self { return true }
        return false
    }
}
