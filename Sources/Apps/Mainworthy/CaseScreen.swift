import CompanionScreen
import Foundation
import Observation

/// A case's page: its version, preconditions, steps, who may run it, its current folder and tags, and
/// the button to the web app; its history; an older version.
///
/// Rules: the page shows version, preconditions, steps and `runnable_by`; History lists every version
/// with author, time and reason (M-CASE-5). An older version is read-only; Open current case opens the
/// current, editable page; folder and tags are always the current ones (M-CASE-6). `web_url` opens the
/// case in the web app for moving, tagging, archiving, restoring, folders, diffs and overlaps (M-CASE-7).
@Observable @MainActor
public final class CaseScreen {
    /// The case at the version shown.
    public private(set) var state: ScreenState<CasePage> = .loading
    /// The history, once read.
    public private(set) var history: ScreenState<[CaseVersionEntry]>?

    /// The case's id or number.
    public let caseID: String
    /// The version asked for; `nil` is the current one.
    public let requestedVersion: Int?
    let root: CasesRootScreen

    init(root: CasesRootScreen, caseID: String, version: Int?) {
        self.root = root
        self.caseID = caseID
        requestedVersion = version
    }

    /// Reads the page.
    public func refresh() async {
        let request =
            requestedVersion.map { MainworthyAPI.caseVersion(root.scope.project, caseID, version: $0) }
            ?? MainworthyAPI.caseDocument(root.scope.project, caseID)
        do throws(MainworthyError) {
            let page = try await root.workspace.connection.read(request)
            if let revision = page.revision { root.memory.raise(revision, of: root.scope) }
            state = .content(page, fetchedAt: root.workspace.now())
        } catch {
            root.workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// Whether this page is an older version, and so read-only.
    public var isReadOnly: Bool { requestedVersion != nil && state.value?.isOldVersion != false }

    /// Whether Edit case is offered: the current version, and the `produce` capability.
    public var canEdit: Bool { !isReadOnly && state.value != nil && root.canWrite }

    /// The case in the web app.
    public var webURL: URL? { state.value?.webURL }

    /// Reads the history: every version, newest first, with author, time and reason.
    public func readHistory() async {
        do throws(MainworthyError) {
            let reply = try await root.workspace.connection.read(
                MainworthyAPI.caseVersions(root.scope.project, caseID))
            history = .content(reply.items, fetchedAt: root.workspace.now())
        } catch {
            root.workspace.report(error)
            history = .failed(reason: error.description, signInRequired: false)
        }
    }

    /// The page of version `version`, read-only when older than the current one.
    public func version(_ version: Int) -> CaseScreen {
        CaseScreen(root: root, caseID: state.value?.id ?? caseID, version: version)
    }

    /// Open current case: the current, editable page.
    public func openCurrent() -> CaseScreen {
        CaseScreen(root: root, caseID: state.value?.id ?? caseID, version: nil)
    }

    /// Edit case: an editor from the version shown, or the draft kept for it.
    public func edit() -> CaseEditor? {
        guard canEdit, let page = state.value else { return nil }
        return CaseEditor(
            root: root, target: .edit(caseID: page.id, baseVersion: page.version), opened: page.document)
    }
}
