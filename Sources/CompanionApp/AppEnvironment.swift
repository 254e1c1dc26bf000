import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// The parts of one process that every server bundle is built from: the platform's transport, the stores, the
/// secret store, the journal, time and randomness.
///
/// Rule: an app core never makes any of these itself. It receives one environment (the live one in the app,
/// a test one in its tests) and every server bundle it opens takes its parts from it, so all of an app's
/// requests go through one transport under one transport policy, every exchange lands in one journal, and
/// every date, wait and key comes from a source a test can replace.
public struct AppEnvironment: Sendable {
    /// Which URLs may be connected to: `.httpsOnly` in a release build, `.allowingInsecureLoopback` for
    /// development and tests. Addresses, clients and redirects all follow it.
    public let transportPolicy: TransportPolicy
    /// The transport every client shares: the platform's default (`DefaultTransport`), redirects checked
    /// against `transportPolicy`. A server with network settings of its own (`NetworkSettings` in `secrets`)
    /// gets a transport of its own instead (`transport(for:)`).
    public let transport: any Transport
    /// Whether servers' own network settings apply (not when a test gave the transport).
    let appliesServerNetworks: Bool
    private let serverTransports = ServerTransports()
    /// The stores kept on disk (or in memory in tests), one per server and account.
    public let stores: StoreRegistry
    /// The stores an app keeps in memory only, whatever `stores` is (drafts that must never reach the disk).
    public let memoryStores: StoreRegistry
    /// Where credentials (and other secrets) are kept.
    public let secrets: any SecretStore
    /// Where every exchange and event is recorded, redacted.
    public let journal: Journal
    /// The time source.
    public let clock: any WallClock
    /// How waits happen (backoff, polls).
    public let sleeper: any Sleeper
    /// Randomness for keys and jitter.
    public let random: any RandomSource
    /// The transport a test gave in place of the platform's, if any.
    private let givenTransport: (any Transport)?

    /// Creates an environment.
    ///
    /// - Parameters:
    ///   - transportPolicy: Which URLs may be connected to.
    ///   - stores: The stores kept offline.
    ///   - secrets: The secret store.
    ///   - journal: The journal.
    ///   - clock: The time source; the stores made here use it too.
    ///   - sleeper: How waits happen.
    ///   - random: Randomness.
    ///   - transport: The transport; `nil` takes the platform's default with redirects under `transportPolicy`,
    ///     and each server's own network settings. A test passes another one only to show a case no server can
    ///     (it is then used for every server).
    public init(
        transportPolicy: TransportPolicy, stores: StoreRegistry, secrets: any SecretStore,
        journal: Journal = Journal(), clock: any WallClock = SystemWallClock(), sleeper: any Sleeper = TaskSleeper(),
        random: any RandomSource = SystemRandomSource(), transport: (any Transport)? = nil
    ) {
        self.transportPolicy = transportPolicy
        self.stores = stores
        self.memoryStores = StoreRegistry(location: .memory, clock: clock)
        self.secrets = secrets
        self.journal = journal
        self.clock = clock
        self.sleeper = sleeper
        self.random = random
        self.givenTransport = transport
        self.transport = transport ?? Self.platformTransport(policy: transportPolicy)
        self.appliesServerNetworks = transport == nil
    }

    /// The transport for the server at `baseURL`: its own (trust, client identity, proxy credentials, internal
    /// address: `ServerNetwork`) when its settings in `secrets` set any, else the shared `transport`.
    public func transport(for baseURL: URL) -> any Transport {
        serverTransports.transport(for: baseURL, in: self)
    }

    /// The platform's default transport, following `policy` on every redirect hop.
    public static func platformTransport(policy: TransportPolicy) -> any Transport {
        DefaultTransport.make(redirectPolicy: RedirectPolicy(permits: { policy.permits($0) }))
    }

