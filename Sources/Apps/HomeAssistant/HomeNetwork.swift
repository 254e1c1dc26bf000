import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// One account's addresses: the one signed in with, and the home and away addresses the server names in its
/// configuration (`internal_url`, `external_url`), plus Home Assistant Cloud's remote address when the device's
/// registration reports one (H-NET-1).
///
/// Rules:
/// - They are one server and one identity (H-NET-2): the account key stays the one of the address signed in with,
///   and the credential, the store and the registration are the same whichever address is used.
/// - An address the transport policy does not allow (plain http to a host that is not this device, without the
///   person's choice for the home address) is kept and shown with its reason, and never connected to (H-NET-3).
///   The away address is https only: the person's choice covers the home address alone.
/// - `null`, an empty string and text that is not an address count as none; text that is not an address is said.
public struct HomeAddresses: Sendable, Hashable, Codable {
    /// The address the account signed in with (its key).
    public var signedIn: ServerAddress
    /// The home address (`internal_url`), as the server wrote it.
    public var internalURL: String?
    /// The away address (`external_url`), as the server wrote it.
    public var externalURL: String?
    /// Home Assistant Cloud's remote address (`remote_ui_url` of the registration or the webhook `get_config`).
    public var remoteUIURL: String?
    /// Whether the person uses Home Assistant Cloud's remote address when away.
    public var usesCloud: Bool

    /// The addresses of an account signed in at `signedIn`, as `config` names them.
    public init(
        signedIn: ServerAddress, config: ServerConfig? = nil, remoteUIURL: String? = nil, usesCloud: Bool = false
    ) {
        self.signedIn = signedIn
        self.internalURL = config?.internalURL
        self.externalURL = config?.externalURL
        self.remoteUIURL = remoteUIURL
        self.usesCloud = usesCloud
    }

    /// Takes the home and away addresses of a newer configuration (after each `ready`, H-NET-1).
    public mutating func update(from config: ServerConfig) {
        internalURL = config.internalURL
        externalURL = config.externalURL
    }

    /// The home address, read; `nil` when none is named or it is not an address.
    public var home: ServerAddress? { Self.read(internalURL) }

    /// The away address, read; `nil` when none is named or it is not an address.
    public var away: ServerAddress? { Self.read(externalURL) }

    /// The cloud's remote address, read.
    public var remote: ServerAddress? { Self.read(remoteUIURL) }

    /// Reads an address the server wrote, whatever its scheme (the policy decides later whether it may be used).
    static func read(_ text: String?) -> ServerAddress? {
        guard let text, !text.isEmpty else { return nil }
        return try? HomeAssistantAddress.parse(text, policy: .development)
    }

    /// Each named address with the reason it is not used under `policy`, or `nil` when it may be used: what the
    /// server's details show.
    public func refusals(under policy: TransportPolicy) -> [AddressRefusal] {
        var refusals: [AddressRefusal] = []
        for (role, text) in [(AddressRole.home, internalURL), (.away, externalURL), (.cloud, remoteUIURL)] {
            guard let text, !text.isEmpty else { continue }
            guard let address = Self.read(text) else {
                refusals.append(AddressRefusal(role: role, text: text, reason: .notAnAddress))
                continue
            }
            if let reason = reason(role, address, policy) {
                refusals.append(AddressRefusal(role: role, text: text, reason: reason))
            }
        }
        return refusals
    }

    /// Why `address` in `role` may not be used under `policy`: the away and cloud addresses only over https, the
    /// home address over what the policy allows (the person's choice included).
    func reason(_ role: AddressRole, _ address: ServerAddress, _ policy: TransportPolicy) -> AddressRefusal.Reason? {
        if role != .home, address.scheme != "https", !(address.isLoopback && policy.permits(address.url)) {
            return .insecureHTTP
        }
        return policy.permits(address.url) ? nil : .insecureHTTP
    }

