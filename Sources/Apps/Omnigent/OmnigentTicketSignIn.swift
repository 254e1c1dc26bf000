import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Omnigent's browser sign-in by ticket (O-AUTH-8, O-AUTH-9), for an OIDC server the native PKCE flow
/// does not fit (`SignInRoute.ticket`): the kit's `TicketPollFlow` on Omnigent 0.19.1's paths.
///
/// Rules: `POST <mount>/auth/cli-login` with an S256 `code_challenge` → `{ticket, login_url}`; an empty
/// ticket, or a `login_url` that is not a same-origin relative path (absolute, another origin, `//host`),
/// aborts before any browser opens or any poll is made. Then `GET <mount>/auth/cli-poll?ticket=` every 2 s with the verifier in
/// `X-Omnigent-Code-Verifier` (0.19.1 refuses a poll without it): 202 keeps polling, 200
/// `{token, expires_in}` is the session when the token is JWT-shaped (any other is refused, never stored
/// or sent), 410 stops as expired (the server's reason kept), and after 5 minutes it stops as timed out.
/// Waiting goes through the client's `Sleeper` and `WallClock`.
public struct OmnigentTicketSignIn: Sendable {
    /// Where the ticket is started.
    public static let startPath = "/auth/cli-login"
    /// Where the ticket is polled.
    public static let pollPath = "/auth/cli-poll"
    /// The header that proves the poller started the ticket.
    public static let verifierHeader = "X-Omnigent-Code-Verifier"

    /// The server (with its mount).
    public let address: ServerAddress
    /// A client on the mount, without credential middleware; its sleeper and clock time the polls.
    public let client: Client

    /// Creates the sign-in for `address`, calling through `client` (based on `address.url`).
    public init(address: ServerAddress, client: Client) {
        self.address = address
        self.client = client
    }

    /// Creates the sign-in for `address` on the environment's client (its clock and sleeper time the polls).
    public init(address: ServerAddress, environment: AppEnvironment) {
        self.init(address: address, client: environment.client(for: address.url, profile: OmnigentServer.profile))
    }

    /// The kit's flow on Omnigent's paths: every 2 s, for at most 5 minutes.
    public func flow(opener: any BrowserOpener) -> TicketPollFlow {
        var flow = TicketPollFlow(
            address: address, client: client, opener: opener, startPath: Self.startPath, pollPath: Self.pollPath)
        flow.proofHeader = Self.verifierHeader
        flow.tokenShape = .jwt
        flow.interval = .seconds(2)
        flow.limit = .seconds(300)
        return flow
    }

    /// Runs the flow, then asks `/v1/me` whose token it is; the token becomes the web view's cookie.
    public func signIn(opener: any BrowserOpener) async throws(AuthError) -> OmnigentOIDCSession {
        let (token, expiresAt) = try await flow(opener: opener).run()
        let oidc = OmnigentOIDCSignIn(address: address, client: client)
        guard let userID = try await oidc.acceptedUser(token) else {
            throw .unexpectedReply("the server did not accept the token it handed out")
        }
        let now = client.configuration.clock.now()
        return OmnigentOIDCSession(
            userID: userID,
            cookie: try OmnigentSessionCookie(
                token: token, address: address, expiresIn: expiresAt.timeIntervalSince(now), now: now),
            refreshToken: nil, source: .ticket)
    }
}
