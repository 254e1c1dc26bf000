import CompanionApp
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// A run's page and the slot open in it.
///
/// Rules: the page shows the verdict, what the run accepts and its slots in order (M-RUN-1); Start
/// opens the first slot with no result (M-RUN-2); any slot can be opened (M-RUN-3) and shows its case
/// at the pinned version (M-RUN-4); one step at a time is marked (M-RUN-5); outcomes need `produce` and
/// an open run (M-CAP-2, M-RUN-11); after a confirmed result the run is read again from the server and the next
/// empty slot opens, chosen from the slots just read; if that read fails, the run page shows instead, never a
/// slot chosen from what was read before (M-RUN-7); Undo records your earlier result again, or skip (M-RUN-8);
/// notes and marks not recorded stay with their slot while this page lives, Undo included, and go when it is
/// left (M-RUN-10). Results are never resent by themselves: a lost reply offers Retry with the same key. The
/// page has no action that assigns slots, sets required jobs or closes the run (M-RUN-12): `Action` is all it
/// offers, and `perform(_:)` does each.
@Observable @MainActor
public final class RunModel {
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

    /// The run, read through the account's store.
    public let run: ScreenFeed<Run>
    /// The slot open, read through the account's store.
    public private(set) var slot: ScreenFeed<SlotDetail>?
    /// Notes and marks not recorded, per slot id.
    public private(set) var drafts: [String: SlotDraft] = [:]
    /// Your earlier result per slot, from the last result you recorded there (what Undo sends).
    public private(set) var undoable: [String: ResultBody?] = [:]
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
        run = workspace.feed(MainworthyAPI.run(project, id))
    }

    /// The run page's state.
    public var state: ScreenState<Run> { run.state }

    /// The slot open, with its pinned case and history.
    public var openSlot: SlotDetail? { slot?.value }

    /// Reads the run (again), without planning anything: the stored copy at once, then the server's.
    public func refresh() async {
        await run.refresh()
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

    /// Does `action` as its button does, on what the page shows: the first slot for Open slot, step 1 for Mark
    /// step, a pass for Record, the open slot (else the last recorded) for Undo.
    public func perform(_ action: Action) async {
        switch action {
        case .start: await start()
        case .openSlot:
            if let first = state.value?.slots.first { await open(first.id) }
        case .markStep: pressStep(1)
        case .note: setNote("Noted on the run page")
        case .record: await record(.pass)
        case .undo:
            if let slot = openSlot?.slot.id ?? undoable.keys.sorted().first { await undo(slot) }
        case .retry: await retry()
        case .refresh: await refresh()
        }
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
        let opened = workspace.feed(MainworthyAPI.slot(project, run: id, slot: slotID))
        await opened.refresh(.fresh)
        if opened.value != nil {
            slot = opened
        } else {
            problem = opened.state.problem
        }
    }

    /// Back to the run page; the open slot's draft stays.
    public func closeSlot() { slot = nil }

    /// Leaves the run (its page goes away): what was typed or marked and not recorded is dropped, and Undo is
    /// forgotten (M-RUN-10, O-11). Nothing of it was ever stored.
    public func leave() {
        slot = nil
        drafts = [:]
        undoable = [:]
    }

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
        let command = workspace.server.command(MainworthyAPI.record(project, run: id, slot: slotID, body))
        await send(command, slot: slotID, advance: true)
    }

    /// Undo on `slotID`: your earlier result again, or skip; the slot's draft stays.
    public func undo(_ slotID: String) async {
        guard canRecord, let previous = undoable[slotID] else { return }
        let command = workspace.server.command(
            MainworthyAPI.record(project, run: id, slot: slotID, ResultBody.undo(to: previous)))
        await send(command, slot: slotID, advance: false)
        if problem == nil { undoable[slotID] = nil }
    }

    /// Undo on `slotID` for a page that did not record there itself (a new launch, the terminal): `person`'s
    /// earlier result in the slot again, read from the slot's history, or skip (M-RUN-8). Returns whether there was
    /// a result of theirs to undo.
    @discardableResult
    public func undoLatest(_ slotID: String, by person: Person) async -> Bool {
        guard canRecord else { return false }
        if undoable[slotID] != nil {
            await undo(slotID)
            return true
        }
        await open(slotID)
        guard let history = openSlot?.results, let body = ResultBody.undo(latestOf: person, in: history) else {
            return false
        }
        let command = workspace.server.command(MainworthyAPI.record(project, run: id, slot: slotID, body))
        await send(command, slot: slotID, advance: false)
        return true
    }

    /// Retry of a result whose reply was lost: the same command, the same key.
    public func retry() async {
        guard let pending = pendingResult else { return }
        await send(pending.command, slot: pending.slotID, advance: true)
    }

    private func send(_ command: WriteCommand<RecordReply>, slot slotID: String, advance: Bool) async {
        problem = nil
        let reply: RecordReply
        do throws(MainworthyError) {
            reply = try await workspace.server.perform(command)
        } catch {
            workspace.report(error)
            pendingResult = error.isUnconfirmed ? (slotID, command) : nil
            problem = error.description
            if error.code == "run_closed" { await refresh() }
            return
        }
        pendingResult = nil
        if advance {
            drafts[slotID] = nil
            undoable[slotID] = .some(reply.yourPrevious)
        }
        await run.refresh(.fresh)
        guard run.isFresh, let current = run.value else {
            // The slots were not read again: choosing the next one from the slots read before could open one
            // another tester filled meanwhile. The run page shows, and says so.
            slot = nil
            problem =
                "The result was recorded, but the run could not be read again: \(run.state.problem ?? "no reply")"
            return
        }
        if advance {
            if let next = RunNavigation.next(after: slotID, in: current.slots) {
                await open(next.id)
            } else {
                slot = nil
            }
        } else if openSlot?.slot.id == slotID {
            await open(slotID)
        }
    }
}
