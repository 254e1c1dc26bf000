import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The queue as the screen shows it.
public struct QueuePage: Sendable, Hashable {
    /// The server's counts for the whole open queue (M-QUEUE-4).
    public var summary: QueueSummary
    /// The rows, failures first (M-QUEUE-1), de-duplicated by id across pages.
    public var items: [QueueItem]
    /// The next page's cursor.
    public var nextCursor: String?
    /// The project's revision when read.
    public var revision: Int?

    /// The line under the list (M-QUEUE-2, M-QUEUE-3).
    public var summaryLine: String { summary.line }
}

/// What the bar over the queue says after an answer, with Undo (M-QUEUE-11).
public struct RecordedBar: Sendable, Hashable {
    /// The reply's `recorded` sentence.
    public var sentence: String
    /// The decision the answer made: Undo withdraws exactly this one (M-UNDO-1).
    public var decisionID: String
    /// The question answered.
    public var questionID: String
    /// Whether Undo needs a reason.
    public var reasonRequired: Bool
}

/// The queue screen: open questions, failures first, one kind with a chip, paged, with the summary line.
/// A row has no answer action (M-QUEUE-6); `question(_:)` opens its page.
@Observable @MainActor
public final class QueueScreen {
    /// What the screen shows.
    public private(set) var state: ScreenState<QueuePage> = .loading
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
    }

    /// Reads the first page of the chosen kind.
    public func refresh() async {
        do throws(MainworthyError) {
            let reply = try await workspace.connection.read(
                MainworthyAPI.queue(project, kind: kind, limit: pageSize))
            state = .content(
                QueuePage(
                    summary: reply.summary, items: QueueOrder.failuresFirst(reply.items),
                    nextCursor: reply.nextCursor, revision: reply.revision),
                fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// Chooses a chip (`nil` for all) and reads the list of that kind; the summary stays the server's.
    public func choose(_ kind: QuestionKind?) async {
        self.kind = kind
        await refresh()
    }

    /// Reads the next page and appends its rows, failures first, no id twice.
    public func loadMore() async {
        guard var page = state.value, let cursor = page.nextCursor else { return }
        do throws(MainworthyError) {
            let reply = try await workspace.connection.read(
                MainworthyAPI.queue(project, kind: kind, cursor: cursor, limit: pageSize))
            var seen = Set(page.items.map(\.id))
            let fresh = reply.items.filter { seen.insert($0.id).inserted }
            page.items = QueueOrder.failuresFirst(page.items + fresh)
            page.summary = reply.summary
            page.nextCursor = reply.nextCursor
            page.revision = reply.revision
            state = .content(page, fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
        }
    }

    /// The page of question `id`, whose answers report back to this list.
    public func question(_ id: String) -> QuestionScreen {
        QuestionScreen(workspace: workspace, project: project, id: id) { [weak self] reply, question in
            self?.recorded(reply, question: question)
        }
    }

    /// An answer was confirmed: the bar says so and the question leaves the open list.
    func recorded(_ reply: AnswerReply, question: Question) {
        bar = RecordedBar(
            sentence: reply.recorded, decisionID: reply.decision.id, questionID: question.id,
            reasonRequired: question.withdrawReasonRequired)
        undoProblem = nil
        if var page = state.value {
            let before = page.items.count
            page.items.removeAll { $0.id == question.id }
            if page.items.count < before {
                if question.kind == .failure {
                    page.summary.failures = max(0, page.summary.failures - 1)
                } else {
                    page.summary.canWait = max(0, page.summary.canWait - 1)
                }
            }
            state = .content(page, fetchedAt: workspace.now())
        }
    }

    /// Undo: withdraws the decision the answer returned (never one read later), with a reason where
    /// the policy asks; then the list is read again (M-UNDO-1, M-UNDO-2). A 409 means someone replaced
    /// it meanwhile: their decision stays, the bar says the decision changed, and nothing more is sent
    /// (M-UNDO-3).
    public func undo(reason: String = "") async {
        guard let bar else { return }
        switch WithdrawalBody.make(reason: reason, required: bar.reasonRequired) {
        case .failure(let problem):
            undoProblem = problem.description
        case .success(let body):
            let command = workspace.connection.command(
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
            _ = try await workspace.connection.perform(command)
            pendingUndo = nil
            bar = nil
            undoProblem = nil
            await refresh()
        } catch {
            workspace.report(error)
            if case .unconfirmed = error { pendingUndo = command } else { pendingUndo = nil }
            if error.code == "decision_changed" {
                let who = ServerRefusalSentence.changed(error)
                undoProblem = who
                bar = nil
            } else {
                undoProblem = error.description
            }
        }
    }
}

/// The sentence for a 409 `decision_changed`: the server's, and who decided what now.
enum ServerRefusalSentence {
    static func changed(_ error: MainworthyError) -> String {
        guard case .refused(let refusal) = error else { return error.description }
        guard let current = refusal.current else { return refusal.message }
        return "\(refusal.message) Now: \(current.summary)."
    }
}
