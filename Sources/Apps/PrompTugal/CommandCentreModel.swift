import CompanionCore
import CompanionScreen
import Foundation
import Observation

/// The command centre screen: the person's tasks, decisions, what names them, and today.
///
/// Rules (seed §6, P-OPEN-19):
/// - The person's id comes from `me.json` (`TeamMe.personID`: `personId`, else `me.id`); the saved `me.json` is
///   used when the site cannot be reached, so the command centre works offline like every other part.
/// - The id goes into `/people/<id>/app/data.json` percent-encoded as one path segment. An id that is empty, `.`
///   or `..`, or a `me.json` with no id, makes no request at all: the screen fails with a sentence saying why.
/// - The file is read like every team-data file (saved copy first, then the site; stale or offline with age).
@MainActor @Observable
public final class CommandCentreModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<CommandCentre> = .loading
    /// Where the command centre was read from, once the person's id is known.
    public private(set) var endpoint: TeamEndpoint?

    @ObservationIgnored private let team: TeamData

    /// The model of `team`'s command centre.
    public init(team: TeamData) { self.team = team }

    /// Loads `me.json`, then the person's command centre (the saved copies only when `offline`).
    public func load(offline: Bool = false) async {
        let me = await team.me(offline: offline)
        guard let person = me.value else {
            state =
                state.value.map { .stale($0, age: state.age ?? 0, problem: me.problem) }
                ?? .failed(reason: me.problem ?? "PrompTugal does not know who you are yet.", signInRequired: false)
            return
        }
        guard let id = person.personID else {
            state = .failed(
                reason: "PrompTugal's me.json names no person, so there is no command centre to show.",
                signInRequired: false)
            return
        }
        guard let found = TeamEndpoint.commandCentre(personID: id) else {
            state = .failed(
                reason: "PrompTugal's me.json names a person id (\"\(Self.shown(id))\") that cannot be part of an "
                    + "address, so the command centre was not requested.", signInRequired: false)
            return
        }
        endpoint = found
        for await next in team.read(
            PrompTugalAPI.commandCentre(found), on: .team, name: "your command centre", offline: offline,
            showing: state)
        {
            state = next
        }
    }

    static func shown(_ id: String) -> String { id.count > 40 ? String(id.prefix(40)) + "…" : id }
}
