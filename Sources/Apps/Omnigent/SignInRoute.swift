import CompanionCore
import Foundation

/// How the app signs in to a server, decided from its manifest and host (O-AUTH-11, O-OPEN-16, O-URL-10).
public enum SignInRoute: Sendable, Hashable {
    /// No sign-in step (header or none mode; O-AUTH-2).
    case none
    /// Username and password through the kit's sign-in model (accounts mode; O-AUTH-3).
    case accounts
    /// The native PKCE flow in the system browser (O-AUTH-11/12).
    case pkce(redirectURI: String)
    /// The ticket flow: open the server's login page, poll for the token (O-AUTH-8/9).
    case ticket
    /// Sign-in inside the web view (Databricks hosts, custom modes).
    case webView

    /// The redirect URI the iOS app registers for native sign-in.
    public static let iOSRedirectURI = "ai.omnigent.ios:/oauth/callback"

    /// The route for `connection`.
    public init(_ connection: ServerConnection) {
        if HostKind(host: connection.address.host).signsInInWebView {
            self = .webView
            return
        }
        switch connection.authMode {
        case .header, .none: self = .none
        case .accounts: self = .accounts
        case .custom: self = .webView
        case .oidc:
            let auth = connection.manifest?.auth
            if (auth?.nativeRedirectURIs ?? []).contains(Self.iOSRedirectURI), auth?.sessionCookie != nil {
                self = .pkce(redirectURI: Self.iOSRedirectURI)
            } else {
                self = .ticket
            }
        }
    }
}
