import CompanionAuth
import CompanionCore
import Foundation

/// The cookie the app installs in its own isolated web-view cookie store after a sign-in (O-AUTH-7,
/// O-AUTH-10).
///
/// Rules, as the real app makes it: the value is Omnigent's session token, and only a JWT-shaped one
/// (`TokenShape.jwt`) becomes a cookie: a reply carrying `aaa.bbb.ccc; Domain=evil.example` would otherwise
/// inject a cookie attribute, and an empty token an empty session. `__Host-ap_session` on https (`Secure`,
/// `Path=/`, no `Domain`), `ap_session` on http; it lives `expires_in` seconds, or 8 hours when the server
/// gave none, so it outlives the app's process; a session the server already reports as expired (`expires_in`
/// of 0 or less) is refused. The value is a secret: `description` never shows it.
public struct OmnigentSessionCookie: Sendable, Hashable, CustomStringConvertible {
    /// `__Host-ap_session` on https, `ap_session` on http.
    public var name: String
    /// The session token (a secret).
    public var value: String
    /// Always `/`.
    public var path: String
    /// Set on https (the `__Host-` prefix requires it).
    public var secure: Bool
    /// Never set: a host-only cookie (the `__Host-` prefix forbids a Domain).
    public var domain: String?
    /// When it expires: `expires_in` from now, or 8 hours when the server sent none.
    public var expiresAt: Date

    /// The lifetime used when the server gives no `expires_in` (8 hours, the server's own default).
    public static let defaultLifetime: TimeInterval = 28_800

    /// The cookie for `token`, issued for `address` at `now`; refuses a token that is not JWT-shaped and an
    /// `expiresIn` of zero or less.
    public init(token: String, address: ServerAddress, expiresIn: TimeInterval?, now: Date) throws(AuthError) {
        guard TokenShape.jwt.accepts(token) else {
            throw .unexpectedReply("the server handed out a session token that is not in the expected form")
        }
        if let expiresIn, !(expiresIn > 0) {
            throw .unexpectedReply("the server handed out a session that has already expired")
        }
        self.init(
            name: Self.name(for: address), value: token, address: address,
            expiresAt: now + (expiresIn ?? Self.defaultLifetime))
    }

    private init(name: String, value: String, address: ServerAddress, expiresAt: Date) {
        self.name = name
        self.value = value
        path = "/"
        secure = address.scheme == "https"
        domain = nil
        self.expiresAt = expiresAt
    }

    /// The cookie that clears the session cookie of `address` from the web view's store: the same name, no
    /// value, expired long ago.
    public static func cleared(for address: ServerAddress) -> OmnigentSessionCookie {
        OmnigentSessionCookie(
            name: name(for: address), value: "", address: address, expiresAt: Date(timeIntervalSince1970: 0))
    }

    /// The cookie's name on `address`.
    public static func name(for address: ServerAddress) -> String {
        address.scheme == "https" ? "__Host-ap_session" : "ap_session"
    }

    /// The attributes, without the value.
    public var description: String {
        "\(name)=…; Path=\(path)\(secure ? "; Secure" : ""); HttpOnly; Expires=\(expiresAt)"
    }
}
