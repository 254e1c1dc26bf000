import CompanionApp
import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// Runs: the list, and + to plan one.
///
/// Rules: + needs `plan` (M-CAP-3); a plan is a name, one selection and an optional commit, and says how
/// many slots it made and opens the run (M-PLAN-1); a run planned but not read keeps its id and is read
/// again without planning another (M-PLAN-2); a lost reply offers Retry with the same body and key, so
/// the server holds one run (M-PLAN-3); an empty selection shows the server's sentence (M-PLAN-4).
@Observable @MainActor
public final class RunsModel {
    /// The runs, newest first, every page read (the view reads the next with `list.loadMore()`).
    public let list: ScreenFeed<Paged<RunSummary>>
    /// Where the last plan ended.
    public private(set) var planOutcome: PlanOutcome?
    /// The run page opened by a plan.
    public private(set) var plannedRun: RunModel?
    /// A plan whose reply was lost, kept for Retry.
    public private(set) var pendingPlan: WriteCommand<PlanReply>?

    /// The project.
    public let project: String
    private let workspace: MainworthyWorkspace

    /// Creates the screen; `pageSize` runs a page (the server's default when `nil`).
    public init(workspace: MainworthyWorkspace, project: String, pageSize: Int? = nil) {
        self.workspace = workspace
        self.project = project
        self.list = workspace.feed(MainworthyLists.runs(project, limit: pageSize))
    }

    /// The runs shown, newest first.
    public var state: ScreenState<[RunSummary]> { list.state.map(\.items) }

    /// Whether + can be pressed.
    public var canPlan: Bool { workspace.capabilities.contains(.plan) }

    /// Reads the list: the stored copy at once, then the server's first page.
    public func refresh() async { await list.refresh() }

    /// The page of run `id`.
    public func run(_ id: String) -> RunModel { RunModel(workspace: workspace, project: project, id: id) }

    /// Plans a run.
    public func plan(name: String, selection: PlanSelection, commit: String = "") async {
        guard canPlan else { return }
        switch PlanBody.make(name: name, selection: selection, commit: commit) {
        case .failure(let problem):
            planOutcome = .failed(problem.description)
        case .success(let body):
            await send(workspace.server.command(MainworthyAPI.plan(project, body)))
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
            let reply = try await workspace.server.perform(command)
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
            let problem = screen.state.problem ?? "The run was not read."
            planOutcome = .plannedButUnread(runID: runID, slotCount: slotCount, problem: problem)
        }
    }
}
