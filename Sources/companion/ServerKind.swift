import AllauthAdapter
import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation
import OmnigentCore

/// The sign-in servers the terminal client knows, and everything that differs between them: how to
/// sign in, who-am-I, refresh, sessions and sign-out. Adding a kind is one case here; `AuthCommands`
/// never compares kinds as strings.
enum ServerKind: String, CaseIterable, Codable, Sendable {
    /// A Certain server (username and password, second factor, forced change; a long-lived token).
    case certain
    /// A django-allauth headless server (session token; a sessions list).
    case allauth
    /// An Omnigent server in accounts mode (OAuth tokens with refresh).
    case omnigent

    /// The names, for a usage text: `certain|allauth|omnigent`.
    static var choices: String { allCases.map(\.rawValue).joined(separator: "|") }

    /// The product name, for sentences.
    var displayName: String {
        switch self {
        case .certain: "Certain"
        case .allauth: "django-allauth"
        case .omnigent: "Omnigent accounts"
        }
    }

    /// The sign-in flow for this kind of server at `address`.
    func signIn(address: ServerAddress, client: Client) -> any SignInServer {
        switch self {
        case .allauth: return AllauthSignIn(address: address, client: client)
        case .omnigent: return OmnigentAccountsSignIn(address: address, client: client)
        case .certain:
            let host = ProcessInfo.processInfo.hostName
            return CertainSignIn(address: address, client: client, tokenName: "companion (\(host))")
        }
    }

    /// The path that answers who the credential belongs to.
    var whoamiPath: String {
        switch self {
        case .allauth: AllauthSignIn.prefix + "/auth/session"
        case .omnigent: "/auth/me"
        case .certain: "/api/auth/me"
        }
    }

    /// Which refusals end the stored credential (the server's own revocation signals).
    var revocationRule: RevocationRule {
        switch self {
        case .certain: CertainServer.revocation
        case .allauth: .allauth
        case .omnigent: .omnigent
        }
    }

    /// Whether the server lists the account's sessions to the app.
    var listsSessions: Bool { self == .allauth }

    /// How an expired credential is renewed, if it can be.
    func refresher(address: ServerAddress, client: Client) -> (any TokenRefresher)? {
        switch self {
        case .omnigent:
            OAuthRefresher(
                oauth: OAuthClient(address: address, client: client, configuration: OmnigentAccountsSignIn.oauth))
        case .certain, .allauth: nil
        }
    }

    /// Ends the credential on the server where it can be ended, and locally; returns the server's
    /// complaint when it did not confirm.
    func signOut(session: CredentialSession, client: Client) async -> AuthError? {
        switch self {
        case .certain: return await CertainSignIn.signOut(session: session, client: client)
        case .omnigent: return await OmnigentAccountsSignIn.signOut(session: session, client: client)
        case .allauth:
            _ = try? await client.send(Request<Void>.empty(.delete, AllauthSignIn.prefix + "/auth/session"))
            await session.signOut()
            return nil
        }
    }
}
