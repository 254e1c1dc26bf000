import CompanionCore
import CompanionHTTP
import Foundation

/// Opens a URL in the system browser without waiting for a callback (the ticket-poll flow learns the
/// outcome by polling).
public protocol BrowserOpener: Sendable {
    /// Opens `url`.
    func open(_ url: URL) async throws(AuthError)
}

/// A browser sign-in by ticket (Omnigent ships it on iOS): start a ticket, open its login page, poll until
/// the server hands out a token. The server's two paths are the app's to give.
///
/// Rules: `POST <startPath>` → `{ticket, login_url}`; an empty ticket, or a `login_url` that is not a
/// same-origin relative path (an absolute or protocol-relative URL, so a server can't send the person
/// elsewhere), aborts before any browser opens or any poll is made; poll `GET <pollPath>?ticket=` every
/// `interval` (2 s): 202 pending, 200 `{token, expires_in}` with a token of `tokenShape` (any other token
/// is refused and never returned), 410 given up; stop after `limit` (5 min). Waiting goes through the
/// injected `Sleeper` and time through the `WallClock`, so tests don't wait.
public struct TicketPollFlow: Sendable {
    /// The server.
    public let address: ServerAddress
    /// The client for the two calls.
    public let client: Client
    /// Opens the login page.
    public let opener: any BrowserOpener
    /// Time between polls.
    public var interval: Duration = .seconds(2)
    /// How long to poll before giving up.
    public var limit: Duration = .seconds(300)
    /// Path of the start call.
    public var startPath: String
    /// Path of the poll call.
    public var pollPath: String
    /// The header that carries a PKCE verifier on every poll, for a server that binds its ticket to a
    /// challenge (RFC 7636, S256): the start call then sends `{code_challenge, code_challenge_method}` as
    /// JSON, so only the client that started the ticket can collect its token. `nil`: no proof.
    public var proofHeader: String?
    /// The form the handed-out token must have (`.opaque` by default; an app whose server issues JWTs says
    /// `.jwt`).
    public var tokenShape: TokenShape = .opaque

    /// Creates the flow against the server's start and poll paths.
    public init(address: ServerAddress, client: Client, opener: any BrowserOpener, startPath: String, pollPath: String)
    {
        self.address = address
        self.client = client
        self.opener = opener
        self.startPath = startPath
        self.pollPath = pollPath
    }

    /// Runs the flow and returns the token with its expiry (8 h when the server gives none).
    public func run() async throws(AuthError) -> (token: String, expiresAt: Date) {
        let journal = client.configuration.journal
        let pkce: PKCE? = proofHeader == nil ? nil : try PKCE.generate()
        if let pkce { journal.register(secret: pkce.verifier) }
        let start = try await client.call(
            .post, startPath,
            json: pkce.map { ["code_challenge": .string($0.challenge), "code_challenge_method": .string(PKCE.method)] })
        guard start.status == 200, let ticket = start.json?["ticket"]?.stringValue,
            let loginPath = start.json?["login_url"]?.stringValue
        else { throw .unexpected(start, "POST \(startPath)") }
        guard TokenShape.opaque.accepts(ticket) else {
            throw .unexpectedReply("the server handed out an empty or malformed ticket")
        }
        guard loginPath.hasPrefix("/"), !loginPath.hasPrefix("//") else {
            throw .unexpectedReply("the login page is not on this server")
        }
        try await opener.open(address.url(appending: loginPath))
        var proof = HTTPHeaders()
        if let proofHeader, let pkce { proof[proofHeader] = pkce.verifier }
        let clock = client.configuration.clock
        let sleeper = client.configuration.sleeper
        let deadline = clock.now().addingTimeInterval(limit.seconds)
        let escaped = PercentEncoding.segment(ticket)
        while true {
            let reply = try await client.call(.get, "\(pollPath)?ticket=\(escaped)", headers: proof)
            switch reply.status {
            case 200:
                guard let token = reply.json?["token"]?.stringValue else { throw .unexpected(reply, "the poll") }
                journal.register(secret: token)
                guard tokenShape.accepts(token) else {
                    throw .unexpectedReply("the server handed out a sign-in token that is not in the expected form")
                }
                let lifetime = reply.json?["expires_in"]?.doubleValue ?? 8 * 3600
                return (token, clock.now().addingTimeInterval(lifetime))
            case 202:
                break
            case 410:
                let said = reply.json?["error"]?.stringValue.map { " (\($0))" } ?? ""
                throw .ticketExpired(reason: "the server gave the sign-in up\(said)")
            default:
                throw .unexpected(reply, "the poll")
            }
            guard clock.now().addingTimeInterval(interval.seconds) <= deadline else {
                throw .ticketExpired(
                    reason: "nobody finished it in the browser within \(Int(limit.seconds / 60)) minutes")
            }
            do {
                try await sleeper.sleep(for: interval)
            } catch {
                throw .cancelled
            }
        }
    }
}
