import CompanionAuth
import Foundation
import Observation

/// The sign-in screen: a name and a password, nothing else.
///
/// Rules: there is no address field (M-AUTH-1) and no token field (M-AUTH-4); the password is cleared
/// after every attempt and stored nowhere (M-AUTH-2); a refusal shows the server's sentence and stores
/// nothing (M-AUTH-5); a passkey-only account is told where to set a password, and the app offers no
/// passkey path (M-AUTH-6).
@Observable @MainActor
public final class SignInScreen {
    /// Where the screen is.
    public enum Phase: Sendable, Hashable {
        /// Waiting for input.
        case idle
        /// The request is under way.
        case signingIn
        /// Signed in as this person.
        case signedIn(Person)
        /// Wrong name or password: the server's sentence.
        case refused(String)
        /// No password on the account: the server's sentence, pointing to the web app.
        case passwordNotSet(String)
        /// The call failed.
        case failed(String)
    }

    /// What the app says about passkeys.
    public static let passkeyNote = "A passkey does not work in the app."

    /// The name typed.
    public var name = ""
    /// The password typed; cleared after each attempt.
    public var password = ""
    /// Where the screen is.
    public private(set) var phase: Phase = .idle

    private let connection: MainworthyConnection

    /// Creates the screen.
    public init(connection: MainworthyConnection) {
        self.connection = connection
    }

    /// Whether Sign in can be pressed.
    public var canSubmit: Bool {
        !name.trimmingCharacters(in: .whitespaces).isEmpty && !password.isEmpty && phase != .signingIn
    }

    /// Signs in with what was typed.
    public func submit() async {
        guard canSubmit else { return }
        let typed = password
        password = ""
        phase = .signingIn
        do throws(SignInFailure) {
            let opened = try await connection.signIn(name: name.trimmingCharacters(in: .whitespaces), password: typed)
            phase = .signedIn(opened.user)
        } catch {
            switch error {
            case .invalidCredentials(let sentence): phase = .refused(sentence)
            case .passwordNotSet(let sentence): phase = .passwordNotSet(sentence)
            case .connection(let failure): phase = .failed(failure.description)
            }
        }
    }
}