    /// The address to use now (H-NET-4): the home one when at home; else the cloud's when it is used and known;
    /// else the away one; else the home one when it is https; else none. `atHome` is the glue's answer (the
    /// network's name matched) or the headless probe's (`HomeProbe`); `nil` (not known) counts as away (H-NET-5).
    /// An address the policy does not allow is skipped (H-NET-3). With neither a home nor an away address named,
    /// the address signed in with is the only one.
    public func active(atHome: Bool?, policy: TransportPolicy) -> ActiveAddress {
        let usable = { (role: AddressRole, address: ServerAddress?) -> ServerAddress? in
            guard let address, reason(role, address, policy) == nil else { return nil }
            return address
        }
        let home = usable(.home, self.home)
        var away = usable(.away, self.away)
        if self.home == nil, self.away == nil { away = usable(.away, signedIn) ?? usable(.home, signedIn) }
        if atHome == true, let home { return ActiveAddress(address: home, role: .home) }
        if usesCloud, let remote = usable(.cloud, remote) { return ActiveAddress(address: remote, role: .cloud) }
        if let away { return ActiveAddress(address: away, role: .away) }
        if let home, home.scheme == "https" { return ActiveAddress(address: home, role: .home) }
        return ActiveAddress(address: nil, role: nil)
    }

    /// Where webhooks go (H-MOB-9): the registration's cloudhook when there is one and the device is away,
    /// otherwise `<active address>/api/webhook/<id>`; `nil` when there is no active address.
    public func webhookURL(
        webhookID: String, cloudhookURL: String?, atHome: Bool?, policy: TransportPolicy
    ) -> URL? {
        if atHome != true, let cloudhookURL, let url = URL(string: cloudhookURL), url.scheme == "https" {
            return url
        }
        guard let address = active(atHome: atHome, policy: policy).address else { return nil }
        return URL(string: address.origin + "/api/webhook/" + webhookID)
    }

    /// The account's network settings in the kit with the home address as its internal address (the kit's
    /// failover then uses it while it answers, and the credential goes to it as to the address signed in with):
    /// `current` with `internalAddress` set when the home address may be used under `policy` and is another one
    /// than the address signed in with, and cleared when the server names none.
    public func network(_ current: ServerNetwork, policy: TransportPolicy) -> ServerNetwork {
        var network = current
        guard let home, reason(.home, home, network.policy(under: policy)) == nil else {
            if home == nil, network.plainHTTPAtHome == nil { network.internalAddress = nil }
            return network
        }
        if home != signedIn || network.plainHTTPAtHome != nil { network.internalAddress = home }
        return network
    }
}

/// Which of an account's addresses.
public enum AddressRole: String, Sendable, Hashable, Codable {
    /// The home address (`internal_url`).
    case home
    /// The away address (`external_url`), or the address signed in with when the server names neither.
    case away
    /// Home Assistant Cloud's remote address.
    case cloud
}

/// An address the server named that is not used, and why (H-NET-3).
public struct AddressRefusal: Sendable, Hashable {
    /// Why an address is not used.
    public enum Reason: String, Sendable, Hashable {
        /// Plain http where it is not allowed.
        case insecureHTTP
        /// The text is not an http(s) address.
        case notAnAddress
    }

    /// Which address.
    public var role: AddressRole
    /// The address as the server wrote it (an address, never a secret).
    public var text: String
    /// Why it is not used.
    public var reason: Reason

    /// A sentence a person can act on.
    public var sentence: String {
        switch (reason, role) {
        case (.notAnAddress, _): return "The \(role.rawValue) address \"\(text)\" is not an http(s) address."
        case (.insecureHTTP, .home):
            return "The home address \(text) is plain http and is not used: allow plain http for this server's "
                + "home address (anyone on the home network can then read what is sent), or serve it over https."
        case (.insecureHTTP, _):
            return "The \(role.rawValue) address \(text) is plain http and is never used: away from home only https is."
        }
    }
}

/// The address chosen for now, with its role; no address when none may be used.
public struct ActiveAddress: Sendable, Hashable {
    /// The address, or `nil`.
    public var address: ServerAddress?
    /// Its role, or `nil`.
    public var role: AddressRole?

    /// An address in its role, or none (`nil`, `nil`).
    public init(address: ServerAddress?, role: AddressRole?) {
        self.address = address
        self.role = role
    }

    /// The WebSocket URL of the address (`ws(s)://…/api/websocket`).
    public var webSocketURL: URL? {
        guard let address else { return nil }
        let hostAndPort = address.host + (address.port.map { ":\($0)" } ?? "")
        return URL(string: (address.scheme == "https" ? "wss://" : "ws://") + hostAndPort + "/api/websocket")
    }
}

