import CompanionCore

/// The servers the connect screen and the picker offer: managed presets first, then recents (presets hidden).
///
/// Rule: a switch requested by the page is allowed only to an offered server, matched by server key or by
/// origin, and goes to that entry's stored address (with its mount), so a page can never steer the app to a
/// server of its choosing, nor to a preset withdrawn since the picker opened.
public struct ServerOffer: Sendable, Hashable {
    /// The managed presets, in configuration order.
    public let presets: [ServerAddress]
    /// The recents as displayed: newest first, presets hidden.
    public let recents: [ServerAddress]

    /// Creates the offer from the current presets and the recents list.
    public init(presets: [ServerAddress], recents: RecentServers) {
        self.presets = presets
        self.recents = recents.displayed(hiding: presets)
    }

    /// Every offered server, presets first.
    public var offered: [ServerAddress] { presets + recents }

    /// The offered entry `text` names, or `nil` when it names nothing offered (or cannot be read).
    ///
    /// An exact server-key match wins over an origin match, so two mounts on one host stay distinct.
    public func entry(matching text: String, policy: TransportPolicy = .allowingInsecureLoopback) -> ServerAddress? {
        guard let address = try? ServerAddress(parsing: text, policy: policy) else { return nil }
        return offered.first(where: { $0.serverKey == address.serverKey })
            ?? offered.first(where: { $0.origin == address.origin })
    }
}
