import Foundation

/// The two public sites PrompTugal reads team data from; both configurable (tests point them at a local stand-in).
public struct TeamDataBases: Sendable, Hashable {
    /// The team site: people, the command centre, meetings, agents, `llms.txt`.
    public var team: URL
    /// The news site: newsroom, news, agenda, places.
    public var news: URL

    /// Creates bases.
    public init(team: URL, news: URL) {
        self.team = team
        self.news = news
    }

    /// Both sites at one address (a stand-in serves both).
    public init(both: URL) { self.init(team: both, news: both) }

    /// The live sites (P-TEAM-2, P-OPEN-19): the team site `https://web-summit.sgit.ai`, the news site
    /// `https://promptugal.news`.
    public static let production = TeamDataBases(
        team: URL(string: "https://web-summit.sgit.ai") ?? URL(fileURLWithPath: "/"),
        news: URL(string: "https://promptugal.news") ?? URL(fileURLWithPath: "/"))

    /// The base of `site`.
    public func base(_ site: TeamEndpoint.Site) -> URL { site == .team ? team : news }
}
