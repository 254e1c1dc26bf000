import CompanionScreen
import Foundation
import Observation

/// Decided: the decisions standing, what was answered and by whom (M-UNDO-4). Opening one gives its
/// question's page, with Withdraw.
@Observable @MainActor
public final class DecidedScreen {
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

    /// Reads the list.
    public func refresh() async {
        do throws(MainworthyError) {
            let reply = try await workspace.connection.read(MainworthyAPI.decided(project))
            state = .content(reply.items, fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// The page of the question `item` decided.
    public func question(_ item: DecidedItem) -> QuestionScreen {
        QuestionScreen(workspace: workspace, project: project, id: item.question.id)
    }
}
