import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The queue screen: open questions, failures first, one kind with a chip, paged, with the summary line.
///
/// Rules: failures come before any other kind, each group in the server's order (M-QUEUE-1); the summary line
/// is the server's counts for the whole open queue, whatever page or chip (M-QUEUE-2..5). A row has no answer
/// action (M-QUEUE-6); `question(_:)` opens its page. After a confirmed answer the bar says what was recorded,
/// with Undo, and the question leaves the list (M-QUEUE-11). Undo withdraws the decision the answer returned,
/// never one read later, and needs `decide` like any withdrawal (M-UNDO-1, M-CAP-4).
@Observable @MainActor
public final class QueueModel {
    /// The open questions of the chosen kind, with the summary, every page read (the kit's stored list; the view
    /// reads the next page with `list.loadMore()`). A new chip is a new list.
    public private(set) var list: ScreenFeed<QueuePage>
    /// The chip chosen, `nil` for every kind (M-QUEUE-5).
    public private(set) var kind: QuestionKind?
    /// The bar after an answer, with Undo.
    public private(set) var bar: RecordedBar?
    /// What Undo ended in: the server's sentence, or why it failed.
    public private(set) var undoProblem: String?
    /// The Undo command whose reply was lost, kept for Retry.
    public private(set) var pendingUndo: WriteCommand<WithdrawalReply>?

    /// The project.
    public let project: String
    private let workspace: MainworthyWorkspace
    private let pageSize: Int?

    /// Creates the screen for `project`.
    public init(workspace: MainworthyWorkspace, project: String, pageSize: Int? = nil) {
        self.workspace = workspace
        self.project = project
        self.pageSize = pageSize
        list = Self.feed(workspace, project, kind: nil, pageSize: pageSize)
    }

    /// What the screen shows: failures first, the summary of the whole open queue.
    public var state: ScreenState<QueuePage> { list.state }

    /// Reads the first page of the chosen kind: the stored copy at once, then the server's.
    public func refresh() async { await list.refresh() }

    /// Chooses a chip (`nil` for all) and reads the list of that kind; the summary stays the server's.
    public func choose(_ kind: QuestionKind?) async {
        self.kind = kind
        list = Self.feed(workspace, project, kind: kind, pageSize: pageSize)
        await refresh()
    }

    private static func feed(
        _ workspace: MainworthyWorkspace, _ project: String, kind: QuestionKind?, pageSize: Int?
    ) -> ScreenFeed<QueuePage> {
        workspace.feed(
            MainworthyLists.queue(project, kind: kind, limit: pageSize), isEmpty: { $0.items.isEmpty },
            QueueEntry.page)
    }

    /// The page of question `id`, whose answers report back to this list.
    public func question(_ id: String) -> QuestionModel {
        QuestionModel(workspace: workspace, project: project, id: id) { [weak self] reply, question in
            await self?.recorded(reply, question: question)
        }
    }

    /// An answer was confirmed: the bar says so, and the question leaves the stored open list with the summary's
    /// count one lower (a store write every screen of the list shows).
    func recorded(_ reply: AnswerReply, question: Question) async {
        bar = RecordedBar(
            sentence: reply.recorded, decisionID: reply.decision.id, questionID: question.id,
            reasonRequired: question.withdrawReasonRequired, answers: question.answers)
        undoProblem = nil
        guard var summary = list.value?.summary else { return }
        let bundle = workspace.server.bundle
        let stored = MainworthyLists.queue(project, kind: kind, limit: pageSize)
        do throws(SyncError) {
            guard try await bundle.remove(question.id, from: stored) else { return }
            if question.kind == .failure {
                summary.failures = max(0, summary.failures - 1)
            } else {
                summary.canWait = max(0, summary.canWait - 1)
            }
            try await bundle.store(QueueEntry.summary(summary), in: stored)
        } catch {
            bundle.journal.record(.storage, "an answered question could not leave the queue: \(error.description)")
        }
        await list.showStored()
    }

    /// Whether Undo can be pressed: a bar stands and the project grants `decide` (M-CAP-4).
    public var canUndo: Bool { bar != nil && workspace.capabilities.contains(.decide) }

    /// Undo: withdraws the decision the answer returned (never one read later), with a reason where the policy
    /// asks; then the list is read again (M-UNDO-1, M-UNDO-2). A 409 means someone replaced it meanwhile: their
    /// decision stays, the bar says the decision changed, and nothing more is sent (M-UNDO-3). Without `decide`
    /// nothing is sent.
    public func undo(reason: String = "") async {
        guard let bar else { return }
        guard canUndo else {
            undoProblem = "You may not withdraw decisions in this project."
            return
        }
        switch WithdrawalBody.make(reason: reason, required: bar.reasonRequired) {
        case .failure(let problem):
            undoProblem = problem.description
        case .success(let body):
            let command = workspace.server.command(
                MainworthyAPI.withdraw(project, decision: bar.decisionID, body), resendsLostReply: true)
            await send(command)
        }
    }

    /// Retry of an Undo whose reply was lost: the same command, the same key.
    public func retryUndo() async {
        guard let command = pendingUndo else { return }
        await send(command)
    }

    private func send(_ command: WriteCommand<WithdrawalReply>) async {
        do throws(MainworthyError) {
            _ = try await workspace.server.perform(command)
            pendingUndo = nil
            bar = nil
            undoProblem = nil
            await refresh()
        } catch {
            workspace.report(error)
            pendingUndo = error.isUnconfirmed ? command : nil
            if error.code == "decision_changed" {
                undoProblem = ServerRefusalSentence.changed(error, answers: bar?.answers ?? [])
                bar = nil
            } else {
                undoProblem = error.description
            }
        }
    }
}

/// The sentence for a 409 `decision_changed`: the server's, and who decided what now.
enum ServerRefusalSentence {
    /// `error`'s sentence; the decision standing now is named with its label from `answers` when the server gave
    /// none.
    static func changed(_ error: MainworthyError, answers: [AnswerOption]) -> String {
        guard case .refused(let refusal) = error else { return error.description }
        guard let current = refusal.current else { return refusal.message }
        return "\(refusal.message) Now: \(current.labelled(from: answers).summary)."
    }
}
