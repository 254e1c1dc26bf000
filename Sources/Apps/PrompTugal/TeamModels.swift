import CompanionCore
import Foundation

/// `me.json`: who the reader is, with the counts the badges show.
public struct TeamMe: Sendable, Hashable, Codable {
    /// The counts.
    public struct Counts: Sendable, Hashable, Codable {
        /// The app badge.
        public let badge: Int?
        /// Items only this person can act on.
        public let onlyYou: Int?
        /// Decisions waiting.
        public let decide: Int?
        /// Items overdue.
        public let overdue: Int?
    }

    /// The person's id (used in the command centre's path and by `identity.get`).
    public let personId: String
    /// The display name.
    public let name: String?
    /// The counts.
    public let counts: Counts?
}

/// One place of `places.json`.
///
/// Rule (P-TEAM-3): coordinates are optional; the published file has none for its 83 places.
public struct TeamPlace: Sendable, Hashable, Codable, Identifiable {
    /// The id.
    public let id: String
    /// The name.
    public let name: String
    /// Stage, room, booth…
    public let kind: String?
    /// The building or area.
    public let area: String?
    /// Seats, when known.
    public let capacity: Int?
    /// Latitude, when published.
    public let lat: Double?
    /// Longitude, when published.
    public let lon: Double?
}

/// `places.json`.
public struct TeamPlaces: Sendable, Hashable, Codable {
    /// The places.
    public let places: [TeamPlace]
}

/// One event of the agenda.
public struct AgendaEvent: Sendable, Hashable, Codable, Identifiable {
    /// The bare slug (the schedule's pick id).
    public let slug: String
    /// The title.
    public let title: String
    /// The start, Lisbon wall time when it has no offset (P-SCHED-18).
    public let start: String
    /// The end, same form.
    public let end: String?
    /// The place id.
    public let place: String?
    /// The event page's path.
    public let url: String?

    /// The slug.
    public var id: String { slug }

    /// The start instant, or `nil` when the text is not a time.
    public var startInstant: Date? { try? LisbonTime.instant(start) }
}

/// `agenda.json`.
public struct TeamAgenda: Sendable, Hashable, Codable {
    /// The events.
    public let events: [AgendaEvent]

    /// Event starts by slug, for the schedule's order (P-SCHED-17).
    public var starts: [String: Date] {
        var result: [String: Date] = [:]
        for event in events { if let start = event.startInstant { result[event.slug] = start } }
        return result
    }
}
