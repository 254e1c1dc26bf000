import CompanionCore
import Foundation

/// The kinds of second factor a server may accept.
public enum SecondFactorKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A 6-digit time-based code (RFC 6238).
    case totp
    /// A single-use recovery code.
    case recoveryCode
}

/// What the server asks for next after a sign-in step: the reply a transition reads.
public enum ServerStep: Sendable, Hashable {
    /// The person is signed in; the credential can be issued (or minted) and stored.
    case authenticated
    /// A second factor is needed; the kinds the server accepts.
    case secondFactor([SecondFactorKind])
    /// The password must be changed before anything else (Certain C-AUTH-5).
    case passwordChange
    /// A setup step only the web interface offers (Certain C-AUTH-6); the app shows the link, mints nothing.
    case webSetup(URL?)
    /// The step was refused; the error says why (wrong password, wrong code, weak password).
    case refused(AuthError)
    /// The server ended this sign-in attempt (too many codes, too slow, the device changed network): the person
    /// starts over at the password step, where the error says why, and the next attempt is a new one.
    case ended(AuthError)
}

/// One screen of sign-in as a value. Waiting states (`probing`, `submitting…`) exist so a screen can show
/// progress and refuse a second tap; nothing secret is ever part of a state.
public enum SignInState: Sendable, Hashable {
    /// Asking for the server address; `problem` says why the last one failed.
    case enteringAddress(problem: AuthError?)
    /// Checking that a supported server answers at the address.
    case probing(ServerAddress)
    /// Asking for user name and password.
    case enteringPassword(ServerAddress, problem: AuthError?)
    /// The password was sent.
    case submittingPassword(ServerAddress, username: String)
    /// Asking for a second-factor code of one of `kinds`.
    case enteringCode(ServerAddress, username: String, kinds: [SecondFactorKind], problem: AuthError?)
    /// A code was sent.
    case submittingCode(ServerAddress, username: String, kinds: [SecondFactorKind])
    /// Asking for the current and a new password (a forced change).
    case changingPassword(ServerAddress, username: String, problem: AuthError?)
    /// The new password was sent.
    case submittingNewPassword(ServerAddress, username: String)
    /// Signed in on the server; the long-lived credential is being issued and stored.
    case storingCredential(ServerAddress, username: String)
    /// The server wants a setup only its web interface offers; the app shows `url` and stops.
    case needsWebSetup(ServerAddress, url: URL?)
    /// Done: a credential for `account` is stored.
    case signedIn(AccountKey)
}

/// An input to the sign-in machine: what the person did, or what the server answered.
public enum SignInEvent: Sendable {
    /// The person entered an address (already parsed by the transport policy).
    case addressEntered(ServerAddress)
    /// The probe found a supported server, or failed for `AuthError`.
    case probeAnswered(Result<Void, AuthError>)
    /// The person sent user name and password (the password itself is not part of the event).
    case passwordSubmitted(username: String)
    /// The person sent a code.
    case codeSubmitted
    /// The person sent current and new password.
    case newPasswordSubmitted
    /// The server answered the last submitted step.
    case serverAnswered(ServerStep)
    /// The credential was stored for the account, or storing (minting) failed.
    case credentialStored(Result<AccountKey, AuthError>)
    /// The person went back to the start (another address).
    case restart
}

extension SignInState {
    /// The next state after `event`: a pure function, so each transition is tested on its own.
    ///
    /// Rules: an event that does not fit the state leaves it unchanged (a late reply after `restart` is
    /// ignored); a refusal stays on the step it refused, with the server's reason (C-AUTH-2, C-AUTH-3); an attempt
    /// the server ended goes back to the password step with its reason (H-AUTH-6);
    /// a failed credential store or mint goes back to the password step, never onward with the
    /// sign-in cookie (C-TOK-9); `restart` always returns to the address.
    public func next(_ event: SignInEvent) -> SignInState {
        switch (self, event) {
        case (_, .restart):
            return .enteringAddress(problem: nil)
        case (.enteringAddress, .addressEntered(let address)):
            return .probing(address)
        case (.probing(let address), .probeAnswered(.success)):
            return .enteringPassword(address, problem: nil)
        case (.probing, .probeAnswered(.failure(let error))):
            return .enteringAddress(problem: error)
        case (.enteringPassword(let address, _), .passwordSubmitted(let username)):
            return .submittingPassword(address, username: username)
        case (.submittingPassword(let address, let username), .serverAnswered(let step)):
            return Self.after(step, address: address, username: username) {
                .enteringPassword(address, problem: $0)
            }
        case (.enteringCode(let address, let username, let kinds, _), .codeSubmitted):
            return .submittingCode(address, username: username, kinds: kinds)
        case (.submittingCode(let address, let username, let kinds), .serverAnswered(let step)):
            return Self.after(step, address: address, username: username) {
                .enteringCode(address, username: username, kinds: kinds, problem: $0)
            }
        case (.changingPassword(let address, let username, _), .newPasswordSubmitted):
            return .submittingNewPassword(address, username: username)
        case (.submittingNewPassword(let address, let username), .serverAnswered(let step)):
            return Self.after(step, address: address, username: username) {
                .changingPassword(address, username: username, problem: $0)
            }
        case (.storingCredential, .credentialStored(.success(let account))):
            return .signedIn(account)
        case (.storingCredential(let address, _), .credentialStored(.failure(let error))):
            return .enteringPassword(address, problem: error)
        default:
            return self
        }
    }

    private static func after(
        _ step: ServerStep, address: ServerAddress, username: String, stay: (AuthError) -> SignInState
    ) -> SignInState {
        switch step {
        case .authenticated: return .storingCredential(address, username: username)
        case .secondFactor(let kinds): return .enteringCode(address, username: username, kinds: kinds, problem: nil)
        case .passwordChange: return .changingPassword(address, username: username, problem: nil)
        case .webSetup(let url): return .needsWebSetup(address, url: url)
        case .refused(let error): return stay(error)
        case .ended(let error): return .enteringPassword(address, problem: error)
        }
    }

    /// The server address once one is chosen.
    public var address: ServerAddress? {
        switch self {
        case .enteringAddress, .signedIn: return nil
        case .probing(let address), .enteringPassword(let address, _), .submittingPassword(let address, _),
            .enteringCode(let address, _, _, _), .submittingCode(let address, _, _),
            .changingPassword(let address, _, _), .submittingNewPassword(let address, _),
            .storingCredential(let address, _), .needsWebSetup(let address, _):
            return address
        }
    }

    /// Whether a request is in flight (the screen shows progress and accepts no input).
    public var isWaiting: Bool {
        switch self {
        case .probing, .submittingPassword, .submittingCode, .submittingNewPassword, .storingCredential: return true
        default: return false
        }
    }

    /// The reason shown on the current step, if any.
    public var problem: AuthError? {
        switch self {
        case .enteringAddress(let problem), .enteringPassword(_, let problem), .enteringCode(_, _, _, let problem),
            .changingPassword(_, _, let problem):
            return problem
        default: return nil
        }
    }
}
