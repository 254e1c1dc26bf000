import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// The app's server: the kit's server bundle for the build's server and the signed-in account, with Mainworthy's
/// profile. Every screen reads and writes through it.
///
/// Rules:
/// - The server is the build's (M-AUTH-1); the session is the `mw_session` cookie, kept in the secret store under
///   the account, never the password (M-AUTH-2, O-5). A stored session is used at the next launch without
///   signing in again (M-AUTH-7).
/// - Revocation: a 401 anywhere signs out (the stored session is deleted, the account kept), a 403 never does
///   (M-AUTH-8, M-NET-4).
/// - Data: everything read, the drafts and the recent lists live in the environment's memory stores only, for
///   the life of the process, filed under the account (server and user); a sign-out keeps them for the same
///   person signing in again (M-DRAFT-2, M-DRAFT-3, O-14).
/// - Writes are the kit's `WriteCommand`s with a key made when the person presses the button; only answers and
///   withdrawals are resent by themselves after a lost reply, at 1, 2 and 4 s (M-NET-2, O-8).
public struct MainworthyServer: Sendable {
    /// The cookie the server sets.
    public static let cookieName = "mw_session"

    /// The resend rule of answers and withdrawals: 3 resends at exactly 1, 2 and 4 s, only for a reply lost after
    /// the request left (M-NET-2). Results, plans and saves are never resent by themselves: Retry only.
    public static let lostReplyResends = RetryPolicy.lostReply(resends: 3, first: .seconds(1), cap: .seconds(4))

    /// What Mainworthy registers about its server: a 401 alone ends the sign-in, and what it keeps lives in
    /// memory only and survives a sign-out. A failure on a screen is worded with the server's own sentence.
    public static let profile = AppProfile(
        userAgent: MainworthyBuild.clientName, revocation: RevocationRule(statuses: [401], permissionCodes: []),
        data: DataPolicy(storage: .memoryOnly, wipesOnRevocation: false),
        sentence: { $0.http.map(sentence(for:)) ?? $0.description })

    /// The build: server, version, expiry.
    public let build: MainworthyBuild
    /// The server's address.
    public let address: ServerAddress
    /// The kit's bundle: client, store, fetcher, clock, journal, secrets.
    public let bundle: ServerBundle
    /// The session in use.
    public let credentials: CredentialSession

    /// Whose data this is: server and user.
    public var account: AccountKey { bundle.account }

    /// The current time, from the environment's clock.
    public func now() -> Date { bundle.clock.now() }

    /// The build's server under the environment's transport policy.
    public static func address(of build: MainworthyBuild, environment: AppEnvironment) throws(MainworthyError)
        -> ServerAddress
    {
        do {
            return try environment.address(build.server.absoluteString)
        } catch {
            throw .other(error.description)
        }
    }

    /// The account whose session is stored for the build's server, if any.
    public static func storedAccount(build: MainworthyBuild, environment: AppEnvironment) throws(MainworthyError)
        -> AccountKey?
    {
        let key = try address(of: build, environment: environment).serverKey
        do {
            return try environment.secrets.accounts().first { $0.serverKey == key }
        } catch {
            throw .other(error.description)
        }
    }

    /// The server with the session stored for it (M-AUTH-7), or `nil` when none is stored: then sign in.
    public static func stored(
        build: MainworthyBuild, environment: AppEnvironment, profile: AppProfile = profile
    ) async throws(MainworthyError) -> MainworthyServer? {
        guard let account = try storedAccount(build: build, environment: environment) else { return nil }
        return try await open(build: build, account: account, environment: environment, profile: profile)
    }

    /// The server for `account`, whose session a sign-in stored.
    public static func open(
        build: MainworthyBuild, account: AccountKey, environment: AppEnvironment, profile: AppProfile = profile
    ) async throws(MainworthyError) -> MainworthyServer {
        let address = try address(of: build, environment: environment)
        let session: CredentialSession
        do {
            session = try environment.session(for: account)
        } catch {
            throw .other(error.description)
        }
        do {
            let bundle = try await ServerBundle.open(
                address.url, account: account, profile: profile, session: session, environment: environment)
            return MainworthyServer(build: build, address: address, bundle: bundle, credentials: session)
        } catch {
            throw .other(error.description)
        }
    }

    /// Whether a session is stored and in use.
    public var isSignedIn: Bool {
        get async { await credentials.credential != nil }
    }

    /// Signs out here: forgets the stored session, keeps the account's data.
    public func signOut() async { await credentials.signOut() }

    /// Reads `request` from the server now, through the account's store: the reply is kept, so every feed of it
    /// shows it too. For a value the app needs outside a screen (a case number's id, a case's current version);
    /// a screen holds a feed instead. A failure becomes a `MainworthyError`.
    public func latest<Response: Sendable>(_ request: Request<Response>) async throws(MainworthyError) -> Response {
        do {
            return try await bundle.fetcher.loadLatest(request, policy: .fresh).value
        } catch {
            throw MainworthyError(error, client: bundle.client)
        }
    }

    /// A write command for `request` with a fresh key; answers and withdrawals resend a lost reply by themselves.
    public func command<Response>(_ request: Request<Response>, resendsLostReply: Bool = false)
        -> WriteCommand<Response>
    {
        bundle.command(request, resend: resendsLostReply ? Self.lostReplyResends : .never)
    }

    /// Sends `command`; only its own resend rule sends it again, with the same key.
    public func perform<Response>(_ command: WriteCommand<Response>) async throws(MainworthyError) -> Response {
        do {
            return try await bundle.send(command)
        } catch {
            throw MainworthyError(error, client: bundle.client)
        }
    }

    /// How a screen words a failure: a refusal in the server's own sentence, anything else as the kit says it.
    static func sentence(for error: HTTPError) -> String {
        if case .status(let failure) = error, let message = failure.envelope?.message { return message }
        return error.description
    }
}
