import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// One signed-in account on the test Home Assistant with its live connection, for the connection's tests: the
/// environment (its journal shows every message sent), the server, the connection and the owner's long-lived
/// token for a second client acting "elsewhere".
struct LiveHome {
    /// Which test instance: `main` (plain http, 1,011 states) or `tls` (https from the private CA with a required
    /// client certificate, 111 states), reached through the kit's network settings.
    enum Instance: String {
        case main, tls
    }

    let fixture: HomeAssistantFixture
    let instance: Instance
    let url: URL
    let environment: AppEnvironment
    let account: AccountKey
    let server: HomeAssistantServer
    let connection: HomeAssistantConnection
    let recorder: RequestRecorder

    /// Signs `ci` in with the password flow (or stores `credential` as the sign-in) and opens the connection
    /// (not started); at `through` (a relay to the instance) instead of the instance's own address when given.
    init(
        _ instance: Instance = .main, clock: any WallClock = SystemWallClock(),
        policy: ReconnectPolicy = ReconnectPolicy(), credential: Credential? = nil, totpUser: Bool = false,
        through: URL? = nil
    ) async throws {
        fixture = try HomeAssistantFixture()
        self.instance = instance
        let environment = TestEnvironments.loopback(clock: clock)
        self.environment = environment
        url = instance == .main ? fixture.url : try TestServers.url("HOMEASSISTANT_TLS_URL")
        let address = try HomeAssistantAddress.parse(
            (through ?? url).absoluteString, policy: environment.transportPolicy)
        if instance == .tls { try Self.trustTLS(address, in: environment) }
        if let credential {
            let key = AccountKey(address: address, userID: fixture.user)
            account = key
            try environment.secrets.save(
                StoredCredential(account: key, address: address, credential: credential, storedAt: clock.now()))
        } else if totpUser {
            // The second-factor user through the kit's sign-in state machine: password, then the TOTP step.
            let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
            let model = await SignInModel(
                policy: environment.transportPolicy, address: address, store: environment.secrets
            ) { _ in signIn }
            await model.submitPassword(username: fixture.totpUser, password: fixture.totpPassword)
            let step = await model.state
            try #require(step == .enteringCode(address, username: fixture.totpUser, kinds: [.totp], problem: nil))
            let secret =
                instance == .main
                ? fixture.totpSecret : try HomeAssistantFixture.file("HOMEASSISTANT_TLS_TOTP_SECRET_FILE")
            await model.submitCode(TOTP.code(secretBase32: secret, at: Date()))
            guard case .signedIn(let key) = await model.state else {
                throw LiveHomeError("the TOTP user was not signed in: \(await model.state)")
            }
            account = key
        } else {
            let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
            #expect(try await signIn.signIn(username: fixture.user, password: fixture.password) == .authenticated)
            let stored = try await signIn.issueCredential()
            try environment.secrets.save(stored)
            account = stored.account
        }
        recorder = RequestRecorder()
        server = try await HomeAssistantServer.open(account, environment: environment, middlewares: [recorder])
        connection = server.connection(policy: policy)
    }

    /// Stores the `tls` instance's network settings: the private CA and the client identity (its P12 and
    /// passphrase), as a person would import them.
    static func trustTLS(_ address: ServerAddress, in environment: AppEnvironment) throws {
        let settings = NetworkSettings(store: environment.secrets)
        let p12 = try Data(contentsOf: URL(fileURLWithPath: try TestServers.value("HOMEASSISTANT_TLS_CLIENT_P12")))
        let identity = try ClientIdentity(
            importing: p12, passphrase: try HomeAssistantFixture.file("HOMEASSISTANT_TLS_P12_PASSPHRASE_FILE"),
            at: environment.clock.now())
        try settings.assign(identity, to: [address])
        let root = try Data(contentsOf: URL(fileURLWithPath: try TestServers.value("HOMEASSISTANT_TLS_ROOT_DER")))
        try settings.update(address) { network in network.trust = ServerTrust(anchors: [root]) }
    }

    /// Starts the connection and waits (bounded) until the entities are live.
    func startLive(within limit: Duration = .seconds(60)) async throws {
        await connection.start()
        let live = try await withDeadline(limit) { await connection.waitUntilLive() }
        try #require(live == true, "the connection did not become live within \(limit)")
    }

    /// The messages the channel sent, in order, as JSON (the auth message's token masked by the journal).
    var sent: [JSONValue] {
        environment.journal.newestFirst().reversed().compactMap { event -> JSONValue? in
            guard event.message.hasPrefix("channel send "), let body = event.fields["body"] else { return nil }
            return JSONValue(data: Data(body.utf8))
        }
    }

    /// The types of the messages sent, in order.
    var sentTypes: [String] { sent.compactMap { $0["type"]?.stringValue } }

    /// A client acting elsewhere with the owner's long-lived token (another device, an admin's browser).
    func elsewhere() throws -> Client {
        var profile = HomeAssistantServer.profile
        let token =
            instance == .main ? fixture.longLivedToken : try HomeAssistantFixture.file("HOMEASSISTANT_TLS_TOKEN_FILE")
        profile.middlewares = [BearerHeader(token: token)]
        return environment.client(for: url, profile: profile)
    }

    /// Calls `domain.service` from elsewhere over REST with `data`.
    func callElsewhere(_ service: String, _ data: [String: JSONValue]) async throws {
        let path = "/api/services/" + service.replacingOccurrences(of: ".", with: "/")
        let reply = try await elsewhere().call(.post, path, json: data)
        #expect(reply.response.status == 200, "\(service) from elsewhere answered \(reply.response.status)")
    }

    /// Waits (bounded) until an applied event makes `condition` true of the connection's entities.
    func waitForEntities(
        upTo limit: Duration = .seconds(20), _ condition: @escaping @Sendable (EntitySet) -> Bool
    ) async throws -> Bool {
        let updates = await connection.updates()
        if condition(await connection.entities) { return true }
        let connection = self.connection
        let seen = try await withDeadline(limit) {
            for await _ in updates where condition(await connection.entities) { return true }
            return false
        }
        return seen == true
    }

    /// Waits (bounded) until the channel reaches a state `condition` accepts.
    func waitForState(upTo limit: Duration = .seconds(60), _ condition: @escaping @Sendable (ChannelState) -> Bool)
        async throws -> Bool
    {
        let states = await connection.states()
        let seen = try await withDeadline(limit) {
            for await state in states where condition(state) { return true }
            return false
        }
        return seen == true
    }

    /// Calls the test server's control API (`restart`, `stop`, `start` of the `main` instance).
    func control(_ action: String) async throws {
        let url = try TestServers.url("HOMEASSISTANT_CONTROL_URL")
        let client = TestClients.loopback(url.deletingLastPathComponent(), timeout: .seconds(220))
        let reply = try await client.call(
            .post, "/\(url.lastPathComponent)/\(action)", json: ["instance": .string(instance.rawValue)])
        try #require(reply.response.status == 200, "control \(action) answered \(reply.response.status)")
    }
}

/// Adds `Authorization: Bearer <token>` (a second client's own credential).
struct BearerHeader: Middleware {
    let token: String

    func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        var request = request
        request.headers["Authorization"] = "Bearer \(token)"
        return try await next(request)
    }
}

/// A set-up step of a live test that did not work.
struct LiveHomeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
