import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Why onboarding a Home Assistant failed, in a sentence a person can act on; never a password or token.
public enum OnboardingError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Onboarding is for a test server on this machine: the address is not a loopback one (H-CLI-7).
    case notLoopback(String)
    /// The server's owner exists already: Home Assistant's own sentence (403 "User step already done").
    case alreadySetUp(serverSentence: String)
    /// Home Assistant refused a step with its own sentence, or answered what the step does not expect.
    case refused(step: String, status: Int, serverSentence: String?)
    /// The code exchange or the network failed.
    case auth(AuthError)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .notLoopback(let address):
            return "Onboarding is only for a test Home Assistant on this machine; \(address) is not a loopback "
                + "address. Set up any other server in its own web page."
        case .alreadySetUp(let sentence):
            return "This Home Assistant is already set up (\(sentence)). Sign in with `companion homeassistant login`."
        case .refused(let step, let status, let sentence):
            let said = sentence.map { ": \($0)" } ?? ""
            return "Home Assistant refused the onboarding step \(step) with status \(status)\(said)."
        case .auth(let error): return error.description
        }
    }

    /// The same sentence, for `LocalizedError` users.
    public var errorDescription: String? { description }
}

/// The owner an onboarding creates.
public struct OnboardingOwner: Sendable, Hashable, CustomStringConvertible {
    /// The display name.
    public var name: String
    /// The user name to sign in with.
    public var username: String
    /// The password (a secret: never printed).
    public var password: String
    /// The language code, such as `en`.
    public var language: String

    /// Creates the owner's description.
    public init(name: String, username: String, password: String, language: String = "en") {
        self.name = name
        self.username = username
        self.password = password
        self.language = language
    }

    /// The user name only; never the password.
    public var description: String { "owner \(username)" }
}

/// Onboards a fresh test Home Assistant with no browser (H-CLI-7, the recipe of the research notes §3): the owner
/// through `POST /api/onboarding/users`, its code exchanged at `/auth/token` (form-encoded, the headless
/// `client_id`), then the `core_config`, `analytics` and `integration` steps with the owner's token. The tokens come
/// back as a stored credential for the owner, as a sign-in's would.
///
/// Only a loopback address is onboarded: anyone who reaches a server that is not set up can make its owner, so the
/// terminal does this only for a server on this machine.
public struct HomeAssistantOnboarding: Sendable {
    /// The server's root address.
    public let address: ServerAddress
    private let client: Client
    private let identity: LoginClient

    /// The onboarding of the server at `address` (reduced to its root); `notLoopback` for any other host.
    public init(_ address: ServerAddress, environment: AppEnvironment) throws(OnboardingError) {
        let root: ServerAddress
        do {
            root = try HomeAssistantAddress.root(of: address, policy: environment.transportPolicy)
            identity = try LoginClient.headless(for: root)
        } catch {
            throw .notLoopback(address.serverKey)
        }
        guard root.isLoopback else { throw .notLoopback(address.serverKey) }
        self.address = root
        client = environment.client(for: root.url, profile: HomeAssistantServer.profile)
    }

    /// Creates `owner`, finishes the onboarding and returns the owner's tokens as a credential.
    public func onboard(_ owner: OnboardingOwner) async throws(OnboardingError) -> StoredCredential {
        let journal = client.configuration.journal
        journal.register(secret: owner.password)
        let user: [String: JSONValue] = [
            "client_id": .string(identity.clientID), "name": .string(owner.name), "username": .string(owner.username),
            "password": .string(owner.password), "language": .string(owner.language),
        ]
        let created = try await call("users", json: user)
        if created.status == 403 {
            throw .alreadySetUp(serverSentence: Self.sentence(created) ?? "the owner exists")
        }
        guard created.status == 200, let code = created.json?["auth_code"]?.stringValue else {
            throw .refused(step: "users", status: created.status, serverSentence: Self.sentence(created))
        }
        journal.register(secret: code)
        let exchanged: RawReply
        do {
            exchanged = try await client.call(
                .post, "/auth/token",
                form: ["grant_type": "authorization_code", "code": code, "client_id": identity.clientID])
        } catch {
            throw .auth(error)
        }
        let tokens: IssuedTokens
        do {
            tokens = try HomeAssistantSignIn.tokens(
                from: exchanged, receivedAt: client.configuration.clock.now(), journal: journal)
        } catch {
            throw .auth(error)
        }
        guard let refresh = tokens.refreshToken else {
            throw .auth(.unexpectedReply("the token endpoint sent no refresh_token for the new owner"))
        }
        let bearer: HTTPHeaders = ["Authorization": "Bearer \(tokens.accessToken)"]
        let steps: [(String, [String: JSONValue])] = [
            ("core_config", [:]), ("analytics", [:]),
            ("integration", ["client_id": .string(identity.clientID), "redirect_uri": .string(identity.redirectURI)]),
        ]
        for (step, body) in steps {
            let reply = try await call(step, json: body, headers: bearer)
            guard reply.status == 200 else {
                throw .refused(step: step, status: reply.status, serverSentence: Self.sentence(reply))
            }
        }
        journal.record(.auth, "onboarded Home Assistant at \(address.serverKey): \(owner)")
        return StoredCredential(
            account: AccountKey(address: address, userID: owner.username), address: address,
            credential: .bearer(accessToken: tokens.accessToken, refreshToken: refresh, expiresAt: tokens.expiresAt),
            serverID: identity.clientID, storedAt: client.configuration.clock.now())
    }

    /// `POST /api/onboarding/<step>` with `json`.
    private func call(_ step: String, json: [String: JSONValue], headers: HTTPHeaders = HTTPHeaders())
        async throws(OnboardingError) -> RawReply
    {
        do {
            return try await client.call(.post, "/api/onboarding/\(step)", json: json, headers: headers)
        } catch {
            throw .auth(error)
        }
    }

    /// Home Assistant's own sentence in a refusal (`{"message": …}`).
    static func sentence(_ reply: RawReply) -> String? {
        reply.json?["message"]?.stringValue
    }
}
