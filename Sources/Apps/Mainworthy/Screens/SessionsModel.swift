import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionScreen
import Foundation
import Observation

/// You, Your sessions: every session of the account on the instance, this device's marked.
///
/// Rules: the list is the account's, whatever project is open, and pulling reads it again (M-SESS-1,
/// M-SESS-6); exactly one entry is this device (M-SESS-2); End session needs a separate confirmation, and
/// nothing is sent without it (M-SESS-3). Ending is the kit's `SessionEnding`: this device's session signs out
/// (M-SESS-4), another keeps this device signed in and the list is read again (M-SESS-5).
@Observable @MainActor
public final class SessionsModel {
    /// The sessions, read from the server on every refresh.
    public let list: ScreenFeed<[SessionInfo]>
    /// The session waiting for the confirmation of End session.
    public private(set) var pendingEnd: SessionInfo?
    /// The last failure of End session, if any.
    public private(set) var endProblem: String?

    private let workspace: MainworthyWorkspace

    /// Creates the screen.
    public init(workspace: MainworthyWorkspace) {
        self.workspace = workspace
        list = workspace.feed(MainworthyAPI.sessions(), policy: .fresh) { $0.items.map(\.info) }
    }

    /// The sessions.
    public var state: ScreenState<[SessionInfo]> { list.state }

    /// Reads the list from the server.
    public func refresh() async { await list.refresh() }

    /// End session was pressed: asks for confirmation, sends nothing.
    public func requestEnd(_ session: SessionInfo) {
        pendingEnd = session
        endProblem = nil
    }

    /// The confirmation was declined.
    public func cancelEnd() { pendingEnd = nil }

    /// The confirmation: ends the session through the kit's `SessionEnding`; this device's signs out.
    public func confirmEnd() async {
        guard let session = pendingEnd else { return }
        pendingEnd = nil
        do throws(AuthError) {
            try await SessionEnding.end(
                session, in: MainworthySessions(server: workspace.server), credentials: workspace.server.credentials)
        } catch {
            if case .http(let failure) = error { workspace.report(MainworthyError(failure)) }
            endProblem = error.description
            return
        }
        if session.isCurrent {
            await workspace.signOut()
        } else {
            await refresh()
        }
    }
}

/// The account's sessions on the server, as the kit's `SessionEnding` reads and ends them.
public struct MainworthySessions: SessionDirectory {
    /// The server.
    public let server: MainworthyServer

    /// Creates the directory.
    public init(server: MainworthyServer) { self.server = server }

    /// `GET /api/sessions`.
    public func sessions() async throws(AuthError) -> [SessionInfo] {
        do {
            return try await server.bundle.client.send(MainworthyAPI.sessions()).items.map(\.info)
        } catch {
            throw .http(error)
        }
    }

    /// `DELETE /api/sessions/{id}` (again: 204 too).
    public func end(_ id: String) async throws(AuthError) {
        do {
            try await server.bundle.client.send(MainworthyAPI.endSession(id))
        } catch {
            throw .http(error)
        }
    }
}
