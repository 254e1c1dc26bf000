import CompanionApp
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// A list of cases: All cases, a folder (its subfolders first, then its own cases) or a tag; and the
/// search opened on it.
///
/// Rules:
/// - The end of the list reads the next page by cursor and appends it, no id twice; `next_cursor: null`
///   is the end (M-CASE-3). The pages are the kit's stored list of this listing, which the screen observes: a
///   case saved on another screen shows its new title here with no pull.
/// - One among the last 40 lists left starts with its kept rows, so it shows at once with no spinner; it is
///   read again in the background only if the project's revision rose since it was read (M-LIST-1). One left
///   longer ago is read with a spinner (M-LIST-2). A pull reads it now (M-LIST-3). Leaving it keeps it among the
///   recent lists (the kit's, in the account's store).
/// - The search is its own: opened here it searches this folder (and its subfolders) or tag, Everywhere
///   searches the project (M-FIND-1..3); it is sent on submit, never per keystroke; closing it clears it
///   and leaves this list as it was; a search is never kept among the recent lists (M-FIND-5).
@Observable @MainActor
public final class CaseListModel {
    /// The list's cases, every page read (the kit's stored list of this listing).
    public let list: ScreenFeed<Paged<CaseRow>>
    /// A folder's page (its path and subfolders), for a folder's list.
    public let folder: ScreenFeed<FolderPage>?
    /// Whether a read is under way behind rows already shown.
    public private(set) var isRefreshingInBackground = false
    /// The read under way, if any (what `appear()` started).
    public private(set) var reading: Task<Void, Never>?
    /// How many times the first page was read (diagnostics and tests).
    public private(set) var reads = 0
    /// The search, while open.
    public private(set) var search: CaseSearchModel?

    /// Which list.
    public let listing: CaseListing
    let root: CasesRootModel

    init(root: CasesRootModel, listing: CaseListing) {
        self.root = root
        self.listing = listing
        list = root.workspace.feed(MainworthyLists.cases(root.project, listing))
        if case .folder(let id) = listing {
            folder = root.workspace.feed(MainworthyAPI.folder(root.project, id))
        } else {
            folder = nil
        }
    }

    /// Shows the kept rows of a list left recently, as they were read (no request).
    func showKept() async {
        await folder?.showStored()
        await list.showStored()
    }

    /// The list: the folder's page and the cases read, with the project's revision when it was read.
    public var state: ScreenState<CaseListContent> {
        if let folder, folder.state.kind == .failed || folder.state.kind == .loading {
            return folder.state.map { _ in CaseListContent() }
        }
        return list.state.map {
            CaseListContent(
                folder: folder?.value, cases: $0.items, nextCursor: $0.nextCursor,
                revision: $0.revision.flatMap { Int($0) } ?? 0)
        }
    }

    /// The rows: subfolders first, then cases.
    public var rows: [CaseListRow] { state.value?.rows ?? [] }

    /// Shows the list: kept rows stay and are read again behind them only if the revision rose; a list that was
    /// not kept is read (its spinner is on until then).
    public func appear() {
        if let kept = state.value {
            guard root.revision > kept.revision else { return }
            isRefreshingInBackground = true
        }
        reading = Task { await self.readFirstPage() }
    }

    /// Pull: reads the list now, whatever is kept.
    public func pull() async {
        await readFirstPage()
    }

    /// Leaves the list: it joins the recent lists (the 41st forgets the one left longest ago).
    public func leave() {
        reading?.cancel()
        guard state.value != nil else { return }
        root.leave(listing)
    }

    /// + here: a new case in this folder, or in Unsorted from a tag or All cases (M-EDIT-1).
    public func newCase() async -> CaseEditorModel? {
        if case .folder(let id) = listing { return await root.newCase(folderID: id) }
        return await root.newCase(folderID: nil)
    }

    /// The magnifier: opens the search scoped to this list.
    public func openSearch() -> CaseSearchModel {
        let scope: SearchScope
        switch listing {
        case .folder(let id): scope = .folder(id: id)
        case .tag(let name): scope = .tag(name)
        case .all, .search: scope = .project
        }
        let opened = CaseSearchModel(root: root, scope: scope)
        search = opened
        return opened
    }

    /// Closes the search: its text and hits go; this list is untouched.
    public func closeSearch() {
        search?.clear()
        search = nil
    }

    private func readFirstPage() async {
        reads += 1
        defer { isRefreshingInBackground = false }
        if let folder {
            await folder.refresh(.fresh)
            guard folder.value != nil else { return }
        }
        await list.refresh(.fresh)
        if let revision = state.value?.revision, revision > 0 { root.projectRevisionChanged(revision) }
    }
}
