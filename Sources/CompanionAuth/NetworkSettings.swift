import CompanionCore
import CompanionHTTP
import Foundation

/// Each server's network settings (`ServerNetwork`) and the client identities, kept in the secret store beside
/// the credentials, and the one function that makes a server's transport from them.
///
/// Rules:
/// - One `ServerNetwork` record per server key; a server with nothing set has no record and gets the system's
///   defaults. Identities are records of their own, so one identity assigned to two servers is stored once and
///   both servers get it.
/// - `transport(for:…)` is what every client for a server is made with (the app cores get it through the kit's
///   server bundle): it registers the secrets inside (the proxy password, the PKCS#12 passphrase) with the
///   journal, so they are masked wherever they could appear.
/// - Nothing here prints a secret: `ServerNetwork`, `ClientIdentity` and `ProxyCredential` describe themselves
///   without their passwords, passphrases or keys.
public struct NetworkSettings: Sendable {
    /// The store the records live in.
    public let store: any SecretStore
    private let clock: any WallClock

    /// Settings in `store`; `clock` stamps pins and imports.
    public init(store: any SecretStore, clock: any WallClock = SystemWallClock()) {
        self.store = store
        self.clock = clock
    }

    private static func key(_ server: ServerAddress) -> SecretRecordKey { SecretRecordKey(.network, server.serverKey) }

    /// The settings of `server` (the defaults when none are stored).
    public func network(for server: ServerAddress) throws(SecretStoreError) -> ServerNetwork {
        guard let data = try store.loadRecord(Self.key(server)) else { return ServerNetwork(server: server) }
        guard var network = try? JSONDecoder().decode(ServerNetwork.self, from: data) else {
            throw .damaged(account: Self.key(server).description)
        }
        network.server = server
        return network
    }

    /// Stores `network` under its server's key (removing the record when nothing is set).
    public func save(_ network: ServerNetwork) throws(SecretStoreError) {
        let key = Self.key(network.server)
        if network.isDefault { return try store.deleteRecord(key) }
        guard let data = try? JSONEncoder().encode(network) else { throw .unavailable(detail: "encoding the settings") }
        try store.saveRecord(data, for: key)
    }

    /// Changes the settings of `server` with `change` and stores them.
    @discardableResult
    public func update(_ server: ServerAddress, _ change: (inout ServerNetwork) -> Void) throws(SecretStoreError)
        -> ServerNetwork
    {
        var network = try network(for: server)
        change(&network)
        try save(network)
        return network
    }

    /// Pins `certificate`'s key for `server` (stamped with the clock).
    @discardableResult
    public func pin(_ certificate: ServerCertificate, for server: ServerAddress) throws(SecretStoreError)
        -> ServerNetwork
    {
        let now = clock.now()
        return try update(server) { $0.trust = $0.trust.pinning(certificate, at: now) }
    }

    /// Trusts the CA certificate `der` for `server`.
    @discardableResult
    public func trustCA(_ der: Data, for server: ServerAddress) throws(SecretStoreError) -> ServerNetwork {
        try update(server) { $0.trust = $0.trust.anchoring(der) }
    }

    /// The identity with `id`, or `nil`.
    public func identity(_ id: String) throws(SecretStoreError) -> ClientIdentity? {
        let key = SecretRecordKey(.identity, id)
        guard let data = try store.loadRecord(key) else { return nil }
        guard let identity = try? JSONDecoder().decode(ClientIdentity.self, from: data) else {
            throw .damaged(account: key.description)
        }
        return identity
    }

    /// Every stored identity, by id.
    public func identities() throws(SecretStoreError) -> [ClientIdentity] {
        var result: [ClientIdentity] = []
        for key in try store.recordKeys(.identity) {
            if let identity = try identity(key.name) { result.append(identity) }
        }
        return result
    }

    /// Stores `identity` (once, whatever number of servers it is assigned to).
    public func save(_ identity: ClientIdentity) throws(SecretStoreError) {
        guard let data = try? JSONEncoder().encode(identity) else {
            throw .unavailable(detail: "encoding the identity")
        }
        try store.saveRecord(data, for: SecretRecordKey(.identity, identity.id))
    }

    /// Stores `identity` and assigns it to every server in `servers` (each keeps its other settings).
    public func assign(_ identity: ClientIdentity, to servers: [ServerAddress]) throws(SecretStoreError) {
        try save(identity)
        for server in servers { try update(server) { $0.identityID = identity.id } }
    }

    /// The transport for `server`: its trust, its identity, its internal address and its proxy credentials
    /// (`ServerNetwork.transport`), with their secrets registered with `journal`. A stored identity that is gone
    /// is reported, never silently replaced by none. With `policy`, an http home address is used only when the
    /// person allowed it (`ServerNetwork.policy(under:)`).
    public func transport(
        for server: ServerAddress, redirectPolicy: RedirectPolicy = RedirectPolicy(), journal: Journal = Journal(),
        probe: any ConnectProbe = TCPConnectProbe(), policy: TransportPolicy? = nil
    ) throws(SecretStoreError) -> any Transport {
        let network = try network(for: server)
        var identity: ClientIdentity?
        if let id = network.identityID {
            guard let stored = try self.identity(id) else { throw .damaged(account: "identity \(id)") }
            identity = stored
        }
        for secret in network.secretValues + (identity?.secretValues ?? []) { journal.register(secret: secret) }
        return network.transport(
            identity: identity, redirectPolicy: redirectPolicy, journal: journal, clock: clock, probe: probe,
            policy: policy)
    }
}
