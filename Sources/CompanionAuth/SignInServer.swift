import CompanionCore
import Foundation

/// One server's sign-in protocol, as the state machine drives it. Each server kind (Certain,
/// django-allauth, Omnigent accounts, an app's own) implements this once; the model and the machine stay
/// the same.
///
/// Rules: passwords and codes pass through as arguments and are never kept by an implementation after
/// the call; every method answers with a `ServerStep` (or throws `AuthError` for failures that are not a
/// refusal of the step), so the machine never sees HTTP.
public protocol SignInServer: Sendable {
    /// Checks, without credentials, that a supported server answers (Certain C-ADDR-3).
    func probe() async throws(AuthError)
    /// Sends user name and password.
    func signIn(username: String, password: String) async throws(AuthError) -> ServerStep
    /// Sends a second-factor code.
    func submitCode(_ code: String, kind: SecondFactorKind) async throws(AuthError) -> ServerStep
    /// Sends a forced password change.
    func changePassword(current: String, new: String) async throws(AuthError) -> ServerStep
    /// After `.authenticated`: issues the long-lived credential (mints a device token, or keeps the
    /// session token) and returns it with the user's id; any sign-in cookie is dropped.
    func issueCredential() async throws(AuthError) -> StoredCredential
}

extension SignInServer {
    /// Servers without a second factor refuse the step (it is never offered by their replies).
    public func submitCode(_ code: String, kind: SecondFactorKind) async throws(AuthError) -> ServerStep {
        .refused(.invalidStep("this server has no second factor"))
    }

    /// Servers without a forced password change refuse the step.
    public func changePassword(current: String, new: String) async throws(AuthError) -> ServerStep {
        .refused(.invalidStep("this server has no forced password change"))
    }
}
