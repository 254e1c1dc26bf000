import CompanionCore
import Foundation

/// A person's command centre, `/people/<id>/app/data.json`: tasks, decisions, what names them, today.
///
/// Rules (seed §6):
/// - Each list is read by any of its names: tasks `tasks`/`todo`, decisions `decisions`/`decide`, named for me
///   `namedForMe`/`named_for_me`/`mentions`, today `today`/`agenda`. A missing list is empty; a body with none of
///   the four is not a command centre (an error for this part only, the last good copy kept).
/// - An item needs only its text: a task's `title`/`text`, a decision's `question`/`title`/`text`, a mention's
///   `text`/`body`/`title`, a today entry's `what`/`title`/`text`; else, from evidence, its longest plain text
///   member (`TeamFields.text`: no id, state, time or address). An item without text is skipped and counted per
///   list (`skips`: "3 tasks skipped: no text field"). A task is done when `done` is true or its `status` (or
///   `state`) is `done`. A today entry's time is `at`, `time` or `start`, else its first member that reads as an
///   instant, as the file writes it.
public struct CommandCentre: Sendable, Hashable {
    /// One line of a list.
    public struct Item: Sendable, Hashable, Identifiable {
        /// The item's id (`id` or `key`), else its place in the list.
        public let id: String
        /// What it says.
        public let text: String
        /// For tasks: whether it is done.
        public let done: Bool?
        /// For today's entries: when (as the file writes it).
        public let at: String?
    }

    /// The person's tasks.
    public let tasks: [Item]
    /// Decisions waiting for the person.
    public let decisions: [Item]
    /// Items that name the person.
    public let namedForMe: [Item]
    /// Today's entries.
    public let today: [Item]
    /// Items skipped because they had no text.
    public let skipped: Int
    /// What was skipped, per list, and why (`3 tasks skipped: no text field`); empty when nothing was.
    public let skips: [TeamSkip]

    /// Reads `data.json`.
    public init(json value: JSONValue) throws(TeamDataError) {
        guard case .object = value else { throw .notAnObject("command centre") }
        let lists: [[JSONValue]?] = [
            TeamFields.first(value, ["tasks", "todo"])?.arrayValue,
            TeamFields.first(value, ["decisions", "decide"])?.arrayValue,
            TeamFields.first(value, ["namedForMe", "named_for_me", "mentions"])?.arrayValue,
            TeamFields.first(value, ["today", "agenda"])?.arrayValue,
        ]
        guard lists.contains(where: { $0 != nil }) else { throw .missingList("command centre") }
        var counts: [Int] = []
        func items(_ list: [JSONValue]?, text names: [String]) -> [Item] {
            var result: [Item] = []
            var skipped = 0
            for (index, item) in (list ?? []).enumerated() {
                guard let text = TeamFields.text(item, names) else {
                    skipped += 1
                    continue
                }
                var done: Bool?
                if let flag = TeamFields.first(item, ["done"])?.boolValue { done = flag }
                if let status = TeamFields.string(item, ["status", "state"]) { done = status.lowercased() == "done" }
                let at =
                    TeamFields.string(item, ["at", "time", "start"])
                    ?? (item.objectValue ?? [:]).sorted(by: { $0.key < $1.key }).lazy
                    .compactMap { TeamFields.instant($0.value) == nil ? nil : $0.value.stringValue }.first
                result.append(
                    Item(
                        id: TeamFields.string(item, ["id", "key", "uid"]) ?? String(index), text: text, done: done,
                        at: at))
            }
            counts.append(skipped)
            return result
        }
        tasks = items(lists[0], text: ["title", "text"])
        decisions = items(lists[1], text: ["question", "title", "text"])
        namedForMe = items(lists[2], text: ["text", "body", "title"])
        today = items(lists[3], text: ["what", "title", "text"])
        skipped = counts.reduce(0, +)
        skips = TeamSkip.notes(
            zip(["tasks", "decisions", "items named for you", "entries today"], counts).map { ($0, $1) },
            reason: "no text field")
    }
}
