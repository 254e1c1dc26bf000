import CompanionCore

/// The servers the person connected to recently, newest first.
///
/// Rules, and their reasons:
/// - At most 5, newest first; a server already present (same `serverKey`) moves to the front, so the list
///   shows distinct servers and never repeats one with a trailing slash or different case.
/// - A server is added only after its page loaded successfully (`recordSuccessfulLoad`), so a typo or a
///   refused link never becomes a suggestion.
/// - Only the server identity is stored: callers pass the server, never the page URL, so a `/c/<id>`
///   conversation path never enters the list.
/// - Managed presets are never written here, and a stored entry equal to a current preset is hidden from the
///   display, so withdrawing the configuration withdraws the presets from the app.
/// - A stored list is read back entry by entry, each under the development build's policy (a LAN `http://`
///   server a development build connected to reads back; the transport policy still decides, request by
///   request, what may be connected to). One entry that cannot be read is left out; the others are kept.
public struct RecentServers: Sendable, Hashable, Codable {
    /// The most entries kept.
    public static let capacity = 5

    /// The entries, newest first.
    public private(set) var servers: [ServerAddress]

    /// Creates the list from stored entries, re-applying the rules (de-duplication, capacity).
    public init(_ servers: [ServerAddress] = []) {
        self.servers = []
        for server in servers.reversed() { insert(server) }
    }

    /// Records that `server` loaded successfully; a server matching one of `presets` is not stored.
    public mutating func recordSuccessfulLoad(of server: ServerAddress, presets: [ServerAddress] = []) {
        guard !presets.contains(where: { $0.serverKey == server.serverKey }) else { return }
        insert(server)
    }

    /// The entries to show, without any whose server key equals a current preset.
    public func displayed(hiding presets: [ServerAddress]) -> [ServerAddress] {
        let presetKeys = Set(presets.map(\.serverKey))
        return servers.filter { !presetKeys.contains($0.serverKey) }
    }

    enum CodingKeys: String, CodingKey {
        case servers
    }

    /// Reads a stored list (`{"servers": ["https://…", …]}`), keeping every entry that reads as an address.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var entries = try container.nestedUnkeyedContainer(forKey: .servers)
        var servers: [ServerAddress] = []
        while !entries.isAtEnd {
            guard let text = try? entries.decode(String.self) else {
                // Not a string: skipped, so one bad entry never hides the rest.
                guard (try? entries.decode(JSONValue.self)) != nil else { break }
                continue
            }
            if let server = try? ServerAddress(parsing: text, policy: .development) { servers.append(server) }
        }
        self.init(servers)
    }

    private mutating func insert(_ server: ServerAddress) {
        servers.removeAll { $0.serverKey == server.serverKey }
        servers.insert(server, at: 0)
        if servers.count > Self.capacity { servers.removeLast(servers.count - Self.capacity) }
    }
}
