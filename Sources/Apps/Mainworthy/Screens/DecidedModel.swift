import CompanionScreen
import Foundation
import Observation

/// Decided: the decisions standing, what was answered and by whom (M-UNDO-4). Opening one gives its
/// question's page, with Withdraw.
@Observable @MainActor
public final class DecidedModel {
    /// The decisions, newest first.
    public private(set) var state: ScreenState<[DecidedItem]> = .loading

    /// The project.
    public let project: String
    private let workspace: MainworthyWorkspace

    /// Creates the screen.
    public init(workspace: MainworthyWorkspace, project: String) {
        self.workspace = workspace
        self.project = project
    }

    /// Reads the list: the stored copy at once, then the server's.
    public func refresh() async {
        await workspace.read(
            MainworthyAPI.decided(project), showing: state, map: \.items, show: { self.state = $0 })
    }

    /// The page of the question `item` decided.
    public func question(_ item: DecidedItem) -> QuestionModel {
        QuestionModel(workspace: workspace, project: project, id: item.question.id)
    }
}
