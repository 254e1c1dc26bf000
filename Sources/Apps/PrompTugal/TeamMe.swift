import CompanionCore
import Foundation

/// `me.json`: who the reader is, with the counts the badges show.
///
/// Rules:
/// - The person's id is `personId`, else `me.id` (the two shapes the stand-in serves; no document fixes it). It is
///   optional: without one the badges still show, and the command centre says why it cannot load.
/// - The counts are under `counts` or `badges`, each by any of its names (`onlyYou` or `only_you`, `decide` or
///   `to_decide`, `badge` or `total`); a missing count is `nil`, never 0.
/// - A body that is not a JSON object is an error for this part only (P-TEAM-7).
public struct TeamMe: Sendable, Hashable {
    /// The counts.
    public struct Counts: Sendable, Hashable {
        /// The app badge.
        public let badge: Int?
        /// Items only this person can act on.
        public let onlyYou: Int?
        /// Decisions waiting.
        public let decide: Int?
        /// Items overdue.
        public let overdue: Int?

        /// Creates counts.
        public init(badge: Int?, onlyYou: Int?, decide: Int?, overdue: Int?) {
            self.badge = badge
            self.onlyYou = onlyYou
            self.decide = decide
            self.overdue = overdue
        }
    }

    /// The person's id (the command centre's path, `identity.get`), if `me.json` names one.
    public let personID: String?
    /// The display name.
    public let name: String?
    /// The counts.
    public let counts: Counts

    /// Creates a value.
    public init(personID: String?, name: String?, counts: Counts) {
        self.personID = personID
        self.name = name
        self.counts = counts
    }

    /// Reads `me.json`.
    public init(json value: JSONValue) throws(TeamDataError) {
        guard case .object = value else { throw .notAnObject("me") }
        let counts = TeamFields.first(value, ["counts", "badges"]) ?? .object([:])
        self.init(
            personID: TeamFields.string(value, ["personId", "me.id"]),
            name: TeamFields.string(value, ["name", "me.name", "me.displayName"]),
            counts: Counts(
                badge: TeamFields.integer(counts, ["badge", "total"]),
                onlyYou: TeamFields.integer(counts, ["onlyYou", "only_you"]),
                decide: TeamFields.integer(counts, ["decide", "to_decide"]),
                overdue: TeamFields.integer(counts, ["overdue"])))
    }
}