    /// Parses what a person typed as a server address under this environment's transport policy; an `http://`
    /// address is also kept when it is a server's home address whose person allowed plain http for it (H-NET-3).
    public func address(_ text: String) throws(ServerAddressError) -> ServerAddress {
        do {
            return try ServerAddress(parsing: text, policy: transportPolicy)
        } catch {
            guard case .insecureHTTPNotAllowed = error,
                let written = try? ServerAddress(parsing: text, policy: .development),
                transportPolicy(for: written.url).permits(written.url)
            else { throw error }
            return written
        }
    }

    /// The transport policy for the server at `baseURL`: the environment's, plus plain http to that server's home
    /// address when its person allowed it (`ServerNetwork.plainHTTPAtHome` in `secrets`), and nothing more. Every
    /// client and channel of the server follows it; another server never gains the choice. Settings that cannot be
    /// read leave the environment's policy.
    public func transportPolicy(for baseURL: URL) -> TransportPolicy {
        guard let address = settingsAddress(baseURL),
            let network = try? NetworkSettings(store: secrets, clock: clock).network(for: address)
        else { return transportPolicy }
        return network.policy(under: transportPolicy)
    }

    /// `baseURL` as the address its network settings are filed under (its server key), whatever its scheme: the
    /// settings say whether plain http may be used, the transport policy enforces it at each request.
    func settingsAddress(_ baseURL: URL) -> ServerAddress? {
        try? ServerAddress(parsing: baseURL.absoluteString, policy: .development)
    }

    /// A client for `baseURL` as `profile` describes it, with `middlewares` (a credential, an app's own) between
    /// retry and the journal. Use it before an account is known (sign-in, a probe); afterwards open a
    /// `ServerBundle`, whose client carries the credential.
    public func client(
        for baseURL: URL, profile: AppProfile, middlewares: [any Middleware] = []
    ) -> Client {
        client(
            for: baseURL, profile: profile, middlewares: middlewares, transport: transport(for: baseURL),
            policy: transportPolicy(for: baseURL))
    }

    /// A client whose redirects must also pass `redirects` (a probe that must stay on one origin): a hop that
    /// `redirects` refuses is never requested. It has a transport of its own, made like the environment's
    /// (the platform's default, under the transport policy); an environment made with a test's transport uses
    /// that one, whose redirects are the test's to decide.
    public func client(
        for baseURL: URL, profile: AppProfile, redirects: RedirectPolicy, middlewares: [any Middleware] = []
    ) -> Client {
        let policy = transportPolicy(for: baseURL)
        let own =
            givenTransport
            ?? DefaultTransport.make(
                redirectPolicy: RedirectPolicy(
                    maxRedirects: redirects.maxRedirects, redactor: redirects.redactor,
                    permits: { policy.permits($0) && redirects.permits($0) }))
        return client(for: baseURL, profile: profile, middlewares: middlewares, transport: own, policy: policy)
    }

    private func client(
        for baseURL: URL, profile: AppProfile, middlewares: [any Middleware], transport: any Transport,
        policy: TransportPolicy
    ) -> Client {
        Client(
            baseURL: baseURL,
            configuration: Client.Configuration(
                defaultHeaders: profile.defaultHeaders, timeout: profile.timeout,
                maxResponseBytes: profile.maxResponseBytes, retryPolicy: profile.retryPolicy,
                automaticIdempotencyKeys: profile.automaticIdempotencyKeys,
                middlewares: profile.middlewares + middlewares, transportPolicy: policy, journal: journal,
                recordsExchanges: profile.recordsExchanges, clock: clock, sleeper: sleeper, random: random),
            transport: transport)
    }

    /// The credential session of `account`, from the credential stored for it (signed out when there is none).
    public func session(
        for account: AccountKey, refresher: (any TokenRefresher)? = nil
    ) throws(AuthError) -> CredentialSession {
        try CredentialSession(account: account, store: secrets, refresher: refresher, journal: journal)
    }
}
