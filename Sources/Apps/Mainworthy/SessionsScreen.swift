import CompanionAuth
import CompanionCore
import CompanionScreen
import Foundation
import Observation

/// You, Your sessions: every session of the account on the instance, this device's marked.
///
/// Rules: the list is the account's, whatever project is open, and pulling reads it again (M-SESS-1,
/// M-SESS-6); exactly one entry is this device (M-SESS-2); End session needs a separate confirmation,
/// and nothing is sent without it (M-SESS-3); ending this device's session signs out (M-SESS-4), ending
/// another keeps this device signed in and reads the list again (M-SESS-5).
@Observable @MainActor
public final class SessionsScreen {
    /// The sessions.
    public private(set) var state: ScreenState<[SessionRecord]> = .loading
    /// The session waiting for the confirmation of End session.
    public private(set) var pendingEnd: SessionRecord?
    /// The last failure of End session, if any.
    public private(set) var endProblem: String?

    private let workspace: MainworthyWorkspace

    /// Creates the screen.
    public init(workspace: MainworthyWorkspace) {
        self.workspace = workspace
    }

    /// Reads the list.
    public func refresh() async {
        do throws(MainworthyError) {
            let items = try await workspace.connection.read(MainworthyAPI.sessions()).items
            state = .content(items, fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// End session was pressed: asks for confirmation, sends nothing.
    public func requestEnd(_ session: SessionRecord) {
        pendingEnd = session
        endProblem = nil
    }

    /// The confirmation was declined.
    public func cancelEnd() { pendingEnd = nil }

    /// The confirmation: ends the session; this device's signs out.
    public func confirmEnd() async {
        guard let session = pendingEnd else { return }
        pendingEnd = nil
        do throws(MainworthyError) {
            try await workspace.connection.read(MainworthyAPI.endSession(session.id))
            if session.current {
                await workspace.signOut()
            } else {
                await refresh()
            }
        } catch {
            workspace.report(error)
            endProblem = error.description
        }
    }
}
