import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// Where planning a run ended.
public enum PlanOutcome: Sendable, Hashable {
    /// The run was planned and read: open it.
    case planned(runID: String, slotCount: Int)
    /// The run was planned (201) but could not be read: Read run again reads it without planning another
    /// (M-PLAN-2).
    case plannedButUnread(runID: String, slotCount: Int, problem: String)
    /// Nothing was planned, or it is not known: the sentence says which.
    case failed(String)

    /// "Planned 14 slots." for a planned run.
    public var sentence: String {
        switch self {
        case .planned(_, let count), .plannedButUnread(_, let count, _):
            return "Planned \(count) \(count == 1 ? "slot" : "slots")."
        case .failed(let sentence):
            return sentence
        }
    }
}

/// Runs: the list, and + to plan one.
///
/// Rules: + needs `plan` (M-CAP-3); a plan is a name, one selection and an optional commit, and says how
/// many slots it made and opens the run (M-PLAN-1); a run planned but not read keeps its id and is read
/// again without planning another (M-PLAN-2); a lost reply offers Retry with the same body and key, so
/// the server holds one run (M-PLAN-3); an empty selection shows the server's sentence (M-PLAN-4).
@Observable @MainActor
public final class RunsScreen {
    /// The runs, newest first.
    public private(set) var state: ScreenState<[RunSummary]> = .loading
    /// Where the last plan ended.
    public private(set) var planOutcome: PlanOutcome?
    /// The run page opened by a plan.
    public private(set) var plannedRun: RunScreen?
    /// A plan whose reply was lost, kept for Retry.
    public private(set) var pendingPlan: WriteCommand<PlanReply>?

    /// The project.
    public let project: String
    private let workspace: MainworthyWorkspace

    /// Creates the screen.
    public init(workspace: MainworthyWorkspace, project: String) {
        self.workspace = workspace
        self.project = project
    }

    /// Whether + can be pressed.
    public var canPlan: Bool { workspace.capabilities.contains(.plan) }

    /// Reads the list.
    public func refresh() async {
        do throws(MainworthyError) {
            state = .content(
                try await workspace.connection.read(MainworthyAPI.runs(project)).items, fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// The page of run `id`.
    public func run(_ id: String) -> RunScreen { RunScreen(workspace: workspace, project: project, id: id) }

    /// Plans a run.
    public func plan(name: String, selection: PlanSelection, commit: String = "") async {
        guard canPlan else { return }
        switch PlanBody.make(name: name, selection: selection, commit: commit) {
        case .failure(let problem):
            planOutcome = .failed(problem.description)
        case .success(let body):
            await send(workspace.connection.command(MainworthyAPI.plan(project, body)))
        }
    }

    /// Retry of a plan whose reply was lost: the same body, the same key.
    public func retryPlan() async {
        guard let command = pendingPlan else { return }
        await send(command)
    }

    /// Read run again: `GET` of the planned run only.
    public func readPlannedRunAgain() async {
        guard case .plannedButUnread(let runID, let count, _) = planOutcome else { return }
        await open(runID: runID, slotCount: count)
    }

    private func send(_ command: WriteCommand<PlanReply>) async {
        do throws(MainworthyError) {
            let reply = try await workspace.connection.perform(command)
            pendingPlan = nil
            await open(runID: reply.run.id, slotCount: reply.slotCount)
        } catch {
            workspace.report(error)
            pendingPlan = error.isUnconfirmed ? command : nil
            planOutcome = .failed(error.description)
        }
    }

    private func open(runID: String, slotCount: Int) async {
        let screen = run(runID)
        await screen.refresh()
        if screen.state.value != nil {
            plannedRun = screen
            planOutcome = .planned(runID: runID, slotCount: slotCount)
        } else {
            let problem: String
            if case .failed(let reason, _) = screen.state {
                problem = reason
            } else {
                problem = "The run was not read."
            }
            planOutcome = .plannedButUnread(runID: runID, slotCount: slotCount, problem: problem)
        }
    }
}
