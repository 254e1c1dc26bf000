import CompanionHTTP
import Foundation

/// Everything that can end or stall a sign-in, a refresh or a credential's use.
///
/// Rule: each case is a situation a person handles differently (retype, wait, sign in again, tell the
/// admin), carries the server's own sentence when there is one, and never carries a secret: no
/// password, token, code or cookie value appears in an associated value or in `description`.
public enum AuthError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The address does not lead to a server of the expected kind (or to none at all).
    case notRecognized(reason: String)
    /// The user name or password was wrong; `serverSentence` is what the server said.
    case wrongCredentials(serverSentence: String?)
    /// The second-factor code was wrong, expired or already used.
    case wrongCode(serverSentence: String?)
    /// The new password was refused (too weak, same as before).
    case passwordRefused(serverSentence: String?)
    /// The server requires a setup step that only its web interface offers.
    case needsWebSetup(url: URL?)
    /// The credential in use may not mint another one: only a real sign-in can (Certain C-TOK-7).
    case tokenCannotMint(serverSentence: String?)
    /// The stored credential was revoked, ended or expired (401, 403 or 410); the app is signed out.
    case signedOut(status: Int, serverSentence: String?)
    /// Refreshing an expired access token failed; the app is signed out rather than retrying.
    case refreshFailed(serverSentence: String?)
    /// An OAuth callback did not match the request that started it (state, nonce, error, missing code).
    case callbackRejected(reason: String)
    /// The browser step was cancelled by the person.
    case cancelled
    /// A ticket poll ran out of time or the server gave the ticket up.
    case ticketExpired(reason: String)
    /// A step was asked for that the current state does not allow (a programming error in the caller).
    case invalidStep(String)
    /// The server's reply did not fit the sign-in protocol.
    case unexpectedReply(String)
    /// The network or server failed; the underlying error says which.
    case http(HTTPError)
    /// The secret store failed.
    case store(SecretStoreError)
    /// The server ended a sign-in attempt of several steps; the next attempt starts a new one.
    case signInEnded(SignInEnd, serverSentence: String?)

    /// A sentence a person can act on; it never contains a secret value.
    public var description: String {
        switch self {
        case .notRecognized(let reason):
            return "This address does not lead to a supported server: \(reason)"
        case .wrongCredentials(let sentence):
            return sentence.map { "Sign-in refused: \($0)" } ?? "The user name or password is wrong. Try again."
        case .wrongCode(let sentence):
            return sentence.map { "The code was refused: \($0)" }
                ?? "The code is wrong or was already used. Enter the current code."
        case .passwordRefused(let sentence):
            return sentence.map { "The new password was refused: \($0)" }
                ?? "The new password was refused. Choose another one."
        case .needsWebSetup(let url):
            let place = url.map { " at \($0.absoluteString)" } ?? ""
            return "This account needs a setup step the app does not offer. Finish it in the web interface\(place)."
        case .tokenCannotMint(let sentence):
            let said = sentence.map { " The server said: \($0)" } ?? ""
            return "A device token cannot create another token; this needs a real sign-in with your password.\(said)"
        case .signedOut(let status, let sentence):
            let said = sentence.map { " The server said: \($0)" } ?? ""
            return "You were signed out (status \(status)): the sign-in was ended or revoked. Sign in again.\(said)"
        case .refreshFailed(let sentence):
            let said = sentence.map { " The server said: \($0)" } ?? ""
            return "The sign-in could not be renewed, so you were signed out. Sign in again.\(said)"
        case .callbackRejected(let reason):
            return "The sign-in reply from the browser was refused: \(reason). Start the sign-in again."
        case .cancelled:
            return "The sign-in was cancelled."
        case .ticketExpired(let reason):
            return "The browser sign-in was not finished in time: \(reason). Start it again."
        case .invalidStep(let detail):
            return "That sign-in step is not possible now: \(detail)."
        case .unexpectedReply(let detail):
            return
                "The server's sign-in reply was not understood: \(detail). The server may run an unsupported version."
        case .http(let error):
            return error.description
        case .store(let error):
            return error.description
        case .signInEnded(let reason, let sentence):
            let said = sentence.map { " The server said: \($0)" } ?? ""
            return reason.sentence + said
        }
    }

    /// The same sentence, for `LocalizedError` users (SwiftUI alerts).
    public var errorDescription: String? { description }
}

/// Why a server ended a sign-in attempt of several steps (a login flow with a second factor).
public enum SignInEnd: String, Sendable, Hashable, Codable {
    /// Too many wrong codes.
    case tooManyAttempts
    /// The attempt took too long.
    case expired
    /// The device changed network between two steps.
    case networkChanged
    /// The server no longer knows the attempt.
    case lost
    /// The server refused the form of what was sent.
    case malformed
    /// The server refused the app's redirect address.
    case invalidRedirect
    /// The server refused the app's client id.
    case invalidClient
    /// Another reason, in the server's sentence.
    case other

    /// A sentence a person can act on.
    public var sentence: String {
        switch self {
        case .tooManyAttempts: return "Too many wrong codes: sign in again with your password."
        case .expired: return "The sign-in took too long: sign in again with your password."
        case .networkChanged: return "The device changed network during the sign-in: sign in again."
        case .lost: return "The server no longer knows this sign-in attempt: sign in again."
        case .malformed: return "The server did not accept what was sent: sign in again."
        case .invalidRedirect: return "The server does not accept this app's sign-in return address."
        case .invalidClient: return "The server does not accept this app's client id."
        case .other: return "The server ended the sign-in: sign in again."
        }
    }
}
