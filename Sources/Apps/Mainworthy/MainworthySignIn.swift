import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Mainworthy's sign-in as the kit's sign-in model drives it (`SignInServer`): the app's sign-in screen is the
/// kit's `SignInModel` at its password step, and `companion login` stores the same cookie session.
///
/// Rules: there is no address step (the build's server, M-AUTH-1) and no token field (M-AUTH-4): one step, name
/// and password. The password lives only in the request's body, registered with the journal as a secret, and is
/// stored nowhere (M-AUTH-2). A wrong password and a passkey-only account are refusals in the server's words
/// (M-AUTH-5, M-AUTH-6); nothing is stored. One sign-in per server: the session issued replaces any other
/// account's session stored for the same server (M-AUTH-7).
public actor MainworthySignIn: SignInServer {
    /// What the app says about passkeys: there is no passkey path (M-AUTH-6).
    public static let passkeyNote = "A passkey does not work in the app."

    /// The code of the last refusal (`invalid_credentials`, `password_not_set`), if the last step was refused.
    public private(set) var refusedCode: String?

    private let address: ServerAddress
    private let client: Client
    private let environment: AppEnvironment
    private var pending: StoredCredential?

    /// A sign-in at `address` with a client of the environment (no credential yet).
    public init(address: ServerAddress, environment: AppEnvironment, profile: AppProfile = MainworthyServer.profile) {
        self.address = address
        self.environment = environment
        client = environment.client(for: address.url, profile: profile)
    }

    /// The kit's sign-in model for `build`, at its password step (the address is the build's).
    @MainActor
    public static func model(
        build: MainworthyBuild, environment: AppEnvironment, profile: AppProfile = MainworthyServer.profile
    ) throws(MainworthyError) -> SignInModel {
        let address = try MainworthyServer.address(of: build, environment: environment)
        let server = MainworthySignIn(address: address, environment: environment, profile: profile)
        return model(server, address: address, environment: environment)
    }

    /// The kit's sign-in model driving `server` at `address`.
    @MainActor
    public static func model(_ server: MainworthySignIn, address: ServerAddress, environment: AppEnvironment)
        -> SignInModel
    {
        SignInModel(
            policy: environment.transportPolicy, address: address, store: environment.secrets,
            journal: environment.journal
        ) { _ in server }
    }

    /// `GET /api/version` must name `mainworthy`.
    public func probe() async throws(AuthError) {
        let version: ServerVersion
        do {
            version = try await client.send(MainworthyAPI.version())
        } catch {
            throw .notRecognized(reason: error.description)
        }
        guard version.name == "mainworthy" else {
            throw .notRecognized(reason: "the server there is not Mainworthy (GET /api/version names \(version.name)).")
        }
    }

    /// Opens a cookie session with `username` and `password`; the credential waits for `issueCredential()`.
    public func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        environment.journal.register(secret: password)
        pending = nil
        refusedCode = nil
        let command = WriteCommand(
            MainworthyAPI.openSession(name: username.trimmingCharacters(in: .whitespaces), password: password),
            random: environment.random)
        let reply: Reply<SessionOpened>
        do {
            reply = try await client.reply(command.request)
        } catch {
            throw .http(error)
        }
        if reply.status == 401 {
            let envelope = reply.failure?.envelope
            refusedCode = envelope?.code
            return .refused(.wrongCredentials(serverSentence: envelope?.message))
        }
        let opened: SessionOpened
        do {
            opened = try reply.value()
        } catch {
            throw .http(error)
        }
        guard let cookie = Self.cookie(in: reply.response.headers["Set-Cookie"]) else {
            throw .unexpectedReply("the server opened a session but sent no session cookie")
        }
        environment.journal.register(secret: cookie)
        pending = StoredCredential(
            account: AccountKey(address: address, userID: opened.user.id ?? opened.user.name), address: address,
            credential: .sessionCookie(name: MainworthyServer.cookieName, value: cookie), serverID: opened.session.id,
            storedAt: environment.clock.now())
        return .authenticated
    }

    /// The cookie session opened by `signIn`; any other account's session stored for this server is forgotten.
    public func issueCredential() async throws(AuthError) -> StoredCredential {
        defer { pending = nil }
        guard let pending else { throw .invalidStep("no session was opened") }
        do throws(SecretStoreError) {
            for account in try environment.secrets.accounts()
            where account.serverKey == address.serverKey && account != pending.account {
                try environment.secrets.delete(account)
            }
        } catch {
            throw .store(error)
        }
        return pending
    }

    /// The value of `mw_session` in a `Set-Cookie` header, or `nil`.
    static func cookie(in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ",") {
            let pair = part.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let prefix = MainworthyServer.cookieName + "="
            if pair.hasPrefix(prefix), pair.count > prefix.count { return String(pair.dropFirst(prefix.count)) }
        }
        return nil
    }
}
