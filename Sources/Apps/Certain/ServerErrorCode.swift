/// The error codes Certain's server sends in `{"detail", "code"}`, each with a text in both catalogs.
public enum ServerErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No credential, or a pending one.
    case notAuthenticated = "not_authenticated"
    /// Wrong name or password.
    case invalidCredentials = "invalid_credentials"
    /// Wrong second-factor code.
    case invalidCode = "invalid_code"
    /// A cookie session older than 30 days.
    case sessionExpired = "session_expired"
    /// The device token was revoked.
    case tokenRevoked = "token_revoked"
    /// The password must be changed first.
    case passwordChangeRequired = "password_change_required"
    /// A second factor must be set up in the browser.
    case mfaSetupRequired = "mfa_setup_required"
    /// A device token tried to mint another.
    case tokenCannotMint = "token_cannot_mint"
    /// Only a cookie session may do this.
    case cookieRequired = "cookie_required"
    /// No such thing.
    case notFound = "not_found"
    /// The new password was refused.
    case weakPassword = "weak_password"
    /// An idempotency key was reused with another body.
    case idempotencyKeyReused = "idempotency_key_reused"

    /// The catalog key of its text.
    public var textKey: String { "code.\(rawValue)" }
}
