import CompanionApp
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// A case's page: its version, preconditions, steps, who may run it, its current folder and tags, and
/// the button to the web app; its history; an older version.
///
/// Rules: the page shows version, preconditions, steps and `runnable_by`; History lists every version with
/// author, time and reason (M-CASE-5). An older version is read-only: the version read is compared with the
/// case's current version, read once from the case itself (`GET P/cases/{id}`, unless the server named it), and
/// Open current case opens the current, editable page; folder and tags are always the current ones (M-CASE-6).
/// `web_url` opens the case in the web app for moving, tagging, archiving, restoring, folders, diffs and overlaps
/// (M-CASE-7). Edit case needs `produce` (M-CAP-2).
@Observable @MainActor
public final class CaseModel {
    /// The case at the version shown, read through the account's store.
    public let page: ScreenFeed<CasePage>
    /// The history, every page read (the kit's stored list; the view reads the next with `historyList.loadMore()`).
    public let historyList: ScreenFeed<Paged<CaseVersionEntry>>
    /// Whether the history was asked for.
    public private(set) var historyOpened = false
    /// The case's current version, once known.
    public private(set) var currentVersion: Int?

    /// The case's id.
    public let caseID: String
    /// The version asked for; `nil` is the current one.
    public let requestedVersion: Int?
    let root: CasesRootModel

    init(
        root: CasesRootModel, caseID: String, version: Int?, currentVersion: Int? = nil, historyPageSize: Int? = nil
    ) {
        self.root = root
        self.caseID = caseID
        requestedVersion = version
        self.currentVersion = currentVersion
        let project = root.project
        page = root.workspace.feed(
            version.map { MainworthyAPI.caseVersion(project, caseID, version: $0) }
                ?? MainworthyAPI.caseDocument(project, caseID))
        historyList = root.workspace.feed(MainworthyLists.history(project, caseID, limit: historyPageSize))
    }

    /// The case at the version shown.
    public var state: ScreenState<CasePage> { page.state }

    /// The history, newest first, once asked for.
    public var history: ScreenState<[CaseVersionEntry]>? {
        historyOpened ? historyList.state.map(\.items) : nil
    }

    /// Reads the page (the stored copy at once, then the server's; `.fresh` reads the server only). An older
    /// version also reads the case's current version, once.
    public func refresh(policy: FetchPolicy = .staleWhileRevalidate) async {
        await page.refresh(policy)
        guard let page = page.value else { return }
        if let revision = page.revision { root.projectRevisionChanged(revision) }
        if requestedVersion == nil {
            currentVersion = page.version ?? currentVersion
        } else if currentVersion == nil {
            if let named = page.currentVersion {
                currentVersion = named
            } else {
                do throws(MainworthyError) {
                    currentVersion = try await root.workspace.server.latest(
                        MainworthyAPI.caseDocument(root.project, caseID)
                    ).version
                } catch {
                    root.workspace.report(error)
                }
            }
        }
    }

    /// The version shown: the one asked for, else the one read.
    public var shownVersion: Int? { requestedVersion ?? state.value?.version }

    /// Whether this page is an older version (the version read is below the current one), and so read-only. While
    /// the current version is not known, an older version asked for counts as read-only.
    public var isReadOnly: Bool {
        guard let requested = requestedVersion else { return false }
        guard let current = currentVersion else { return true }
        return requested < current
    }

    /// Whether Edit case is offered: the current version, read, and the `produce` capability.
    public var canEdit: Bool { !isReadOnly && state.value != nil && shownVersion != nil && root.canWrite }

    /// The case in the web app.
    public var webURL: URL? { state.value?.webURL }

    /// Reads the history's first page: every version, newest first, with author, time and reason; the view
    /// reads the next pages with `historyList.loadMore()` (or `historyList.loadAll()`).
    public func readHistory() async {
        historyOpened = true
        await historyList.refresh()
    }

    /// The page of version `version`, read-only when older than the current one.
    public func version(_ version: Int) -> CaseModel {
        CaseModel(root: root, caseID: caseID, version: version, currentVersion: currentVersion)
    }

    /// Open current case: the current, editable page.
    public func openCurrent() -> CaseModel {
        CaseModel(root: root, caseID: caseID, version: nil)
    }

    /// Edit case: an editor from the version shown, or the draft kept for it; `nil` when Edit case is not offered.
    public func edit() async -> CaseEditorModel? {
        guard canEdit, let page = state.value, let version = shownVersion else { return nil }
        return await root.editor(.edit(caseID: caseID, baseVersion: version), opened: page.document)
    }
}
