import CompanionScreen
import Foundation
import Observation

/// A list of cases: All cases, a folder (its subfolders first, then its own cases) or a tag; and the
/// search opened on it.
///
/// Rules:
/// - The end of the list reads the next page by cursor and appends it, no id twice; `next_cursor: null`
///   is the end (M-CASE-3).
/// - Shown again while among the last 40 lists left, its rows show at once with no spinner; it is read
///   again in the background only if the project's revision rose since it was read (M-LIST-1). One left
///   longer ago is read with a spinner (M-LIST-2). A pull reads it now (M-LIST-3).
/// - The search is its own: opened here it searches this folder (and its subfolders) or tag, Everywhere
///   searches the project (M-FIND-1..3); it is sent on submit, never per keystroke; closing it clears it
///   and leaves this list as it was; a search is never kept among the recent lists (M-FIND-5).
@Observable @MainActor
public final class CaseListScreen {
    /// The list.
    public private(set) var state: ScreenState<CaseListContent> = .loading
    /// Whether a read is under way behind rows already shown.
    public private(set) var isRefreshingInBackground = false
    /// The read under way, if any (what `appear()` started).
    public private(set) var reading: Task<Void, Never>?
    /// How many times the first page was read (diagnostics and tests).
    public private(set) var reads = 0
    /// The search, while open.
    public private(set) var search: CaseSearch?

    /// Which list.
    public let listing: CaseListing
    let root: CasesRootScreen

    init(root: CasesRootScreen, listing: CaseListing) {
        self.root = root
        self.listing = listing
    }

    private var key: RecentLists.Key { RecentLists.Key(scope: root.scope, listing: listing) }

    /// The rows: subfolders first, then cases.
    public var rows: [CaseListRow] { state.value?.rows ?? [] }

    /// Shows the list: kept rows at once (read again behind them only if the revision rose), or a
    /// spinner and a read.
    public func appear() {
        if let kept = root.memory.recentLists.content(for: key) {
            state = .content(kept, fetchedAt: root.workspace.now())
            if root.memory.revision(of: root.scope) > kept.revision {
                isRefreshingInBackground = true
                start()
            }
        } else {
            state = .loading
            start()
        }
    }

    /// Pull: reads the list now, whatever is kept.
    public func pull() async {
        await readFirstPage()
    }

    /// Leaves the list: it joins the recent lists (the 41st forgets the oldest).
    public func leave() {
        reading?.cancel()
        guard let content = state.value else { return }
        root.memory.recentLists.leave(key, content: content)
    }

    /// Reaching the end: reads the next page and appends it.
    public func loadMore() async {
        guard let content = state.value, let cursor = content.nextCursor else { return }
        do throws(MainworthyError) {
            let page = try await root.workspace.connection.read(
                MainworthyAPI.cases(root.scope.project, listing, cursor: cursor))
            state = .content(content.appending(page), fetchedAt: root.workspace.now())
        } catch {
            root.workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// + here: a new case in this folder, or in Unsorted from a tag or All cases (M-EDIT-1).
    public func newCase() -> CaseEditor? {
        if case .folder(let id) = listing { return root.newCase(folderID: id) }
        return root.newCase(folderID: nil)
    }

    /// The magnifier: opens the search scoped to this list.
    public func openSearch() -> CaseSearch {
        let scope: SearchScope
        switch listing {
        case .folder(let id): scope = .folder(id: id)
        case .tag(let name): scope = .tag(name)
        case .all, .search: scope = .project
        }
        let opened = CaseSearch(root: root, scope: scope)
        search = opened
        return opened
    }

    /// Closes the search: its text and hits go; this list is untouched.
    public func closeSearch() {
        search?.clear()
        search = nil
    }

    private func start() {
        reading = Task { await self.readFirstPage() }
    }

    private func readFirstPage() async {
        reads += 1
        defer { isRefreshingInBackground = false }
        do throws(MainworthyError) {
            let connection = root.workspace.connection
            var folder: FolderPage?
            if case .folder(let id) = listing {
                folder = try await connection.read(MainworthyAPI.folder(root.scope.project, id))
            }
            let page = try await connection.read(MainworthyAPI.cases(root.scope.project, listing))
            let revision = page.revision ?? root.memory.revision(of: root.scope)
            root.memory.raise(revision, of: root.scope)
            let content = CaseListContent(folder: folder, cases: [], nextCursor: nil, revision: revision)
                .appending(page)
            state = .content(content, fetchedAt: root.workspace.now())
            root.memory.recentLists.update(key, content: content)
        } catch {
            root.workspace.report(error)
            state = state.failing(with: error)
        }
    }
}

/// A search opened on a list: text typed, sent on submit, in a scope (M-FIND-1..5, O-15).
@Observable @MainActor
public final class CaseSearch {
    /// The text typed; typing sends nothing.
    public var text = ""
    /// Where it looks: the list's folder or tag, or the project after Everywhere.
    public private(set) var scope: SearchScope
    /// The hits of the last submit.
    public private(set) var hits: ScreenState<CaseListContent>?
    /// How many searches were sent (diagnostics and tests).
    public private(set) var sent = 0

    let root: CasesRootScreen

    init(root: CasesRootScreen, scope: SearchScope) {
        self.root = root
        self.scope = scope
    }

    /// Everywhere: the whole project from now on.
    public func everywhere() { scope = .project }

    /// Sends the search. Empty text sends nothing.
    public func submit() async {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        sent += 1
        hits = .loading
        let listing = CaseListing.search(text, scope: scope)
        do throws(MainworthyError) {
            let page = try await root.workspace.connection.read(MainworthyAPI.cases(root.scope.project, listing))
            let content = CaseListContent(folder: nil, cases: [], nextCursor: nil, revision: page.revision ?? 0)
                .appending(page)
            hits = .content(content, fetchedAt: root.workspace.now())
        } catch {
            root.workspace.report(error)
            hits = .failed(reason: error.description, signInRequired: false)
        }
    }

    /// The next page of hits.
    public func loadMore() async {
        guard let content = hits?.value, let cursor = content.nextCursor else { return }
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        do throws(MainworthyError) {
            let page = try await root.workspace.connection.read(
                MainworthyAPI.cases(root.scope.project, .search(text, scope: scope), cursor: cursor))
            hits = .content(content.appending(page), fetchedAt: root.workspace.now())
        } catch {
            root.workspace.report(error)
        }
    }

    /// The hits' cases.
    public var cases: [CaseRow] { hits?.value?.cases ?? [] }

    func clear() {
        text = ""
        hits = nil
    }
}
