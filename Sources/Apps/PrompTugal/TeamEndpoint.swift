import CompanionHTTP
import Foundation

/// One team-data file: which site it is on, its path, and the name lists and the terminal show.
///
/// Rule (P-TEAM-2, P-TEAM-3, P-OPEN-19): the fixed files are the ones below (places come from
/// `/api/v1/places.json`, never `place.json`). Meetings and agents files have no fixed path: they are found in
/// `llms.txt` (`TeamDiscovery`, P-TEAM-4). The command centre's path holds the person's id as one
/// percent-encoded path segment, and an id that is empty, `.` or `..` gives no endpoint at all, so no request.
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
    /// The path below the site's base (it may carry a `?query`).
    public let path: String
    /// A short name for lists and the terminal (`me`, `places`, `newsroom/desks`, `meetings`).
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

    /// The news in every form: the newsletter, the story, the search index and the feed.
    public static let news: [TeamEndpoint] = [newsletter, story, searchDocs, feed]

    /// `/people/<id>/app/data.json`, the person's command centre; `nil` for an id that is empty, `.` or `..`
    /// (P-OPEN-19). The id is percent-encoded as one path segment (`a/b` is `a%2Fb`).
    public static func commandCentre(personID: String) -> TeamEndpoint? {
        guard let segment = pathSegment(personID) else { return nil }
        return TeamEndpoint(site: .team, path: "/people/\(segment)/app/data.json", name: "command-centre")
    }

    /// `text` percent-encoded as one path segment (only unreserved characters stay), or `nil` when it is empty,
    /// `.` or `..`, which no encoding makes safe.
    public static func pathSegment(_ text: String) -> String? {
        guard !text.isEmpty, text != ".", text != ".." else { return nil }
        return PercentEncoding.segment(text)
    }

    /// Every fixed endpoint (the command centre needs an id; meetings and agents need `llms.txt`).
    public static let fixed: [TeamEndpoint] = [me, agenda, places] + news + newsroom

    /// The absolute URL on `bases`.
    public func url(on bases: TeamDataBases) -> URL {
        var text = bases.base(site).absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path) ?? bases.base(site)
    }
}