/// What the connection must do when the active address changes (H-NET-6, the model's part): the socket to the old
/// address closes with 1001 ("going away"), one to the new address opens, subscriptions are sent again and pending
/// requests fail. The connection (the WebSocket's owner) applies it: `AddressTracker.update(_:)` is its seam.
public enum AddressChange: Sendable, Hashable {
    /// Close the socket to `from` with `closeCode` and open one to `to`.
    case replaceSocket(from: ServerAddress, to: ServerAddress, closeCode: UInt16)
    /// The first address: open a socket to it.
    case connect(ServerAddress)
    /// No address may be used any more: close with `closeCode` and wait.
    case disconnect(from: ServerAddress, closeCode: UInt16)
}

/// Follows the active address and says when the socket must be replaced (H-NET-6).
public struct AddressTracker: Sendable, Hashable {
    /// The address the socket is (or is to be) open to.
    public private(set) var current: ServerAddress?

    /// A tracker with no address yet.
    public init() {}

    /// The close code for a socket left because the address changed: 1001, going away.
    public static let goingAway: UInt16 = 1001

    /// Notes the newly chosen address; returns what the connection must do, or `nil` when it stays.
    public mutating func update(_ active: ActiveAddress) -> AddressChange? {
        let next = active.address
        defer { current = next }
        switch (current, next) {
        case (nil, nil): return nil
        case (nil, let next?): return .connect(next)
        case (let old?, nil): return .disconnect(from: old, closeCode: Self.goingAway)
        case (let old?, let next?):
            return old == next ? nil : .replaceSocket(from: old, to: next, closeCode: Self.goingAway)
        }
    }
}

/// The headless "at home" answer (H-NET-4): the home address is reachable while a short TCP connect to it succeeds
/// (the kit's `ConnectProbe`, 1.5 s), checked again after `recheckAfter` on the injected clock. On a phone the
/// glue's network-name match is the answer instead.
public actor HomeProbe {
    private let probe: any ConnectProbe
    private let clock: any WallClock
    private let timeout: Duration
    private let recheckAfter: TimeInterval
    private var last: (address: ServerAddress, atHome: Bool, at: Date)?

    /// A probe through `probe`, timed by `clock`.
    public init(
        probe: any ConnectProbe = TCPConnectProbe(), clock: any WallClock, timeout: Duration = .milliseconds(1500),
        recheckAfter: Duration = .seconds(60)
    ) {
        self.probe = probe
        self.clock = clock
        self.timeout = timeout
        self.recheckAfter = Double(recheckAfter.components.seconds)
    }

    /// Whether `home` answers; the remembered answer until `recheckAfter` has passed.
    public func atHome(_ home: ServerAddress?) async -> Bool? {
        guard let home, let host = home.url.host else { return nil }
        let now = clock.now()
        if let last, last.address == home, now.timeIntervalSince(last.at) < recheckAfter { return last.atHome }
        let port = home.port ?? (home.scheme == "http" ? 80 : 443)
        let answer = await probe.canConnect(host: host, port: port, timeout: timeout)
        last = (home, answer, now)
        return answer
    }
}

extension HomeAssistantServer {
    /// The key under which the account's addresses are kept in its offline store.
    static let addressesKey = "homeassistant/addresses"

    /// The account's addresses from its store, or only the one signed in with.
    public func addresses() async throws -> HomeAddresses {
        let signedIn = try ServerAddress(parsing: bundle.baseURL.absoluteString, policy: .development)
        guard let stored = try await bundle.store.resource(Self.addressesKey),
            let addresses = try? bundle.client.decode(HomeAddresses.self, from: stored.body)
        else { return HomeAddresses(signedIn: signedIn) }
        return addresses
    }

    /// Saves `config`'s home and away addresses as the account's (H-NET-1), in its store, and the home address as
    /// the kit's internal address of the server's network settings (H-NET-2: the same account key, credential,
    /// store and registration); returns them.
    @discardableResult
    public func saveAddresses(from config: ServerConfig) async throws -> HomeAddresses {
        var addresses = try await addresses()
        addresses.update(from: config)
        let body = try bundle.encoded(addresses)
        let savedAt = bundle.clock.now()
        try await bundle.store.put(
            CachedResource(key: Self.addressesKey, body: body, mediaType: "application/json", fetchedAt: savedAt))
        let settings = NetworkSettings(store: bundle.environment.secrets, clock: bundle.clock)
        let current = try settings.network(for: addresses.signedIn)
        let next = addresses.network(current, policy: bundle.environment.transportPolicy)
        if next != current { try settings.save(next) }
        return addresses
    }
}
