import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation

/// The team's public data, read through the sites' bundles and kept for offline use.
///
/// Rules:
/// - Every request is a plain GET through the app's clients, with no credential of any kind: no Authorization, no
///   cookie (the transport keeps none), no vault or OpenRouter key (P-TEAM-1).
/// - A screen reads through the kit's fetcher into the kit's `ScreenState`, stale-while-revalidate (P-OPEN-18):
///   the saved copy at once with its age, then the site's answer. A good reply is decoded first and then cached on
///   disk with its fetch time, keyed by its site and path (P-TEAM-5). When the site fails, the saved copy stays
///   with its age: `offline` when the site could not be reached, `stale` when it answered with an error or with a
///   body that does not decode, which never replaces the last good copy (P-TEAM-6, P-TEAM-7). With nothing saved
///   the state is `failed` with a sentence saying so, never an empty success; saved copies survive a relaunch.
///   `offline: true` reads only the saved copies.
/// - Each file is its own part: one that fails or does not decode leaves every other part as it is.
/// - Meetings and agents files are found in `llms.txt` (`TeamDiscovery`, P-TEAM-4); the command centre needs the
///   person's id from `me.json` (`CommandCentreModel`).
public struct TeamData: Sendable {
    /// The sites.
    public let server: PrompTugalServer

    /// Reads the sites of `server`.
    public init(server: PrompTugalServer) { self.server = server }

    /// A feed of `request` from `site`: what a screen showing that part holds. It reads through the site's bundle
    /// (stale-while-revalidate; `refresh(.offline)` reads the saved copy only) and observes the site's store.
    @MainActor
    public func feed<Value: Sendable & Equatable>(_ request: Request<Value>, on site: TeamEndpoint.Site) -> ScreenFeed<
        Value
    > {
        server.bundle(site).feed(request)
    }

    /// The state a feed of `request` ends in after one refresh (the saved copy only when `offline`): for a caller
    /// that waits for the whole load (the terminal, the bridge).
    @MainActor
    public func state<Value: Sendable & Equatable>(
        _ request: Request<Value>, on site: TeamEndpoint.Site, offline: Bool = false
    ) async -> ScreenState<Value> {
        let feed = feed(request, on: site)
        await feed.refresh(offline ? .offline : nil)
        return feed.state
    }

    /// Any team-data file as JSON.
    public func json(_ endpoint: TeamEndpoint, offline: Bool = false) async -> ScreenState<JSONValue> {
        await state(PrompTugalAPI.json(endpoint), on: endpoint.site, offline: offline)
    }

    /// `me.json`.
    public func me(offline: Bool = false) async -> ScreenState<TeamMe> {
        await state(PrompTugalAPI.me, on: .team, offline: offline)
    }

    /// `places.json`.
    public func places(offline: Bool = false) async -> ScreenState<TeamPlaces> {
        await state(PrompTugalAPI.places, on: .news, offline: offline)
    }

    /// `agenda.json`.
    public func agenda(offline: Bool = false) async -> ScreenState<TeamAgenda> {
        await state(PrompTugalAPI.agenda, on: .news, offline: offline)
    }

    /// `feed.xml`, read as RSS or Atom; a body that is not a feed keeps the last good one.
    public func feed(offline: Bool = false) async -> ScreenState<NewsFeed> {
        await state(PrompTugalAPI.feed, on: .news, offline: offline)
    }

    /// `llms.txt`, read as the discovery of the meetings and agents files (the saved one offline).
    public func discovery(offline: Bool = false) async -> ScreenState<TeamDiscovery> {
        await state(PrompTugalAPI.discovery(site: server.sites.team), on: .team, offline: offline)
    }

    /// `fresh`, `stale, 12 min old`, `offline, 1 h old`, `empty` or `failed`, for lists and the terminal.
    public static func summary<Value>(_ state: ScreenState<Value>) -> String {
        switch state {
        case .loading: return "loading"
        case .content: return "fresh"
        case .empty: return "empty"
        case .stale(_, let age, _): return "stale, \(describe(age: age)) old"
        case .offline(_, let age, _): return "offline, \(describe(age: age)) old"
        case .failed: return "failed"
        }
    }

    /// `42 s`, `3 min`, `2 h`, `1 d`.
    public static func describe(age: TimeInterval) -> String {
        let seconds = Int(age.rounded())
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3_600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3_600) h" }
        return "\(seconds / 86_400) d"
    }
}
