import Foundation

/// The two public sites PrompTugal reads team data from; both configurable (tests point them at a local stand-in).
public struct TeamDataBases: Sendable, Hashable {
    /// The team site: people, meetings, agents, `llms.txt`.
    public var team: URL
    /// The news site: newsroom, news, agenda, places.
    public var news: URL

    /// Creates bases.
    public init(team: URL, news: URL) {
        self.team = team
        self.news = news
    }

    /// Both sites at one address (the stand-in serves both).
    public init(both: URL) { self.init(team: both, news: both) }

    /// The live sites.
    public static let production = TeamDataBases(
        team: URL(string: "https://web-summit.sgit.ai") ?? URL(fileURLWithPath: "/"),
        news: URL(string: "https://promptugal.news") ?? URL(fileURLWithPath: "/"))
}

/// One team-data file: which site it is on and its path.
///
/// Rule (P-TEAM-2, P-TEAM-3): the fixed paths are the ones below; places come from `/api/v1/places.json`,
/// never `place.json`. Meetings and agents files have no fixed path: they are found in `llms.txt`
/// (`TeamDiscovery`), because the team site names them there (P-TEAM-4).
public struct TeamEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Which site.
    public enum Site: String, Sendable, Hashable {
        /// The team site.
        case team
        /// The news site.
        case news
    }

    /// The site.
    public let site: Site
    /// The path below the site's base.
    public let path: String
    /// A short name for lists and the terminal (`me`, `places`, `newsroom/desks`).
    public let name: String

    /// Creates an endpoint.
    public init(site: Site, path: String, name: String) {
        self.site = site
        self.path = path
        self.name = name
    }

    /// The name.
    public var description: String { name }

    /// `/me.json`: who the reader is, with counts.
    public static let me = TeamEndpoint(site: .team, path: "/me.json", name: "me")
    /// `/llms.txt`: the index naming the meetings and agents files.
    public static let llmsTxt = TeamEndpoint(site: .team, path: "/llms.txt", name: "llms.txt")
    /// `/api/v1/live/agenda.json`.
    public static let agenda = TeamEndpoint(site: .news, path: "/api/v1/live/agenda.json", name: "agenda")
    /// `/api/v1/places.json`.
    public static let places = TeamEndpoint(site: .news, path: "/api/v1/places.json", name: "places")
    /// `/feed.xml`.
    public static let feed = TeamEndpoint(site: .news, path: "/feed.xml", name: "feed")
    /// `/api/v1/newsletter.json`.
    public static let newsletter = TeamEndpoint(site: .news, path: "/api/v1/newsletter.json", name: "newsletter")
    /// `/api/v1/story.json`.
    public static let story = TeamEndpoint(site: .news, path: "/api/v1/story.json", name: "story")
    /// `/api/v1/search/docs.json`.
    public static let searchDocs = TeamEndpoint(site: .news, path: "/api/v1/search/docs.json", name: "search")

    /// The newsroom files: desks, stories, dashboard, decisions, status.
    public static let newsroom: [TeamEndpoint] = ["desks", "stories", "dashboard", "decisions", "status"].map {
        TeamEndpoint(site: .news, path: "/api/v1/newsroom/\($0).json", name: "newsroom/\($0)")
    }

    /// `/people/<id>/app/data.json`, the person's command centre; `nil` for an id that is empty, `.` or `..`
    /// (P-OPEN-19). The id is percent-encoded as one path segment.
    public static func commandCentre(personID: String) -> TeamEndpoint? {
        guard !personID.isEmpty, personID != ".", personID != ".." else { return nil }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        guard let segment = personID.addingPercentEncoding(withAllowedCharacters: allowed) else { return nil }
        return TeamEndpoint(site: .team, path: "/people/\(segment)/app/data.json", name: "command-centre")
    }

    /// Every fixed endpoint (the command centre needs an id; meetings and agents need `llms.txt`).
    public static let fixed: [TeamEndpoint] =
        [me, agenda, places, feed, newsletter, story, searchDocs] + newsroom

    /// The absolute URL on `bases`.
    public func url(on bases: TeamDataBases) -> URL {
        let base = site == .team ? bases.team : bases.news
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path) ?? base
    }
}

/// The meetings and agents files the team site lists in `llms.txt`.
///
/// Rule (P-TEAM-4): the app reads the links of `llms.txt` (Markdown `[title](path)`) and keeps those under
/// `/meetings/` and under the four agent folders `/wakes/`, `/reports/`, `/pulse/`, `/log/` that end in
/// `.json`. A path elsewhere, on another host, or not JSON is ignored.
public struct TeamDiscovery: Sendable, Hashable {
    /// The agent folders.
    public static let agentFolders = ["wakes", "reports", "pulse", "log"]

    /// The meetings files.
    public var meetings: [TeamEndpoint]
    /// The agents files.
    public var agents: [TeamEndpoint]

    /// Reads `llms.txt`.
    public init(llmsTxt text: String) {
        var meetings: [TeamEndpoint] = []
        var agents: [TeamEndpoint] = []
        for path in Self.links(in: text) {
            guard path.hasPrefix("/"), !path.hasPrefix("//"), path.hasSuffix(".json"), !path.contains("..") else {
                continue
            }
            let folder = path.split(separator: "/").first.map(String.init) ?? ""
            if folder == "meetings" {
                meetings.append(TeamEndpoint(site: .team, path: path, name: "meetings"))
            } else if Self.agentFolders.contains(folder) {
                agents.append(TeamEndpoint(site: .team, path: path, name: "agents/\(folder)"))
            }
        }
        self.meetings = meetings
        self.agents = agents
    }

    /// The targets of Markdown links `[text](target)`.
    static func links(in text: String) -> [String] {
        var result: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "](") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            let target = after[..<close].trimmingCharacters(in: .whitespaces)
            if !target.isEmpty, !target.contains(" ") { result.append(target) }
            rest = after[close...]
        }
        return result
    }
}
