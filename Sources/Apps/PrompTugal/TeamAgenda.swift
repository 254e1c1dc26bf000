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
/// Rules (seed §3, P-SCHED-17, P-SCHED-18, P-TEAM-7; no document fixes the field names, so they are read from
/// evidence as well as by name):
/// - The events are `events`, `sessions` or `items` (or the body itself), else the largest list of objects in the
///   body (one level down at most).
/// - An event's slug is its `slug`, else a string `id`, else the slug the website's pattern
///   `(?:^|/)events/([^/]+)/index\.html$` takes from its `url` (or from any member holding an event page's
///   address), else a numeric `id` written as its digits; a slug that is not a bare slug is made bare the same way
///   picks are (`EventSlug.normalize`). An event without one is skipped and counted (`skips`: "no slug").
/// - Its start is `start`, `startsAt`, `start_time` or `starts_at`, else the earliest member that reads as an
///   instant; its end `end`, `endsAt`, `end_time` or `ends_at`, else the latest other instant. With or without an
///   offset: without one it is Lisbon wall time, summer time included. A start that is not a time leaves the event
///   without one (it sorts last) instead of failing the agenda.
/// - Its title is `title` or `name`, else its longest plain text member (`TeamFields.text`).
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

    /// What was skipped, and why (`3 events skipped: no slug`); empty when nothing was.
    public var skips: [TeamSkip] { TeamSkip.notes([("events", skipped)], reason: "no slug") }

    /// Reads `agenda.json`.
    public init(json value: JSONValue) throws(TeamDataError) {
        guard let items = TeamFields.list(value, ["events", "sessions", "items"]) else {
            throw .missingList("agenda")
        }
        var events: [AgendaEvent] = []
        var skipped = 0
        for item in items {
            guard let slug = Self.slug(item) else {
                skipped += 1
                continue
            }
            let url = TeamFields.string(item, ["url", "href", "link"]) ?? Self.eventPage(item)
            let instants = (item.objectValue ?? [:]).values.compactMap(TeamFields.instant).sorted()
            // A time under a known name is read as it is (none when it is not a time); evidence only without one.
            func time(_ names: [String], else guess: Date?) -> Date? {
                guard TeamFields.first(item, names) != nil else { return guess }
                return TeamFields.string(item, names).flatMap { try? LisbonTime.instant($0) }
            }
            let start = time(["start", "startsAt", "start_time", "starts_at"], else: instants.first)
            let end = time(["end", "endsAt", "end_time", "ends_at"], else: instants.count > 1 ? instants.last : nil)
            events.append(
                AgendaEvent(
                    slug: slug, title: TeamFields.text(item, ["title", "name"]), start: start, end: end,
                    place: TeamFields.string(item, ["place", "placeId", "location", "venue"]), url: url))
        }
        self.init(events: events, skipped: skipped)
    }

    /// The event's bare slug: `slug`, a string `id`, an event page's address, else a numeric `id`.
    static func slug(_ item: JSONValue) -> String? {
        if let slug = TeamFields.string(item, ["slug"]).flatMap(EventSlug.normalize) { return slug }
        if case .string(let id)? = TeamFields.first(item, ["id", "eventId", "event_id"]),
            let slug = EventSlug.normalize(id)
        {
            return slug
        }
        let page = TeamFields.string(item, ["url", "href", "link"]) ?? eventPage(item)
        if let slug = page.flatMap(EventSlug.extract(fromURL:)) { return slug }
        return TeamFields.string(item, ["id", "eventId", "event_id"]).flatMap(EventSlug.normalize)
    }

    /// The first member holding an event page's address (`…/events/<slug>/index.html`).
    static func eventPage(_ item: JSONValue) -> String? {
        for (_, member) in (item.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            if case .string(let text) = member, EventSlug.extract(fromURL: text) != nil { return text }
        }
        return nil
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
