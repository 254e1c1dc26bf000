import Foundation

/// The kinds of team JSON `llms.txt` names: the meetings, and the four agent feeds.
public enum TeamFeedKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Stand-ups and briefings.
    case meetings
    /// When the agents woke.
    case wakes
    /// What the agents reported.
    case reports
    /// What the agents are doing now.
    case pulse
    /// Everything the agents did.
    case log

    /// Whether this is one of the agent feeds.
    public var isAgents: Bool { self != .meetings }

    /// The name lists and the terminal show: `meetings`, `agents/wakes`…
    public var endpointName: String { isAgents ? "agents/\(rawValue)" : rawValue }

    /// The words of a label or a section heading that name this kind, matched as the start of a word once
    /// hyphens are dropped (`Wake-ups` is `wakeups`, `Stand-ups` is `standups`).
    var words: [String] {
        switch self {
        case .meetings: return ["meeting", "standup", "briefing"]
        case .wakes: return ["wake"]
        case .reports: return ["report"]
        case .pulse: return ["pulse", "heartbeat"]
        case .log: return ["log"]
        }
    }

    /// The kind a label or heading names, if it names one: the first word that is one of a kind's words.
    static func named(in text: String) -> TeamFeedKind? {
        let words = text.lowercased().replacingOccurrences(of: "-", with: "")
            .split { !$0.isLetter && !$0.isNumber }
        for word in words {
            for kind in allCases {
                if kind == .log {
                    if word == "log" || word == "logs" { return kind }
                } else if kind.words.contains(where: { word.hasPrefix($0) }) {
                    return kind
                }
            }
        }
        return nil
    }

    /// Kinds compare in declaration order.
    public static func < (left: TeamFeedKind, right: TeamFeedKind) -> Bool {
        (allCases.firstIndex(of: left) ?? 0) < (allCases.firstIndex(of: right) ?? 0)
    }
}

/// The meetings and agents files the team site lists in `llms.txt`.
///
/// Rules (P-TEAM-4 as amended, seed §6):
/// - `llms.txt` is Markdown: `## Section` headings, links `[label](target)`. A link counts when its target is JSON
///   (its path ends in `.json`) and it resolves, against `llms.txt`'s own address, to the team site's origin and
///   under its base path; a link to another origin is never followed, whatever it says.
/// - Each counted link is classified by what `llms.txt` says of it, never by its path: its label names the kind
///   (`Wakes`, `Agent reports`, `Heartbeat / pulse`, `Activity log`, `Briefings`), else its section heading does
///   (`## Meetings`, `## Stand-ups and briefings`). A link neither names is not meetings or agents data.
/// - A kind with no link is missing, and the discovery says so (`missing`, `note(for:)`); the other kinds are read.
/// - The discovery is the cached `llms.txt`, so the last one is kept for offline launches.
public struct TeamDiscovery: Sendable, Hashable {
    /// One file found: its kind, its endpoint, and what `llms.txt` calls it.
    public struct Found: Sendable, Hashable {
        /// What kind of data it is.
        public let kind: TeamFeedKind
        /// Where it is (on the team site).
        public let endpoint: TeamEndpoint
        /// Its label in `llms.txt`.
        public let label: String
    }

    /// Every file found, in `llms.txt`'s order.
    public let found: [Found]

    /// The meetings files.
    public var meetings: [TeamEndpoint] { endpoints(of: [.meetings]) }
    /// The agents files (wakes, reports, pulse, log), in `llms.txt`'s order.
    public var agents: [TeamEndpoint] { found.filter { $0.kind.isAgents }.map(\.endpoint) }

    /// The kinds `llms.txt` names no JSON for.
    public var missing: [TeamFeedKind] {
        let present = Set(found.map(\.kind))
        return TeamFeedKind.allCases.filter { !present.contains($0) }
    }

    /// The endpoints of `kinds`, in `llms.txt`'s order.
    public func endpoints(of kinds: Set<TeamFeedKind>) -> [TeamEndpoint] {
        found.filter { kinds.contains($0.kind) }.map(\.endpoint)
    }

    /// The sentence a screen shows for a kind `llms.txt` does not name, `nil` when it names it.
    public func note(for kind: TeamFeedKind) -> String? {
        guard missing.contains(kind) else { return nil }
        return "PrompTugal's team index (llms.txt) lists no \(kind.rawValue) data, so there is none to show."
    }

    /// Reads `llms.txt`, served at `address` (the team site's `/llms.txt`), for the team site at `site`.
    public init(llmsTxt text: String, address: URL, site: URL) {
        var found: [Found] = []
        var section = ""
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") {
                section = String(trimmed.drop(while: { $0 == "#" })).trimmingCharacters(in: .whitespaces)
                continue
            }
            for (label, target) in Self.links(in: trimmed) {
                guard let path = Self.path(of: target, address: address, site: site),
                    let kind = TeamFeedKind.named(in: label) ?? TeamFeedKind.named(in: section)
                else { continue }
                found.append(
                    Found(
                        kind: kind, endpoint: TeamEndpoint(site: .team, path: path, name: kind.endpointName),
                        label: label))
            }
        }
        self.found = found
    }

    /// The labels and targets of Markdown links `[label](target)` on one line.
    static func links(in line: String) -> [(label: String, target: String)] {
        var result: [(String, String)] = []
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "[") {
            let afterOpen = rest[rest.index(after: open)...]
            guard let middle = afterOpen.range(of: "](") else { break }
            let label = afterOpen[..<middle.lowerBound]
            let afterMiddle = afterOpen[middle.upperBound...]
            guard let close = afterMiddle.firstIndex(of: ")") else { break }
            let target = afterMiddle[..<close].trimmingCharacters(in: .whitespaces)
            if !target.isEmpty, !target.contains(" ") {
                result.append((label.trimmingCharacters(in: .whitespaces), target))
            }
            rest = afterMiddle[close...]
        }
        return result
    }

    /// The path below `site` of a JSON link, or `nil` when it is not JSON, not on the site's origin, or not under
    /// its base path.
    static func path(of target: String, address: URL, site: URL) -> String? {
        guard let resolved = URL(string: target, relativeTo: address)?.absoluteURL,
            let link = URLComponents(url: resolved, resolvingAgainstBaseURL: false),
            let base = URLComponents(url: site, resolvingAgainstBaseURL: false),
            link.user == nil, link.password == nil,
            link.scheme?.lowercased() == base.scheme?.lowercased(), link.host?.lowercased() == base.host?.lowercased(),
            link.port ?? defaultPort(link.scheme) == base.port ?? defaultPort(base.scheme)
        else { return nil }
        let linkPath = link.percentEncodedPath
        guard linkPath.lowercased().hasSuffix(".json") else { return nil }
        let segments = linkPath.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        var basePath = base.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        guard basePath.isEmpty || linkPath.hasPrefix(basePath + "/") else { return nil }
        let below = String(linkPath.dropFirst(basePath.count))
        return below + (link.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
    }
}
