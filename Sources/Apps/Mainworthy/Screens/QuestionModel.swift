import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// A question's page: its evidence, its answers with their sentences, and Withdraw for the decision
/// standing.
///
/// Rules: answers exist only here, once the evidence has loaded (M-QUEUE-6), and only the answers on
/// this page can be sent (M-QUEUE-8); a required reason left blank sends nothing (M-QUEUE-9); the
/// answer carries the decision shown, so one decided meanwhile is refused with who decided what
/// (M-QUEUE-12); an answer's or withdrawal's lost reply is resent by itself, then unconfirmed with
/// Retry (M-NET-2). Withdraw names the decision shown (M-UNDO-5); after a 409 it stays off until the
/// question is read again (M-UNDO-6); an unconfirmed withdrawal shows the server's response, or that
/// none came, and the decision's state as unknown, never as still standing (M-UNDO-7). The page is read through
/// the server's bundle: the copy read before shows at once, then the server's.
@Observable @MainActor
public final class QuestionModel {
    /// What is known about the decision on the question.
    public enum DecisionStatus: Sendable, Hashable {
        /// No decision stands: the question is open.
        case none
        /// This decision stands, as last read.
        case standing(Decision)
        /// A withdrawal was not confirmed: whether the decision still stands is not known. The sentence
        /// is the server's response, or says that none came.
        case unknown(String)
    }

    /// The question, read through the account's store.
    public let page: ScreenFeed<Question>
    /// The decision's state.
    public private(set) var decisionStatus: DecisionStatus = .none
    /// The sentence of the last answer or withdrawal that did not go through.
    public private(set) var problem: String?
    /// After a 409: the decision standing now (who decided what), if the server named one.
    public private(set) var changedMeanwhile: Decision?
    /// Whether Withdraw is off until the question is read again (after a 409).
    public private(set) var withdrawBlocked = false
    /// The confirmed answer, once there is one.
    public private(set) var recorded: AnswerReply?
    /// An answer whose reply was lost after the resends, kept for Retry.
    public private(set) var pendingAnswer: WriteCommand<AnswerReply>?
    /// A withdrawal whose reply was lost after the resends, kept for Retry.
    public private(set) var pendingWithdrawal: WriteCommand<WithdrawalReply>?
    /// Whether the view reported showing the proposal's last edit (M-WEB-4).
    public private(set) var lastEditShown = false

    /// The project.
    public let project: String
    /// The question's id.
    public let id: String
    private let workspace: MainworthyWorkspace
    private let onRecorded: @MainActor (AnswerReply, Question) async -> Void

    /// Creates the page; `onRecorded` tells the list an answer was confirmed.
    public init(
        workspace: MainworthyWorkspace, project: String, id: String,
        onRecorded: @escaping @MainActor (AnswerReply, Question) async -> Void = { _, _ in }
    ) {
        self.workspace = workspace
        self.project = project
        self.id = id
        self.onRecorded = onRecorded
        page = workspace.feed(MainworthyAPI.question(project, id))
    }

    /// The page.
    public var state: ScreenState<Question> { page.state }

    /// Reads the question (again); the server's answer is what turns Withdraw on after a 409.
    public func refresh() async {
        await page.refresh()
        guard page.isFresh, let question = page.value else { return }
        decisionStatus = question.decision.map { .standing($0.labelled(from: question.answers)) } ?? .none
        withdrawBlocked = false
    }

    /// Whether the answers can be pressed, and if not why (M-WEB-1..4, M-CAP-4).
    public var availability: AnswerAvailability {
        guard let question = state.value else { return AnswerAvailability(blocker: .missingCapability) }
        return AnswerAvailability.evaluate(question, capabilities: workspace.capabilities, lastEditShown: lastEditShown)
    }

    /// The view showed the proposal's last edit.
    public func reportLastEditShown() { lastEditShown = true }

    /// Whether Withdraw can be pressed: a decision stands, the project grants `decide`, and no 409 since
    /// the last read.
    public var canWithdraw: Bool {
        guard case .standing = decisionStatus else { return false }
        return !withdrawBlocked && workspace.capabilities.contains(.decide)
    }

    /// Answers with `key`, one of this page's answers.
    public func answer(_ key: String, reason: String = "", tracker: String = "") async {
        guard let question = state.value, availability.isEnabled,
            let option = question.answers.first(where: { $0.key == key })
        else {
            problem = "This answer cannot be given here."
            return
        }
        switch AnswerBody.make(option, reason: reason, tracker: tracker, expectedDecisionID: question.decision?.id) {
        case .failure(let input):
            problem = input.description
        case .success(let body):
            await send(
                workspace.server.command(MainworthyAPI.answer(project, question: id, body), resendsLostReply: true))
        }
    }

    /// Retry of an unconfirmed answer: the same command, the same key.
    public func retryAnswer() async {
        guard let command = pendingAnswer else { return }
        await send(command)
    }

    private func send(_ command: WriteCommand<AnswerReply>) async {
        problem = nil
        changedMeanwhile = nil
        do throws(MainworthyError) {
            let reply = try await workspace.server.perform(command)
            pendingAnswer = nil
            recorded = reply
            decisionStatus = .standing(reply.decision.labelled(from: state.value?.answers ?? []))
            if let question = state.value { await onRecorded(reply, question) }
        } catch {
            workspace.report(error)
            pendingAnswer = error.isUnconfirmed ? command : nil
            if case .refused(let refusal) = error, refusal.code == "decision_changed" {
                changedMeanwhile = refusal.current?.labelled(from: state.value?.answers ?? [])
                problem = ServerRefusalSentence.changed(error, answers: state.value?.answers ?? [])
            } else {
                problem = error.description
            }
        }
    }

    /// Withdraws the decision shown on the page, with a reason where the policy asks.
    public func withdraw(reason: String = "") async {
        guard canWithdraw, case .standing(let decision) = decisionStatus, let question = state.value else { return }
        switch WithdrawalBody.make(reason: reason, required: question.withdrawReasonRequired) {
        case .failure(let input):
            problem = input.description
        case .success(let body):
            await send(
                workspace.server.command(
                    MainworthyAPI.withdraw(project, decision: decision.id, body), resendsLostReply: true))
        }
    }

    /// Retry of an unconfirmed withdrawal: the same command, the same key.
    public func retryWithdrawal() async {
        guard let command = pendingWithdrawal else { return }
        await send(command)
    }

    private func send(_ command: WriteCommand<WithdrawalReply>) async {
        problem = nil
        do throws(MainworthyError) {
            _ = try await workspace.server.perform(command)
            pendingWithdrawal = nil
            await refresh()
        } catch {
            workspace.report(error)
            pendingWithdrawal = error.isUnconfirmed ? command : nil
            if case .refused(let refusal) = error, refusal.code == "decision_changed" {
                changedMeanwhile = refusal.current?.labelled(from: state.value?.answers ?? [])
                withdrawBlocked = true
                problem = ServerRefusalSentence.changed(error, answers: state.value?.answers ?? [])
            } else if error.isUnconfirmed {
                decisionStatus = .unknown(
                    "No reply came from the server. Whether the decision still stands is not known.")
                problem = error.description
            } else {
                decisionStatus = .unknown(error.description)
                problem = error.description
            }
        }
    }
}
