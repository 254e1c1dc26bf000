import CompanionApp
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The schedule screen: the person's picks joined with the agenda, in event order.
///
/// Rules (P-SCHED-17, P-SCHED-18, P-OPEN-7):
/// - Each pick is matched to the agenda's event of the same slug (`TeamAgenda`: `slug`, else `id`, else the slug of
///   its `url`). Its start, with or without an offset (Lisbon wall time without one), orders the rows, earliest
///   first; equal starts go by id; picks the agenda does not know come last, by id.
/// - The agenda is read like every team-data file; offline, its saved copy orders the picks. Without any agenda the
///   picks are still listed, by id, and `agenda` says why.
@MainActor @Observable
public final class ScheduleModel {
    /// One line of the schedule.
    public struct Row: Sendable, Hashable, Identifiable {
        /// The pick.
        public let pick: SchedulePick
        /// The agenda's event, when the agenda knows it.
        public let event: AgendaEvent?

        /// The pick's id (the event's slug).
        public var id: String { pick.id }
        /// The event's start.
        public var start: Date? { event?.start }
        /// `2026-11-10 10:00` in Lisbon, when the start is known.
        public var lisbonTime: String? { start.map(LisbonTime.wallTime) }
    }

    /// The store the picks are kept in.
    public let store: ScheduleStore
    /// The agenda's feed.
    public let agendaFeed: ScreenFeed<TeamAgenda>

    /// The schedule of `store`, ordered by `team`'s agenda.
    public init(store: ScheduleStore, team: TeamData) {
        self.store = store
        self.agendaFeed = team.feed(PrompTugalAPI.agenda, on: .news)
    }

    /// The agenda's state.
    public var agenda: ScreenState<TeamAgenda> { agendaFeed.state }

    /// The rows, in the store's order (by start, then id; unknown events last).
    public var rows: [Row] {
        let events = agenda.value?.bySlug ?? [:]
        return store.picks.map { Row(pick: $0, event: events[$0.id]) }
    }

    /// Reads the agenda (the saved copy only when `offline`) and orders the picks by it.
    public func load(offline: Bool = false) async {
        await agendaFeed.refresh(offline ? .offline : nil)
        if let value = agenda.value { store.setEventStarts(value.starts) }
    }
}
