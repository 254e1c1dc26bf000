import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// A run's page and the slot open in it.
///
/// Rules: the page shows the verdict, what the run accepts and its slots in order (M-RUN-1); Start
/// opens the first slot with no result (M-RUN-2); any slot can be opened (M-RUN-3) and shows its case
/// at the pinned version (M-RUN-4); one step at a time is marked (M-RUN-5); outcomes need `produce` and
/// an open run (M-CAP-2, M-RUN-11); after a confirmed result the run is read again and the next empty
/// slot opens (M-RUN-7); Undo records your earlier result again, or skip (M-RUN-8); notes and marks not
/// recorded stay with their slot while this page lives, Undo included, and go when it is left
/// (M-RUN-10). Results are never resent by themselves: a lost reply offers Retry with the same key. The
/// page has no action that assigns slots, sets required jobs or closes the run (M-RUN-12).
@Observable @MainActor
public final class RunScreen {
    /// Everything the run page offers. There is no action that assigns slots, sets required jobs or
    /// closes the run: those stay in the web app (M-RUN-12).
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Open the first slot with no result.
        case start
        /// Open any slot.
        case openSlot
        /// Mark or clear a step of the open slot.
        case markStep
        /// Type a note on the open slot.
        case note
        /// Record pass, fail, blocked or skip.
        case record
        /// Record your earlier result again.
        case undo
        /// Send a result whose reply was lost again.
        case retry
        /// Read the run again.
        case refresh
    }

    /// The run.
    public private(set) var state: ScreenState<Run> = .loading
    /// The slot open, with its pinned case and history.
    public private(set) var openSlot: SlotDetail?
    /// Notes and marks not recorded, per slot id.
    public private(set) var drafts: [String: SlotDraft] = [:]
    /// Your earlier result per slot, from the last result you recorded there (what Undo sends).
    public private(set) var undoable: [String: PreviousResult?] = [:]
    /// The sentence of the last write that did not go through.
    public private(set) var problem: String?
    /// A result whose reply was lost, kept for Retry.
    public private(set) var pendingResult: (slotID: String, command: WriteCommand<RecordReply>)?

    /// The project.
    public let project: String
    /// The run's id.
    public let id: String
    private let workspace: MainworthyWorkspace

    /// Creates the page.
    public init(workspace: MainworthyWorkspace, project: String, id: String) {
        self.workspace = workspace
        self.project = project
        self.id = id
    }

    /// Reads the run (again), without planning anything.
    public func refresh() async {
        do throws(MainworthyError) {
            state = .content(
                try await workspace.connection.read(MainworthyAPI.run(project, id)), fetchedAt: workspace.now())
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// Whether outcomes can be pressed.
    public var canRecord: Bool {
        workspace.capabilities.contains(.produce) && state.value?.isOpen == true
    }

    /// The actions the page offers now.
    public var actions: Set<Action> {
        var offered: Set<Action> = [.openSlot, .refresh]
        if canStart { offered.insert(.start) }
        if openSlot != nil { offered.formUnion([.markStep, .note]) }
        if canRecord, openSlot != nil { offered.insert(.record) }
        if canRecord, !undoable.isEmpty { offered.insert(.undo) }
        if pendingResult != nil { offered.insert(.retry) }
        return offered
    }

    /// Whether Start can be pressed.
    public var canStart: Bool { state.value.flatMap { RunNavigation.start($0.slots) } != nil }

    /// Opens the first slot with no result.
    public func start() async {
        guard let run = state.value, let slot = RunNavigation.start(run.slots) else { return }
        await open(slot.id)
    }

    /// Opens slot `slotID`, with or without a result.
    public func open(_ slotID: String) async {
        do throws(MainworthyError) {
            openSlot = try await workspace.connection.read(MainworthyAPI.slot(project, run: id, slot: slotID))
        } catch {
            workspace.report(error)
            problem = error.description
        }
    }

    /// Back to the run page; the open slot's draft stays.
    public func closeSlot() { openSlot = nil }

    /// The draft of the open slot.
    public var draft: SlotDraft {
        guard let slotID = openSlot?.slot.id else { return SlotDraft() }
        return drafts[slotID] ?? SlotDraft()
    }

    /// Presses step `step` (1-based) of the open slot.
    public func pressStep(_ step: Int) {
        guard let slotID = openSlot?.slot.id else { return }
        drafts[slotID, default: SlotDraft()].press(step: step)
    }

    /// Sets the open slot's note.
    public func setNote(_ note: String) {
        guard let slotID = openSlot?.slot.id else { return }
        drafts[slotID, default: SlotDraft()].note = note
    }

    /// Records `outcome` on the open slot with its draft; on success the next empty slot opens.
    public func record(_ outcome: Outcome) async {
        guard canRecord, Outcome.manual.contains(outcome), let slotID = openSlot?.slot.id else { return }
        let body = ResultBody(outcome: outcome, draft: drafts[slotID] ?? SlotDraft())
        let command = workspace.connection.command(MainworthyAPI.record(project, run: id, slot: slotID, body))
        await send(command, slot: slotID, advance: true)
    }

    /// Undo on `slotID`: your earlier result again, or skip; the slot's draft stays.
    public func undo(_ slotID: String) async {
        guard canRecord, let previous = undoable[slotID] else { return }
        let command = workspace.connection.command(
            MainworthyAPI.record(project, run: id, slot: slotID, ResultBody.undo(to: previous)))
        await send(command, slot: slotID, advance: false)
        if problem == nil { undoable[slotID] = nil }
    }

    /// Retry of a result whose reply was lost: the same command, the same key.
    public func retry() async {
        guard let pending = pendingResult else { return }
        await send(pending.command, slot: pending.slotID, advance: true)
    }

    private func send(_ command: WriteCommand<RecordReply>, slot slotID: String, advance: Bool) async {
        problem = nil
        do throws(MainworthyError) {
            let reply = try await workspace.connection.perform(command)
            pendingResult = nil
            if advance {
                drafts[slotID] = nil
                undoable[slotID] = .some(reply.yourPrevious)
            }
            await refresh()
            if advance, let run = state.value {
                if let next = RunNavigation.next(after: slotID, in: run.slots) {
                    await open(next.id)
                } else {
                    openSlot = nil
                }
            } else if openSlot?.slot.id == slotID {
                await open(slotID)
            }
        } catch {
            workspace.report(error)
            pendingResult = error.isUnconfirmed ? (slotID, command) : nil
            problem = error.description
            if error.code == "run_closed" { await refresh() }
        }
    }
}
