import CompanionCore
import Foundation

/// Home Assistant's addresses: what a person typed, reduced to the server's root, and servers found on the
/// network.
public enum HomeAssistantAddress {
    /// Parses `text` under `policy` (the kit's `ServerAddress`: trimmed, https when no scheme is given, http only
    /// where the policy allows it, no port guessed, H-ADDR-2) and reduces it to scheme, host and port (H-ADDR-1):
    /// Home Assistant serves from its root, so a pasted frontend page (`/lovelace/0?x#y`) or API path
    /// (`/api/websocket`) leads to the same server.
    public static func parse(_ text: String, policy: TransportPolicy) throws(ServerAddressError) -> ServerAddress {
        try root(of: ServerAddress(parsing: text, policy: policy), policy: policy)
    }

    /// `address` without its path and query.
    public static func root(of address: ServerAddress, policy: TransportPolicy) throws(ServerAddressError)
        -> ServerAddress
    {
        guard !address.path.isEmpty || address.query != nil else { return address }
        return try ServerAddress(parsing: address.origin, policy: policy)
    }
}

/// A Home Assistant server announced on the local network (`_home-assistant._tcp.`), read from its TXT record
/// (H-ADDR-5; the browsing itself is Apple glue, H-ADDR-6).
public struct DiscoveredServer: Sendable, Hashable {
    /// The address to offer: `internal_url`, else `external_url`, else `base_url`.
    public var url: String
    /// The home's name (`location_name`), "Home" when none.
    public var name: String
    /// The instance's id (`uuid`), if given.
    public var uuid: String?
    /// Its version, if given.
    public var version: String?

    /// Reads a TXT dictionary; `nil` when it names no address (empty strings count as absent, as Home Assistant
    /// publishes every key with "" when unset).
    public init?(txt: [String: String]) {
        func value(_ key: String) -> String? {
            guard let text = txt[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        guard let url = value("internal_url") ?? value("external_url") ?? value("base_url") else { return nil }
        self.url = url
        self.name = value("location_name") ?? "Home"
        self.uuid = value("uuid")
        self.version = value("version")
    }
}
