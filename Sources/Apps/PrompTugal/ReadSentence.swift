import CompanionApp
import CompanionHTTP
import CompanionSync
import Foundation

/// PrompTugal's wording hook (`AppProfile.sentence`): how a failed read of a team-data part is said.
///
/// Rules (P-TEAM-6, P-TEAM-7, P-TEAM-8):
/// - Always in the product's name, naming the part (`agenda`, `news feed`, `your command centre`) from the read's
///   key, and saying whether the last good copy stays on screen.
/// - The site's own message is quoted word for word, except that a data source's host (either site's, the live
///   sites', with or without a port) and any web address in it are replaced by "the site": no sentence names a
///   data source (an HTML error page's `<title>` may carry `web-summit.sgit.ai`).
/// - A connection that failed is said without its address.
struct ReadSentence: Sendable {
    /// The hosts no sentence names: the two sites' and the live sites'.
    let hosts: [String]

    /// A hook hiding the hosts of `sites` and of the live sites.
    init(sites: TeamDataBases) {
        let all = [sites.team, sites.news, TeamDataBases.production.team, TeamDataBases.production.news]
        var hosts: [String] = []
        for url in all {
            guard let host = url.host?.lowercased(), !host.isEmpty else { continue }
            if let port = url.port { hosts.append("\(host):\(port)") }
            hosts.append(host)
        }
        // Longest first, so a host with its port goes before the host alone.
        self.hosts = Array(Set(hosts)).sorted { $0.count > $1.count || ($0.count == $1.count && $0 < $1) }
    }

    /// The sentence for `failure`.
    func callAsFunction(_ failure: ReadFailure) -> String {
        let name = Self.part(failure.key)
        let undecodable: Bool
        switch (failure.cause, failure.http) {
        case (.undecodable?, _), (_, .undecodable?): undecodable = true
        default: undecodable = false
        }
        if case .store(let error)? = failure.cause {
            return "PrompTugal could not use its saved data: \(hide(error.description))"
        }
        if failure.keepsValue {
            if undecodable { return "PrompTugal could not read the \(name) it received; the last good copy is kept." }
            let why = failure.http.map(reason) ?? hide(failure.detail)
            return "PrompTugal could not refresh \(name): \(why)."
        }
        if undecodable { return "PrompTugal could not read the \(name) it received and has no saved copy." }
        if case .notCached? = failure.cause {
            return "PrompTugal has no saved copy of \(name) yet; connect once to load it."
        }
        if let http = failure.http {
            return "PrompTugal could not load \(name) and has no saved copy: \(reason(http))."
        }
        // The app's own refusal (a person id that cannot be part of an address) says it in its own words.
        return hide(failure.detail)
    }

    /// The sentence shown with a copy read offline by choice.
    static let offlineCopy = "PrompTugal is showing the copy saved on this device."

    /// Why a request failed, without an address: `the site answered 503: Injected fault`.
    func reason(_ error: HTTPError) -> String {
        if let status = error.statusCode {
            if let message = error.envelope?.summary { return "the site answered \(status): \(hide(message))" }
            return "the site answered \(status)"
        }
        if case .undecodable = error { return "what it sent could not be read" }
        return "the connection failed"
    }

    /// `text` with every web address, every word that is a host name (`web-summit.sgit.ai`, `127.0.0.1:8080`;
    /// not a file name such as `agenda.json`) and every source host replaced by "the site".
    func hide(_ text: String) -> String {
        var words: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let punctuation = CharacterSet(charactersIn: "()[]<>{}\"'`,;:.!?")
            let core = word.trimmingCharacters(in: punctuation)
            if word.contains("://") || Self.isHostName(core) {
                words.append(word.replacingOccurrences(of: core, with: "the site"))
            } else {
                words.append(String(word))
            }
        }
        var result = words.joined(separator: " ")
        for host in hosts {
            while let range = result.range(of: host, options: .caseInsensitive) {
                result.replaceSubrange(range, with: "the site")
            }
        }
        return result
    }

    /// Whether `word` is a host name, with or without a port: two or more dot-separated labels of letters, digits
    /// and hyphens whose last is letters (not a file's extension) or all digits (an IPv4 address).
    static func isHostName(_ word: String) -> Bool {
        var name = Substring(word.lowercased())
        if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            name = name[..<colon]
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2,
            labels.allSatisfy({
                !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            })
        else { return false }
        let last = labels[labels.count - 1]
        if labels.count == 4, labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return true }
        let files: Set<Substring> = ["json", "xml", "html", "htm", "txt", "js", "css", "md", "rss", "atom", "csv"]
        return last.count >= 2 && last.allSatisfy(\.isLetter) && !files.contains(last)
    }

    /// The part a read's key names: `GET /api/v1/live/agenda.json` is `agenda`.
    static func part(_ key: String?) -> String {
        guard var path = key else { return "this part" }
        if let space = path.firstIndex(of: " ") { path = String(path[path.index(after: space)...]) }
        if let mark = path.firstIndex(of: "?") { path = String(path[..<mark]) }
        if path == TeamEndpoint.feed.path { return "news feed" }
        if path == TeamEndpoint.llmsTxt.path { return "the team index" }
        if path.hasPrefix("/people/"), path.hasSuffix("/app/data.json") { return "your command centre" }
        if let fixed = TeamEndpoint.fixed.first(where: { $0.path == path }) { return fixed.name }
        return path.split(separator: "/").last.map(String.init) ?? "this part"
    }
}
