import CompanionCore
import Foundation

/// One event of the agenda.
public struct AgendaEvent: Sendable, Hashable, Identifiable {
    /// The bare slug, the schedule's pick id.
    public let slug: String
    /// The title, when the agenda gives one.
    public let title: String?
    /// The start, when the agenda gives one that reads as a time (Lisbon wall time when it has no offset).
    public let start: Date?
    /// The end, the same way.
    public let end: Date?
    /// The place id.
    public let place: String?
    /// The event page's address.
    public let url: String?

    /// The slug.
    public var id: String { slug }
}

/// `/api/v1/live/agenda.json`.
///
/// Rules (seed §3, P-SCHED-17, P-SCHED-18, P-TEAM-7):
/// - The events are `events`, `sessions` or `items` (or the body itself).
/// - An event's slug is its `slug`, else its `id`, else the slug the website's pattern
///   `(?:^|/)events/([^/]+)/index\.html$` takes from its `url`; a slug that is not a bare slug is made bare the
///   same way picks are (`EventSlug.normalize`). An event without one is skipped and counted: nothing can pick it.
/// - Its start is `start`, `startsAt`, `start_time` or `starts_at`, with or without an offset: without one it is
///   Lisbon wall time, summer time included. A start that is not a time leaves the event without one (it sorts
///   last) instead of failing the agenda.
/// - A body without a list of events is an error for the agenda only; the last good copy is kept.
public struct TeamAgenda: Sendable, Hashable {
    /// The events, in the file's order.
    public let events: [AgendaEvent]
    /// Entries skipped because no slug could be found.
    public let skipped: Int

    /// Creates an agenda.
    public init(events: [AgendaEvent], skipped: Int = 0) {
        self.events = events
        self.skipped = skipped
    }

    /// Reads `agenda.json`.
    public init(json value: JSONValue) throws(TeamDataError) {
        guard let items = TeamFields.list(value, ["events", "sessions", "items"]) else {
            throw .missingList("agenda")
        }
        var events: [AgendaEvent] = []
        var skipped = 0
        for item in items {
            let url = TeamFields.string(item, ["url", "href", "link"])
            let named = TeamFields.string(item, ["slug", "id"]).flatMap(EventSlug.normalize)
            guard let slug = named ?? url.flatMap(EventSlug.extract(fromURL:)) else {
                skipped += 1
                continue
            }
            func time(_ names: [String]) -> Date? {
                TeamFields.string(item, names).flatMap { try? LisbonTime.instant($0) }
            }
            events.append(
                AgendaEvent(
                    slug: slug, title: TeamFields.string(item, ["title", "name"]),
                    start: time(["start", "startsAt", "start_time", "starts_at"]),
                    end: time(["end", "endsAt", "end_time", "ends_at"]),
                    place: TeamFields.string(item, ["place", "placeId", "location"]), url: url))
        }
        self.init(events: events, skipped: skipped)
    }

    /// Event starts by slug, for the schedule's order (P-SCHED-17); the first event of a slug wins.
    public var starts: [String: Date] {
        var result: [String: Date] = [:]
        for event in events { if result[event.slug] == nil, let start = event.start { result[event.slug] = start } }
        return result
    }

    /// The first event of each slug.
    public var bySlug: [String: AgendaEvent] {
        Dictionary(events.map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
