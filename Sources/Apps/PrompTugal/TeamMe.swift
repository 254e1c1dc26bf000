import CompanionCore
import Foundation

/// `me.json`: who the reader is, the team's people, and the counts the badges show.
///
/// Rules (no document fixes the field names, so they are read from evidence as well as by name):
/// - The person is the body, or its nested `me` or `person` object. Their id is `personId` or `id` there (the
///   body's own `id` is not theirs); their name `name`, `displayName` or `fullName`. The id is optional: without one
///   the badges still show, and the command centre says why it cannot load.
/// - The counts are under `counts` or `badges`, else in the object member holding any count, else on the body
///   itself. A count is found by its name with case, `_` and a trailing `Count` set aside (`onlyYou`, `only_you`,
///   `onlyYouCount`): the badge `badge` or `total`, `onlyYou`, `decide` or `toDecide`, `overdue`. A missing count
///   is `nil`, never 0.
/// - The team's people are the list `people` or `members`, on the body or in its `team` (or `people.list`); each
///   needs an id (`id`, `personId`, `key`) or a name, else it is skipped and counted (`skips`: "no name"). Their
///   count is the file's own (`peopleCount`, `memberCount`, `team.count`, `team.size`, `people.total`), else the
///   list's length; `nil` when the file names no people at all.
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

        /// The names each count goes by, normalized (`TeamFields.normalized`).
        static let names: [String: Set<String>] = [
            "badge": ["badge", "badges", "total"], "onlyYou": ["onlyyou"], "decide": ["decide", "todecide"],
            "overdue": ["overdue"],
        ]

        /// The counts on `holder`.
        init(_ holder: JSONValue) {
            func count(_ name: String) -> Int? { TeamFields.integer(holder, normalized: Self.names[name] ?? []) }
            self.init(
                badge: count("badge"), onlyYou: count("onlyYou"), decide: count("decide"), overdue: count("overdue"))
        }

        /// Whether no count is known.
        var isEmpty: Bool { badge == nil && onlyYou == nil && decide == nil && overdue == nil }
    }

    /// One of the team's people.
    public struct Person: Sendable, Hashable, Identifiable {
        /// Their id (their name when the file gives none).
        public let id: String
        /// Their name, when the file gives one.
        public let name: String?

        /// Creates a person.
        public init(id: String, name: String?) {
            self.id = id
            self.name = name
        }
    }

    /// The person's id (the command centre's path, `identity.get`), if `me.json` names one.
    public let personID: String?
    /// The display name.
    public let name: String?
    /// The counts.
    public let counts: Counts
    /// The team's people, in the file's order.
    public let people: [Person]
    /// How many people the team has: the file's count, else the list's length; `nil` when it names none.
    public let peopleCount: Int?
    /// People skipped because they had neither an id nor a name.
    public let skippedPeople: Int

    /// Creates a value.
    public init(
        personID: String?, name: String?, counts: Counts, people: [Person] = [], peopleCount: Int? = nil,
        skippedPeople: Int = 0
    ) {
        self.personID = personID
        self.name = name
        self.counts = counts
        self.people = people
        self.peopleCount = peopleCount
        self.skippedPeople = skippedPeople
    }

    /// What was skipped, and why (`2 people skipped: no name`); empty when nothing was.
    public var skips: [TeamSkip] { TeamSkip.notes([("people", skippedPeople)], reason: "no name") }

    /// Reads `me.json`.
    public init(json value: JSONValue) throws(TeamDataError) {
        guard case .object(let members) = value else { throw .notAnObject("me") }
        let person = [value["me"], value["person"]].compactMap { $0?.objectValue == nil ? nil : $0 }.first
        let personID =
            TeamFields.string(value, ["personId"]) ?? person.flatMap { TeamFields.string($0, ["personId", "id"]) }
        let name =
            TeamFields.string(value, ["name", "displayName", "fullName"])
            ?? person.flatMap { TeamFields.string($0, ["name", "displayName", "fullName"]) }
        var counts = Counts(TeamFields.first(value, ["counts", "badges"]) ?? .object([:]))
        if counts.isEmpty {
            for (_, member) in members.sorted(by: { $0.key < $1.key }) where member.objectValue != nil {
                let found = Counts(member)
                if !found.isEmpty {
                    counts = found
                    break
                }
            }
        }
        if counts.isEmpty { counts = Counts(value) }
        let list = TeamFields.first(value, ["people", "members", "team.people", "team.members", "people.list"])?
            .arrayValue
        var people: [Person] = []
        var skipped = 0
        for entry in list ?? [] {
            let id = TeamFields.string(entry, ["id", "personId", "key"])
            let name = TeamFields.string(entry, ["name", "displayName", "fullName"])
            guard let id = id ?? name else {
                skipped += 1
                continue
            }
            people.append(Person(id: id, name: name))
        }
        let count = TeamFields.integer(
            value, ["peopleCount", "people_count", "memberCount", "team.count", "team.size", "people.total"])
        self.init(
            personID: personID, name: name, counts: counts, people: people,
            peopleCount: count ?? list.map { _ in people.count + skipped }, skippedPeople: skipped)
    }
}
