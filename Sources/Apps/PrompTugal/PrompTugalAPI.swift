import CompanionCore
import CompanionHTTP
import Foundation

/// PrompTugal's team data as typed requests: plain GETs, each decoding only what its screen needs.
///
/// Rule (P-TEAM-7): a body that does not decode is an `HTTPError.undecodable` of its own request: the fetcher
/// then keeps the last good copy of that file, and every other file is read as before.
public enum PrompTugalAPI {
    /// `endpoint` as any JSON (newsroom, news, meetings and agents files, whose shapes no screen depends on).
    public static func json(_ endpoint: TeamEndpoint) -> Request<JSONValue> {
        decoded(endpoint) { value throws(TeamDataError) in value }
    }

    /// `/me.json`.
    public static let me = decoded(.me) { value throws(TeamDataError) in try TeamMe(json: value) }
    /// `/api/v1/places.json`.
    public static let places = decoded(.places) { value throws(TeamDataError) in try TeamPlaces(json: value) }
    /// `/api/v1/live/agenda.json`.
    public static let agenda = decoded(.agenda) { value throws(TeamDataError) in try TeamAgenda(json: value) }

    /// The command centre at `endpoint` (`TeamEndpoint.commandCentre(personID:)`).
    public static func commandCentre(_ endpoint: TeamEndpoint) -> Request<CommandCentre> {
        decoded(endpoint) { value throws(TeamDataError) in try CommandCentre(json: value) }
    }

    /// `/feed.xml`, read by `FeedReader` (RSS 2.0 or Atom).
    public static let feed = Request<NewsFeed>(method: .get, path: TeamEndpoint.feed.path) {
        data, _, _ throws(HTTPError) in
        do throws(FeedError) {
            return try FeedReader.read(data)
        } catch {
            throw failure("NewsFeed", error.description, TeamEndpoint.feed)
        }
    }

    /// `/llms.txt` of the team site at `site`, read as the discovery of its meetings and agents files.
    public static func discovery(site: URL) -> Request<TeamDiscovery> {
        let endpoint = TeamEndpoint.llmsTxt
        let address = endpoint.url(on: TeamDataBases(both: site))
        return Request<TeamDiscovery>(method: .get, path: endpoint.path) { data, _, _ throws(HTTPError) in
            guard let text = String(data: data, encoding: .utf8) else {
                throw failure("TeamDiscovery", TeamDataError.notText("llms.txt").description, endpoint)
            }
            return TeamDiscovery(llmsTxt: text, address: address, site: site)
        }
    }

    /// A GET of `endpoint` whose body must be JSON, turned into `Value` by `read`.
    static func decoded<Value: Sendable>(
        _ endpoint: TeamEndpoint, _ read: @escaping @Sendable (JSONValue) throws(TeamDataError) -> Value
    ) -> Request<Value> {
        Request<Value>(method: .get, path: endpoint.path) { data, _, _ throws(HTTPError) in
            guard let value = JSONValue(data: data) else {
                throw failure("\(Value.self)", TeamDataError.notJSON(endpoint.name).description, endpoint)
            }
            do throws(TeamDataError) {
                return try read(value)
            } catch {
                throw failure("\(Value.self)", error.description, endpoint)
            }
        }
    }

    static func failure(_ type: String, _ detail: String, _ endpoint: TeamEndpoint) -> HTTPError {
        .undecodable(HTTPError.DecodingFailure(type: type, path: "", detail: detail, url: endpoint.path))
    }
}

/// Why a team-data body was not usable; said of one file, never of the others.
public enum TeamDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON.
    case notJSON(String)
    /// Not UTF-8 text.
    case notText(String)
    /// JSON, but not an object.
    case notAnObject(String)
    /// No list of what the file is about (events, places, a command centre's lists).
    case missingList(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .notJSON(let name): return "The \(name) file is not JSON."
        case .notText(let name): return "The \(name) file is not text."
        case .notAnObject(let name): return "The \(name) file is not a JSON object."
        case .missingList(let name): return "The \(name) file holds no list PrompTugal can read."
        }
    }
}
