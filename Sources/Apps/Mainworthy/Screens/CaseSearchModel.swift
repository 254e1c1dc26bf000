import CompanionScreen
import Foundation
import Observation

/// A search opened on a list: text typed, sent on submit, in a scope (M-FIND-1..5, O-15). Searches are read
/// from the server only and never kept.
@Observable @MainActor
public final class CaseSearchModel {
    /// The text typed; typing sends nothing.
    public var text = ""
    /// Where it looks: the list's folder or tag, or the project after Everywhere.
    public private(set) var scope: SearchScope
    /// The hits of the last submit.
    public private(set) var hits: ScreenState<CaseListContent>?
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
        hits = .loading
        let listing = CaseListing.search(text, scope: scope)
        do throws(MainworthyError) {
            let page = try await root.workspace.server.read(MainworthyAPI.cases(root.project, listing))
            let content = CaseListContent(revision: page.revision ?? 0).appending(page)
            hits = .content(content, fetchedAt: root.workspace.now())
        } catch {
            hits = root.workspace.failing(ScreenState<CaseListContent>.loading, with: error)
        }
    }

    /// The next page of hits.
    public func loadMore() async {
        guard let content = hits?.value, let cursor = content.nextCursor else { return }
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        do throws(MainworthyError) {
            let page = try await root.workspace.server.read(
                MainworthyAPI.cases(root.project, .search(text, scope: scope), cursor: cursor))
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
