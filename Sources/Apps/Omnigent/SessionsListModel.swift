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

    /// Builds a page from a server list page and the projects list.
    public init(_ page: OmnigentListPage<Session>, projects: [SessionProject] = []) {
        sessions = page.data
        self.projects = projects
        groups = SessionGroup.group(page.data, projects: projects)
        hasMore = page.hasMore
        lastID = page.lastID
    }

    /// This page followed by `next`, de-duplicated by id (a session that moved keeps its first place).
    public func appending(_ next: OmnigentListPage<Session>) -> SessionsPage {
        var seen = Set(sessions.map(\.id))
        var merged = OmnigentListPage(data: sessions, lastID: next.lastID, hasMore: next.hasMore)
        for session in next.data where seen.insert(session.id).inserted { merged.data.append(session) }
        return SessionsPage(merged, projects: projects)
    }
}

/// The sessions list screen: stale-while-revalidate, readable offline, paged, searchable, with an
/// archived filter. A SwiftUI view renders `state` and calls `refresh()` / `loadMore()`.
///
/// Rules: the first page and the projects list are one snapshot (read together, stored together, shown
/// from one moment); what the store holds shows at once with its age, then the server's answer; a failure
/// keeps what is on screen (`offline` or `stale` with the server's sentence), a 401 too, and then
/// `signInRequired` says how to sign in again (O-ERR-2); a list with nothing in it is `empty`.
@Observable @MainActor
public final class SessionsListModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<SessionsPage> = .loading
    /// The search text; searching happens on the server when `refresh()` runs (not per keystroke).
    public var search = ""
    /// Whether archived sessions are listed too.
    public var showArchived = false
    /// Whether the next page is being read.
    public private(set) var isLoadingMore = false
    /// Why the last `loadMore()` failed, if it did (the list on screen stays).
    public private(set) var loadMoreProblem: String?

    /// Set when the server ended the sign-in (401): how to sign in again, by the server's auth mode. What is
    /// on screen stays (O-ERR-2); a successful load clears it.
    public private(set) var signInRequired: SignInRoute?

    private let server: OmnigentServer
    private let pageSize: Int

    /// Creates the model for `server`.
    public init(server: OmnigentServer, pageSize: Int = 20) {
        self.server = server
        self.pageSize = pageSize
    }

    /// The first page and the projects, as one snapshot named after the query.
    var snapshot: Snapshot<SessionsPage> {
        let sessions = OmnigentAPI.sessions(limit: pageSize, search: search, includeArchived: showArchived)
        let projects = OmnigentAPI.projects()
        return Snapshot(
            "omnigent.sessions " + CachedFetcher.key(for: sessions),
            members: ["sessions": sessions, "projects": projects]
        ) { members throws(HTTPError) in
            SessionsPage(try members.value(sessions), projects: try members.value(projects))
        }
    }

    /// Shows the stored list at once (marked with its age), then the server's; keeps the list, marked
    /// offline, when the server cannot be reached.
    public func refresh(policy: FetchPolicy = .staleWhileRevalidate) async {
        if state.value == nil { state = .loading }
        for await update in server.bundle.read(
            snapshot, policy: policy, showing: state, isEmpty: { $0.sessions.isEmpty }, { $0 })
        {
            state = update.state
            if update.endsSignIn {
                signInRequired = SignInRoute(server.connection)
            } else if update.failure == nil, state.kind != .failed {
                signInRequired = nil
            }
        }
    }

    /// Reads the next page from the server and appends it in order, de-duplicated by id.
    public func loadMore() async {
        guard let page = state.value, page.hasMore, let cursor = page.lastID, !isLoadingMore else { return }
        isLoadingMore = true
        defer { isLoadingMore = false }
        do {
            let next = try await server.client.send(
                OmnigentAPI.sessions(limit: pageSize, after: cursor, search: search, includeArchived: showArchived))
            state = .content(page.appending(next), fetchedAt: server.bundle.clock.now())
            loadMoreProblem = nil
        } catch {
            loadMoreProblem = server.bundle.sentence(for: error)
        }
    }
}
