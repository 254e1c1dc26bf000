import CompanionScreen
import Foundation
import Observation

/// The Cases tab's root: All cases, the top folders (Unsorted among them), the six most-used tags and
/// All tags (M-CASE-1, O-19); the lists, case pages and editors of the tab come from here.
///
/// The tab files what it keeps (recent lists, drafts, the known revision) under the server, the user and
/// the project in a `CaseMemory` that outlives sign-out. `projectRevisionChanged(_:)` is how the live
/// stream (or anything else that learns of a change) tells the tab the project moved on (O-14).
@Observable @MainActor
public final class CasesRootScreen {
    /// How many of the most used tags the root shows.
    public static let topTagCount = 6

    /// The root: the top folders and the tags.
    public private(set) var state: ScreenState<BrowseReply> = .loading
    /// All tags, most used first, once read.
    public private(set) var allTags: ScreenState<[TagUse]> = .loading

    /// Server, user and project.
    public let scope: CaseScope
    /// Where drafts and recent lists live.
    public let memory: CaseMemory
    let workspace: MainworthyWorkspace

    /// Creates the root for `workspace`'s open project, as the signed-in user; `nil` with no project or
    /// no session.
    public static func open(workspace: MainworthyWorkspace, memory: CaseMemory = .process) async -> CasesRootScreen? {
        guard let project = workspace.current?.key else { return nil }
        let credentials = workspace.connection.credentials
        let account: String?
        if let current = await credentials.credential {
            account = current.account.userID
        } else {
            account = await credentials.lastAccount?.userID
        }
        guard let account else { return nil }
        let scope = CaseScope(
            server: workspace.connection.address.serverKey, user: account, project: project)
        return CasesRootScreen(workspace: workspace, scope: scope, memory: memory)
    }

    init(workspace: MainworthyWorkspace, scope: CaseScope, memory: CaseMemory) {
        self.workspace = workspace
        self.scope = scope
        self.memory = memory
    }

    /// The six most used tags.
    public var topTags: [TagUse] { Array((state.value?.tags ?? []).prefix(Self.topTagCount)) }

    /// The top folders, Unsorted among them.
    public var folders: [FolderRef] { state.value?.folders ?? [] }

    /// The project's revision as the tab knows it.
    public var revision: Int { memory.revision(of: scope) }

    /// Reads the root.
    public func refresh() async {
        do throws(MainworthyError) {
            let reply = try await workspace.connection.read(MainworthyAPI.browse(scope.project))
            if let revision = reply.revision { memory.raise(revision, of: scope) }
            state = .content(reply, fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// Reads every tag (All tags), page by page.
    public func readAllTags() async {
        var tags: [TagUse] = []
        var cursor: String?
        do throws(MainworthyError) {
            repeat {
                let page = try await workspace.connection.read(MainworthyAPI.tags(scope.project, cursor: cursor))
                tags += page.items
                cursor = page.nextCursor
            } while cursor != nil
            allTags = .content(tags, fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            allTags = allTags.failing(with: error)
        }
    }

    /// The project moved on to `revision` (a stream event, or a write): lists kept from before are read
    /// again in the background when next shown (M-LIST-1).
    public func projectRevisionChanged(_ revision: Int) {
        memory.raise(revision, of: scope)
    }

    /// Follows the project's stream: every event's revision is passed to ``projectRevisionChanged(_:)``, so
    /// kept lists are read again after the project moved on (M-LIST-1), and a `reset` counts as a rise too.
    public func follow(_ events: ProjectEvents) {
        events.subscribe(self) { [weak self] event in
            guard let revision = event.revision ?? events.revision else { return }
            self?.projectRevisionChanged(revision)
        }
    }

    /// The list of `listing` (All cases, a folder, a tag).
    public func list(_ listing: CaseListing) -> CaseListScreen { CaseListScreen(root: self, listing: listing) }

    /// The page of case `id` (`c_12` or `C-12`) at its current version.
    public func casePage(_ id: String) -> CaseScreen { CaseScreen(root: self, caseID: id, version: nil) }

    /// + at the tab's top, from a tag or from All cases: a new case for Unsorted (M-EDIT-1).
    public func newCase() -> CaseEditor? { newCase(folderID: nil) }

    /// + in a folder (`nil`: Unsorted).
    func newCase(folderID: String?) -> CaseEditor? {
        guard canWrite else { return nil }
        return CaseEditor(root: self, target: .newCase(folderID: folderID), opened: CaseText())
    }

    /// Whether + and Edit case are offered: writing cases needs `produce`.
    public var canWrite: Bool { workspace.capabilities.contains(.produce) }
}
