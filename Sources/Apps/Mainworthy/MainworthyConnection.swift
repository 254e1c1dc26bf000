import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// The one connection of the app to its server: the HTTP client, the stored session, and the calls.
///
/// Rules:
/// - The server is the build's (M-AUTH-1); the session is the `mw_session` cookie, kept in the secret
///   store under the account, never the password (M-AUTH-2, O-5). A stored session is used at the next
///   launch without signing in again (M-AUTH-7).
/// - A 401 on any call signs out: the stored session is deleted, the account is kept so what is filed
///   under it stays (M-AUTH-8, M-NET-4). A 403 does not sign out.
/// - Writes go through `perform(_:)` with a `WriteCommand`; reads through `read(_:)`.
public final class MainworthyConnection: Sendable {
    /// The cookie the server sets.
    public static let cookieName = "mw_session"

    /// The build: server, version, expiry.
    public let build: MainworthyBuild
    /// The server's address.
    public let address: ServerAddress
    /// The HTTP client.
    public let client: Client
    /// The session in use.
    public let credentials: CredentialSession
    /// Where keys come from.
    public let random: any RandomSource
    private let clock: any WallClock
    private let journal: Journal
    private let secrets: any SecretStore

    /// Connects to `build.server`, using the session stored for it, if any.
    public init(
        build: MainworthyBuild, secrets: any SecretStore, transportPolicy: TransportPolicy = .httpsOnly,
        timeout: Duration = .seconds(30), sleeper: any Sleeper = TaskSleeper(),
        random: any RandomSource = SystemRandomSource(), clock: any WallClock = SystemWallClock(),
        journal: Journal = Journal(), transport: any Transport = URLSessionTransport()
    ) throws(MainworthyError) {
        self.build = build
        do {
            address = try ServerAddress(parsing: build.server.absoluteString, policy: transportPolicy)
        } catch {
            throw .other(error.description)
        }
        let stored: StoredCredential?
        do throws(SecretStoreError) {
            let key = address.serverKey
            if let account = try secrets.accounts().first(where: { $0.serverKey == key }) {
                stored = try secrets.load(account)
            } else {
                stored = nil
            }
        } catch {
            throw .other(error.description)
        }
        credentials = CredentialSession(stored: stored, store: secrets, journal: journal)
        let configuration = Client.Configuration(
            timeout: timeout,
            middlewares: [
                AuthenticationMiddleware(
                    session: credentials, rule: RevocationRule(statuses: [401], permissionCodes: []))
            ], transportPolicy: transportPolicy, journal: journal, clock: clock, sleeper: sleeper, random: random)
        client = Client(baseURL: address.url, configuration: configuration, transport: transport)
        self.random = random
        self.clock = clock
        self.journal = journal
        self.secrets = secrets
    }

    /// Whether a session is stored and in use.
    public var isSignedIn: Bool {
        get async { await credentials.credential != nil }
    }

    /// Reads `request`; a failure becomes a `MainworthyError`.
    public func read<Response>(_ request: Request<Response>) async throws(MainworthyError) -> Response {
        do {
            return try await client.send(request)
        } catch {
            throw MainworthyError(error)
        }
    }

    /// Sends a write command; its retry policy decides about resends.
    public func perform<Response>(_ command: WriteCommand<Response>) async throws(MainworthyError) -> Response {
        try await read(command.request)
    }

    /// The resend rule of answers and withdrawals: 3 resends at exactly 1, 2 and 4 s, only for a lost reply
    /// (M-NET-2). Results, plans and saves are never resent by themselves: Retry only.
    public static let lostReplyResends = RetryPolicy.lostReply(resends: 3, first: .seconds(1), cap: .seconds(4))

    /// A write command for `request`, with a fresh key.
    public func command<Response>(_ request: Request<Response>, resendsLostReply: Bool = false) -> WriteCommand<
        Response
    > {
        WriteCommand(request, resend: resendsLostReply ? Self.lostReplyResends : .never, random: random)
    }

    /// Opens a session with name and password and stores it (M-AUTH-2). The password is only in the
    /// request's body, registered with the journal as a secret, and kept nowhere.
    public func signIn(name: String, password: String) async throws(SignInFailure) -> SessionOpened {
        let (opened, stored) = try await openSession(name: name, password: password)
        do throws(SecretStoreError) {
            // One sign-in per server: another account's session for this server is forgotten here.
            let key = address.serverKey
            for account in try secrets.accounts() where account.serverKey == key && account != stored.account {
                try secrets.delete(account)
            }
        } catch {
            throw .connection(.other(error.description))
        }
        do {
            try await credentials.use(stored)
        } catch {
            throw .connection(.other(error.description))
        }
        return opened
    }

    /// Opens a session and returns it with the credential to store, storing nothing (the kit's sign-in
    /// flow stores it itself).
    public func openSession(name: String, password: String) async throws(SignInFailure) -> (
        SessionOpened, StoredCredential
    ) {
        journal.register(secret: password)
        let command = command(MainworthyAPI.openSession(name: name, password: password))
        let reply: Reply<SessionOpened>
        do {
            reply = try await client.reply(command.request)
        } catch {
            throw .connection(MainworthyError(error))
        }
        if reply.status == 401 {
            let envelope = reply.failure?.envelope
            let sentence = envelope?.message ?? "Wrong name or password."
            throw envelope?.code == "password_not_set" ? .passwordNotSet(sentence) : .invalidCredentials(sentence)
        }
        let opened: SessionOpened
        do {
            opened = try reply.value()
        } catch {
            throw .connection(MainworthyError(error))
        }
        guard let cookie = Self.cookie(in: reply.response.headers["Set-Cookie"]) else {
            throw .connection(.other("The server opened a session but sent no session cookie."))
        }
        journal.register(secret: cookie)
        let stored = StoredCredential(
            account: AccountKey(address: address, userID: opened.user.id ?? opened.user.name), address: address,
            credential: .sessionCookie(name: Self.cookieName, value: cookie), serverID: opened.session.id,
            storedAt: clock.now())
        return (opened, stored)
    }

    /// Signs out here: forgets the stored session, keeps the account's data.
    public func signOut() async {
        await credentials.signOut()
    }

    /// The value of `mw_session` in a `Set-Cookie` header, or `nil`.
    static func cookie(in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ",") {
            let pair = part.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let prefix = cookieName + "="
            if pair.hasPrefix(prefix), pair.count > prefix.count { return String(pair.dropFirst(prefix.count)) }
        }
        return nil
    }
}

/// Why signing in did not work.
public enum SignInFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Wrong name or password (a pipeline token given as the password is refused the same way, M-AUTH-4):
    /// the server's sentence (M-AUTH-5).
    case invalidCredentials(String)
    /// The account has no password, only a passkey: the server's sentence says where to set one. The app
    /// has no passkey path (M-AUTH-6).
    case passwordNotSet(String)
    /// The call failed.
    case connection(MainworthyError)

    /// The sentence shown.
    public var description: String {
        switch self {
        case .invalidCredentials(let sentence), .passwordNotSet(let sentence): return sentence
        case .connection(let error): return error.description
        }
    }
}
