import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Mainworthy's sign-in as the kit's sign-in flow drives it (`SignInServer`), so a generic sign-in
/// (the terminal's `companion login`) stores the same cookie session the app's own screen does.
///
/// Rules: one step, name and password (no second factor, no token, M-AUTH-4); a wrong password and a
/// passkey-only account are refusals carrying the server's sentence (M-AUTH-5, M-AUTH-6); the cookie
/// lives here only between the step and `issueCredential()`.
public actor MainworthySignIn: SignInServer {
    private let connection: MainworthyConnection
    private var pending: StoredCredential?

    /// Creates the sign-in over `connection`.
    public init(connection: MainworthyConnection) {
        self.connection = connection
    }

    /// `GET /api/version` must name `mainworthy`.
    public func probe() async throws(AuthError) {
        let version: ServerVersion
        do {
            version = try await connection.read(MainworthyAPI.version())
        } catch {
            throw .notRecognized(reason: error.description)
        }
        guard version.name == "mainworthy" else {
            throw .notRecognized(reason: "the server there is not Mainworthy (GET /api/version names \(version.name)).")
        }
    }

    /// Opens the session; the credential waits for `issueCredential()`.
    public func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        do throws(SignInFailure) {
            pending = try await connection.openSession(name: username, password: password).1
            return .authenticated
        } catch {
            switch error {
            case .invalidCredentials(let sentence), .passwordNotSet(let sentence):
                return .refused(.wrongCredentials(serverSentence: sentence))
            case .connection(let failure):
                throw .unexpectedReply(failure.description)
            }
        }
    }

    /// The cookie session opened by `signIn`.
    public func issueCredential() async throws(AuthError) -> StoredCredential {
        defer { pending = nil }
        guard let pending else { throw .invalidStep("no session was opened") }
        return pending
    }
}
