import CompanionCore
import CompanionSync
import Foundation
import Observation

/// The person's schedule: picks merged from the app, the web view and the vault, kept with their removals.
///
/// Rules:
/// - `isPicked(id)` is true exactly when a live pick exists (P-SCHED-8). `toggle` adds a pick at the clock's now,
///   or removes it and records `{id, removedAt: now}` (P-SCHED-9, P-SCHED-10).
/// - A pick's id is the bare slug (P-SCHED-6): `toggle` makes `events/<slug>` and event page paths bare with the
///   website's pattern and refuses anything else holding `/` (or empty, `.`, `..`), so the store never holds an id
///   its own reader would skip.
/// - `merge` is the kit's union by id (`UnionByID` over a `TimedSet`): ids not held are added unless a later
///   local removal exists; an id held twice stays once; absence removes nothing; a removal wins only when it is
///   later than the pick, equal times going to the pick; merging is idempotent and order-free
///   (P-SCHED-11..16). Every source (web view, bridge, vault) goes through `merge`; nothing replaces the
///   contents wholesale (P-SCHED-19).
/// - Removals are kept in the app's store only, never in the wire document (P-OPEN-1), and survive a restart
///   (P-SCHED-15).
/// - `picks` are sorted by event start from the agenda, read as Lisbon time; equal starts by id; events the agenda
///   does not know last, by id (P-SCHED-17, P-SCHED-18, P-OPEN-7).
@MainActor @Observable
public final class ScheduleStore {
    /// The live picks, sorted by event start (Lisbon time), then id; unknown events last.
    public private(set) var picks: [SchedulePick] = []
    /// Event starts by slug, from the agenda.
    public private(set) var eventStarts: [String: Date] = [:]
    /// Why the last save failed, if it did (the picks in memory are still right; the next change saves again).
    public private(set) var saveProblem: String?

    @ObservationIgnored private var timedSet: TimedSet
    @ObservationIgnored private let clock: any WallClock
    @ObservationIgnored private let storage: (any ScheduleStorage)?
    @ObservationIgnored private var lastSave: Task<Void, Never>?

    /// Creates a store holding `state` (empty by default); changes are saved to `storage` when one is given.
    public init(
        state: TimedSet = TimedSet(), clock: any WallClock, storage: (any ScheduleStorage)? = nil
    ) {
        self.timedSet = state
        self.clock = clock
        self.storage = storage
        resort()
    }

    /// A store with the state `storage` holds (an empty one the first time).
    public static func load(from storage: any ScheduleStorage, clock: any WallClock)
        async throws(ScheduleStorageError) -> ScheduleStore
    {
        ScheduleStore(state: try await storage.load() ?? TimedSet(), clock: clock, storage: storage)
    }

    /// Whether a live pick of `id` exists.
    public func isPicked(_ id: String) -> Bool { timedSet.contains(id) }

    /// When `id` was last removed here, if its removal is still on record.
    public func removedAt(_ id: String) -> Date? { timedSet.removals[id] }

    /// The state as stored: live picks and removal records.
    public var state: TimedSet { timedSet }

    /// Adds a pick of `id` now (to the millisecond, as the document writes it), or removes it (keeping the
    /// removal's time); returns the bare slug it toggled, or `nil` (and changes nothing) when `id` is not an event's
    /// slug.
    @discardableResult
    public func toggle(_ id: String) -> String? {
        guard let slug = EventSlug.normalize(id) else { return nil }
        timedSet.toggle(slug, at: ScheduleTime.kept(clock.now()))
        changed()
        return slug
    }

    /// Merges a document from the web view, the bridge or the vault; returns what changed.
    @discardableResult
    public func merge(_ incoming: ScheduleDocument) -> ScheduleMergeOutcome {
        let before = timedSet
        let theirs = TimedSet(members: Dictionary(incoming.picks.map { ($0.id, $0.at) }, uniquingKeysWith: max))
        timedSet = UnionByID().merge(timedSet, theirs)
        let added = timedSet.members.keys.filter { before.members[$0] == nil }.sorted()
        let refused = incoming.picks.map(\.id).filter { !timedSet.contains($0) }.sorted()
        if timedSet != before { changed() }
        return ScheduleMergeOutcome(added: added, keptRemoved: refused, skipped: incoming.skipped)
    }

    /// Removes, now, each of `ids` still picked: picks the website's page removed after the app last wrote them
    /// there (`WebScheduleSync`), so they are not written back and a removal record keeps them out of later merges.
    public func removeAsOnPage(_ ids: [String]) {
        let now = ScheduleTime.kept(clock.now())
        var changedAny = false
        for id in ids where timedSet.contains(id) {
            timedSet.toggle(id, at: now)
            changedAny = true
        }
        if changedAny { changed() }
    }

    /// The picks as the website's `{v: 1, picks}` document, the value of `nr.schedule.v1` (P-SCHED-7).
    public var document: ScheduleDocument { ScheduleDocument(picks: picks) }

    /// Sets the event starts from the agenda and re-sorts.
    public func setEventStarts(_ starts: [String: Date]) {
        eventStarts = starts
        resort()
    }

    /// Waits until every change so far is saved.
    public func saved() async {
        await lastSave?.value
    }

    private func changed() {
        resort()
        guard let storage else { return }
        let snapshot = timedSet
        let previous = lastSave
        lastSave = Task { [weak self] in
            await previous?.value
            do {
                try await storage.save(snapshot)
                self?.saveProblem = nil
            } catch {
                self?.saveProblem = "\(error)"
            }
        }
    }

    private func resort() {
        let starts = eventStarts
        picks = timedSet.members.map { SchedulePick(id: $0.key, at: $0.value) }.sorted { left, right in
            switch (starts[left.id], starts[right.id]) {
            case (let l?, let r?) where l != r: return l < r
            case (.some, nil): return true
            case (nil, .some): return false
            default: return left.id < right.id
            }
        }
    }
}

/// What one merge changed.
public struct ScheduleMergeOutcome: Sendable, Hashable {
    /// Ids that became picked.
    public let added: [String]
    /// Incoming ids that stay removed because a local removal is later.
    public let keptRemoved: [String]
    /// Entries of the incoming document that were skipped as unreadable.
    public let skipped: Int
}
