import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The sessions list as the screen shows it: grouped as on the watch, with the paging cursor.
public struct SessionsPage: Sendable, Equatable {
    /// The sessions, newest update first.
    public var sessions: [Session]
    /// The projects the sessions are filed in, in display order.
    public var projects: [SessionProject]
    /// The same sessions grouped (needs attention, active, per project, recent).
    public var groups: [SessionGroup]
    /// Whether another page follows.
    public var hasMore: Bool
    /// The cursor for the next page.
    public var lastID: String?

    /// Builds a page from the sessions read so far (every page, in order) and the projects list.
    public init(_ sessions: Paged<Session>, projects: [SessionProject] = []) {
        self.sessions = sessions.items
        self.projects = projects
        groups = SessionGroup.group(sessions.items, projects: projects)
        hasMore = sessions.hasMore
        lastID = sessions.nextCursor
    }
}

/// Omnigent's lists as the kit's paged lists register them.
public enum OmnigentLists {
    /// The sessions list for a query, `limit` sessions a page: newest update first, turned with `after` the last
    /// id of a page (O-ERR-3) while the server says `has_more`; kept in the account's store per query.
    public static func sessions(
        limit: Int = 20, search: String = "", includeArchived: Bool = false
    ) -> PagedList<OmnigentListPage<Session>, Session> {
        PagedList(
            page: { cursor in
                OmnigentAPI.sessions(limit: limit, after: cursor, search: search, includeArchived: includeArchived)
            },
            items: \.data, nextCursor: { $0.hasMore ? $0.lastID ?? $0.data.last?.id : nil })
    }
}

/// The sessions list screen: stale-while-revalidate, readable offline, paged to its end through the store,
/// searchable, with an archived filter. A SwiftUI view renders `state` and calls `refresh()` / `list.loadMore()`
/// (the kit's feed reads the next page into the stored list; every session read is shown, no id twice).
///
/// Rules: the sessions are the kit's paged list (`OmnigentLists.sessions`) and the projects one reply, each a
/// feed of the account's store; what the store holds shows at once with its age, then the server's answer; a
/// failure keeps what is on screen (`offline` or `stale` with the server's sentence), a 401 too, and then
/// `signInRequired` says how to sign in again (O-ERR-2); a list with nothing in it is `empty`. A write of the
/// stored list (a session changed on another screen) shows at once.
@Observable @MainActor
public final class SessionsListModel {
    /// The search text; searching happens on the server when `refresh()` runs (not per keystroke).
    public var search = ""
    /// Whether archived sessions are listed too.
    public var showArchived = false
    /// The sessions of the current query, every page read.
    public private(set) var list: ScreenFeed<Paged<Session>>
    /// The projects the sessions are filed in.
    public let projects: ScreenFeed<[SessionProject]>

    private let server: OmnigentServer
    private let pageSize: Int
    private var query: SessionsQuery

    /// Creates the model for `server`.
    public init(server: OmnigentServer, pageSize: Int = 20) {
        self.server = server
        self.pageSize = pageSize
        query = SessionsQuery(search: "", showArchived: false)
        list = server.bundle.feed(OmnigentLists.sessions(limit: pageSize))
        projects = server.bundle.feed(OmnigentAPI.projects())
    }

    /// What the screen shows: the sessions read so far, grouped with the projects.
    public var state: ScreenState<SessionsPage> {
        let projects = self.projects.value ?? []
        return list.state.map { SessionsPage($0, projects: projects) }
    }

    /// Whether the next page is being read.
    public var isLoadingMore: Bool { list.isLoadingMore }

    /// Set when the server ended the sign-in (401): how to sign in again, by the server's auth mode. What is
    /// on screen stays (O-ERR-2); a successful read clears it.
    public var signInRequired: SignInRoute? {
        list.endsSignIn || projects.endsSignIn ? SignInRoute(server.connection) : nil
    }

    /// Shows the stored list at once (marked with its age), then the server's; keeps the list, marked
    /// offline, when the server cannot be reached. A changed search or filter reads its own list.
    public func refresh(policy: FetchPolicy = .staleWhileRevalidate) async {
        let asked = SessionsQuery(search: search, showArchived: showArchived)
        if asked != query {
            query = asked
            list = server.bundle.feed(
                OmnigentLists.sessions(limit: pageSize, search: asked.search, includeArchived: asked.showArchived))
        }
        await projects.refresh(policy)
        await list.refresh(policy)
    }
}

/// What the sessions list is asked for.
private struct SessionsQuery: Equatable {
    var search: String
    var showArchived: Bool
}
