import Foundation

/// The watch's grouping of a sessions list (O-WATCH-11, O-OPEN-18), as the real app's watch groups it.
///
/// Rules: each session appears in exactly one group, in this order of precedence: needs attention
/// (an approval waits) > active (launching, running, waiting) > its project > recent. A project group is a
/// project of the projects list (with an id) holding sessions, in the list's order and named by it; a session
/// whose project is not in the list (or has none) is recent. Within a group the sessions list's own order
/// (newest update first) is kept. Empty groups are left out.
public struct SessionGroup: Sendable, Hashable, Identifiable {
    /// What a group is.
    public enum Kind: Sendable, Hashable {
        /// Sessions with a pending approval.
        case needsAttention
        /// Sessions that are working.
        case active
        /// Sessions of one project.
        case project(String)
        /// Everything else.
        case recent
    }

    /// The group's kind.
    public var kind: Kind
    /// Its sessions, in list order.
    public var sessions: [Session]

    /// A stable id for a list view.
    public var id: String {
        switch kind {
        case .needsAttention: return "attention"
        case .active: return "active"
        case .project(let name): return "project:\(name)"
        case .recent: return "recent"
        }
    }

    /// The heading to show.
    public var title: String {
        switch kind {
        case .needsAttention: return "Needs attention"
        case .active: return "Active"
        case .project(let name): return name
        case .recent: return "Recent"
        }
    }

    /// Groups `sessions` by the rules above, with the projects of `/v1/sessions/projects`.
    public static func group(_ sessions: [Session], projects: [SessionProject] = []) -> [SessionGroup] {
        var known: [String: Int] = [:]
        for (index, project) in projects.enumerated() {
            if let id = project.id, known[id] == nil { known[id] = index }
        }
        var attention: [Session] = []
        var active: [Session] = []
        var filed: [Int: [Session]] = [:]
        var recent: [Session] = []
        for session in sessions {
            if session.needsAttention {
                attention.append(session)
            } else if session.isActive {
                active.append(session)
            } else if let project = session.projectID, let index = known[project] {
                filed[index, default: []].append(session)
            } else {
                recent.append(session)
            }
        }
        var groups: [SessionGroup] = []
        if !attention.isEmpty { groups.append(SessionGroup(kind: .needsAttention, sessions: attention)) }
        if !active.isEmpty { groups.append(SessionGroup(kind: .active, sessions: active)) }
        for (index, project) in projects.enumerated() {
            guard let members = filed[index] else { continue }
            groups.append(SessionGroup(kind: .project(project.name), sessions: members))
        }
        if !recent.isEmpty { groups.append(SessionGroup(kind: .recent, sessions: recent)) }
        return groups
    }
}

extension Array where Element == SessionItem {
    /// The newest `count` chat messages (user or assistant text), oldest first (O-WATCH-3, O-OPEN-19).
    /// The array is taken to be in chronological order for items stamped in the same second (the
    /// server's timestamps are whole seconds), so that order is kept for ties.
    public func lastChatMessages(_ count: Int = 8) -> [SessionItem] {
        let chat = enumerated().filter { $0.element.isChatMessage }
            .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }
            .map(\.element)
        return Array(chat.suffix(count))
    }
}
