import CompanionApp
import CompanionCore
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The command centre screen: the person's tasks, decisions, what names them, and today.
///
/// Rules (seed §6, P-OPEN-19):
/// - The person's id comes from `me.json` (`TeamMe.personID`: `personId`, else `me.id`, else a nested `person`'s
///   id); the saved `me.json` is used when the site cannot be reached, so the command centre works offline like
///   every other part.
/// - The id goes into `/people/<id>/app/data.json` percent-encoded as one path segment. An id that is empty, `.`
///   or `..`, or a `me.json` with no id, makes no request at all: the screen fails (by the kit's one failure rule)
///   with a sentence saying why.
/// - The file is read through its feed like every team-data file (saved copy first, then the site; stale or
///   offline with age). While `me.json` has not been read, the screen shows `me`'s state.
@MainActor @Observable
public final class CommandCentreModel {
    /// `me.json`'s feed, which names the person.
    public let me: ScreenFeed<TeamMe>
    /// The command centre's feed, once the person's id is known.
    public private(set) var centre: ScreenFeed<CommandCentre>?
    /// Where the command centre was read from, once the person's id is known.
    public private(set) var endpoint: TeamEndpoint?
    /// Why no command centre could be asked for (no id, or one that cannot be part of an address).
    private var refusal: ScreenUpdate<CommandCentre>?

    @ObservationIgnored private let team: TeamData

    /// The model of `team`'s command centre.
    public init(team: TeamData) {
        self.team = team
        self.me = team.feed(PrompTugalAPI.me, on: .team)
    }

    /// What the screen shows.
    public var state: ScreenState<CommandCentre> {
        if let refusal { return refusal.state }
        if let centre { return centre.state }
        if case .failed = me.state, let failed = me.state.withoutValue(as: CommandCentre.self) { return failed }
        return .loading
    }

    /// Loads `me.json`, then the person's command centre (the saved copies only when `offline`).
    public func load(offline: Bool = false) async {
        let policy: FetchPolicy? = offline ? .offline : nil
        await me.refresh(policy)
        if let person = me.value {
            refusal = nil
            guard let id = person.personID else {
                refuse(CommandCentreError.noPerson)
                return
            }
            guard let found = TeamEndpoint.commandCentre(personID: id) else {
                refuse(CommandCentreError.unusableID(Self.shown(id)))
                return
            }
            if found != endpoint {
                endpoint = found
                centre = team.feed(PrompTugalAPI.commandCentre(found), on: .team)
            }
        }
        await centre?.refresh(policy)
    }

    private func refuse(_ error: CommandCentreError) {
        endpoint = nil
        centre = nil
        refusal = team.server.team.failing(.loading, with: error)
    }

    static func shown(_ id: String) -> String { id.count > 40 ? String(id.prefix(40)) + "…" : id }
}

/// Why the command centre was not asked for.
public enum CommandCentreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `me.json` names no person.
    case noPerson
    /// The person's id cannot be part of an address (shown clipped).
    case unusableID(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .noPerson:
            return "PrompTugal's me.json names no person, so there is no command centre to show."
        case .unusableID(let id):
            return "PrompTugal's me.json names a person id (\"\(id)\") that cannot be part of an address, so the "
                + "command centre was not requested."
        }
    }
}
