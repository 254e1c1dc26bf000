import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// A search opened on a list: text typed, sent on submit, in a scope (M-FIND-1..5, O-15). A submit reads the
/// server (never a stored copy); the hits are the kit's stored list of that search, under a key of its own, never
/// among the recent lists; the view reads the next page with `results?.loadMore()`.
@Observable @MainActor
public final class CaseSearchModel {
    /// The text typed; typing sends nothing.
    public var text = ""
    /// Where it looks: the list's folder or tag, or the project after Everywhere.
    public private(set) var scope: SearchScope
    /// The hits of the last submit, every page read.
    public private(set) var results: ScreenFeed<CaseListContent>?
    /// How many searches were sent (diagnostics and tests).
    public private(set) var sent = 0

    let root: CasesRootModel

    init(root: CasesRootModel, scope: SearchScope) {
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
        let search = root.workspace.feed(
            MainworthyLists.cases(root.project, .search(text, scope: scope)), isEmpty: { $0.cases.isEmpty },
            {
                CaseListContent(
                    cases: $0.items, nextCursor: $0.nextCursor, revision: $0.revision.flatMap { Int($0) } ?? 0)
            })
        results = search
        await search.refresh(.fresh)
    }

    /// The hits of the last submit; `nil` before one.
    public var hits: ScreenState<CaseListContent>? { results?.state }

    /// The hits' cases.
    public var cases: [CaseRow] { hits?.value?.cases ?? [] }

    func clear() {
        text = ""
        results = nil
    }
}
