import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// Decided: the decisions standing, what was answered and by whom (M-UNDO-4). Opening one gives its
/// question's page, with Withdraw.
@Observable @MainActor
public final class DecidedModel {
    /// The decisions, newest first, every page read (the view reads the next with `list.loadMore()`).
    public let list: ScreenFeed<Paged<DecidedItem>>

    /// The project.
    public let project: String
    private let workspace: MainworthyWorkspace

    /// Creates the screen; `pageSize` decisions a page (the server's default when `nil`).
    public init(workspace: MainworthyWorkspace, project: String, pageSize: Int? = nil) {
        self.workspace = workspace
        self.project = project
        self.list = workspace.feed(MainworthyLists.decided(project, limit: pageSize))
    }

    /// The decisions shown, newest first.
    public var state: ScreenState<[DecidedItem]> { list.state.map(\.items) }

    /// Reads the list: the stored copy at once, then the server's first page.
    public func refresh() async { await list.refresh() }

    /// The page of the question `item` decided.
    public func question(_ item: DecidedItem) -> QuestionModel {
        QuestionModel(workspace: workspace, project: project, id: item.question.id)
    }
}
