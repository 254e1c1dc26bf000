import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// One signed-in Home Assistant account on one server: the kit's `ServerBundle` with Home Assistant's
/// `AppProfile`.
///
/// Rules:
/// - Everything goes through the bundle: the client, the store, the clock, the journal and the secret store are
///   the environment's; the core makes none of them.
/// - The revocation rule is the kit's default: a 401 on a request that carries the credential, after the one
///   refresh it triggers, signs out.
/// - The data policy keeps the account's stored states when the sign-in ends (H-TOK-6, H-OFF-5): the same user
///   signing in again finds them.
public struct HomeAssistantServer: Sendable {
    /// 401 alone signs out (after the single refresh a 401 starts).
    public static let revocation = RevocationRule(statuses: [401])

    /// Offline, kept when the sign-in ends.
    public static let data = DataPolicy(storage: .offline, wipesOnRevocation: false)

    /// Home Assistant's profile.
    public static let profile = AppProfile(
        userAgent: "CompanionKit/0.1 (Home Assistant)", revocation: revocation, data: data)

    /// The server's parts: client, store, fetcher, snapshots, clock, journal, secrets.
    public let bundle: ServerBundle

    /// Joins a bundle opened with Home Assistant's profile.
    public init(bundle: ServerBundle) { self.bundle = bundle }

    /// Opens the account of `session`'s credential on the server it was issued by, with its store from the
    /// environment's registry.
    public static func open(_ stored: StoredCredential, session: CredentialSession, environment: AppEnvironment)
        async throws(StoreError) -> HomeAssistantServer
    {
        HomeAssistantServer(
            bundle: try await ServerBundle.open(
                stored.address.url, account: stored.account, profile: profile, session: session,
                environment: environment))
    }

    /// The sign-in at `address` (reduced to its root) as `identity` (the headless one by default, H-AUTH-1), with
    /// a client from `environment`.
    public static func signIn(
        _ address: ServerAddress, identity: LoginClient? = nil, environment: AppEnvironment
    ) throws(AuthError) -> HomeAssistantSignIn {
        let root: ServerAddress
        do {
            root = try HomeAssistantAddress.root(of: address, policy: environment.transportPolicy)
        } catch {
            throw .notRecognized(reason: error.description)
        }
        var client = identity
        if client == nil { client = try LoginClient.headless(for: root) }
        guard let client else { throw .invalidStep("no client identity") }
        return HomeAssistantSignIn(
            address: root, client: environment.client(for: root.url, profile: profile), identity: client)
    }

    // MARK: Live

    /// The live connection to this account (not started: `start()` it), with `policy`'s retry delays and ping, and
    /// the wait before subscriptions refused at their start are sent again (H-CONN-14).
    public func connection(
        policy: ReconnectPolicy = ReconnectPolicy(),
        resubscribeAfter: Duration = HomeAssistantConnection.resubscribeDelay
    ) -> HomeAssistantConnection {
        HomeAssistantConnection(server: self, policy: policy, resubscribeAfter: resubscribeAfter)
    }

    /// The entities grouped by area (H-ENT-14), live while the connection is, else stale with their age
    /// (H-OFF-2, H-OFF-3): a feed of what the connection keeps in the store.
    @MainActor
    public func entitiesByArea(_ filter: EntityFilter = EntityFilter()) -> ScreenFeed<[EntityGroup]> {
        feed("homeassistant:by-area", isEmpty: { $0.isEmpty }, show: { $0.byArea(filter) })
    }

    /// The entities grouped by domain, hidden ones included (H-ENT-14), live or stale as `entitiesByArea`.
    @MainActor
    public func entitiesByDomain(_ filter: EntityFilter = EntityFilter()) -> ScreenFeed<[EntityGroup]> {
        feed("homeassistant:by-domain", isEmpty: { $0.isEmpty }, show: { $0.byDomain(filter) })
    }

    /// One entity's detail (`nil`, shown as empty, when the server has no such entity), live or stale.
    @MainActor
    public func entity(_ entityID: String) -> ScreenFeed<EntityDetail?> {
        feed("homeassistant:entity:\(entityID)", isEmpty: { $0 == nil }, show: { $0.detail(of: entityID) })
    }

    /// A live feed of `show` applied to what the store holds.
    @MainActor
    private func feed<Value: Sendable & Equatable>(
        _ key: String, isEmpty: @escaping @Sendable (Value) -> Bool,
        show: @escaping @Sendable (StoredHome) -> Value
    ) -> ScreenFeed<Value> {
        bundle.feed(
            live: EntityStore.region, key: key, isEmpty: isEmpty,
            read: { transaction throws(StoreError) in
                try EntityStore.read(transaction).map { $0.live(show($0)) }
            })
    }

    /// What the store holds now, with no request (the terminal's `--offline`); `nil` when nothing was stored.
    public func stored() async throws(StoreError) -> StoredHome? {
        try await bundle.store.read { transaction throws(StoreError) in try EntityStore.read(transaction) }
    }

    /// `GET /api/config`, read by `ServerConfig.read`.
    public func config() async throws -> WireRead<ServerConfig> {
        try ServerConfig.read(try await bundle.client.send(HomeAssistantAPI.config()))
    }

    /// `GET /api/states`, read by `EntityState.list`.
    public func states() async throws -> WireRead<[EntityState]> {
        try EntityState.list(try await bundle.client.send(HomeAssistantAPI.states()))
    }
}
