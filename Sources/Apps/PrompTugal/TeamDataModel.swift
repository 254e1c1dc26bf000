import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// One team-data screen's model: the state a SwiftUI view binds to, and the load that refreshes it.
///
/// Rule: a load never empties the screen. It shows the saved copy at once with its age, then the site's answer;
/// a failed refresh keeps what is shown with its age (`TeamData`'s rules: stale or offline). The state is
/// `loading` only while there is nothing to show.
@MainActor @Observable
public final class TeamDataModel<Value: Sendable & Equatable> {
    /// What the screen shows.
    public private(set) var state: ScreenState<Value> = .loading

    @ObservationIgnored private let read: @Sendable (Bool, ScreenState<Value>) -> AsyncStream<ScreenState<Value>>

    /// A model whose loads are the states `read(offline, current)` gives.
    public init(read: @escaping @Sendable (Bool, ScreenState<Value>) -> AsyncStream<ScreenState<Value>>) {
        self.read = read
    }

    /// A model reading `request` from `site` of `team`; `name` is the part's name in its sentences.
    public convenience init(
        _ team: TeamData, _ request: Request<Value>, on site: TeamEndpoint.Site, name: String
    ) {
        self.init { offline, current in
            team.read(request, on: site, name: name, offline: offline, showing: current)
        }
    }

    /// Loads (from the saved copies only when `offline`).
    public func load(offline: Bool = false) async {
        for await next in read(offline, state) { state = next }
    }
}

extension TeamData {
    /// The Places screen's model.
    @MainActor
    public func placesModel() -> TeamDataModel<TeamPlaces> {
        TeamDataModel(self, PrompTugalAPI.places, on: .news, name: TeamEndpoint.places.name)
    }

    /// The agenda's model.
    @MainActor
    public func agendaModel() -> TeamDataModel<TeamAgenda> {
        TeamDataModel(self, PrompTugalAPI.agenda, on: .news, name: TeamEndpoint.agenda.name)
    }

    /// The "me" model (badge counts, the person's id).
    @MainActor
    public func meModel() -> TeamDataModel<TeamMe> {
        TeamDataModel(self, PrompTugalAPI.me, on: .team, name: TeamEndpoint.me.name)
    }

    /// The news feed's model.
    @MainActor
    public func feedModel() -> TeamDataModel<NewsFeed> {
        TeamDataModel(self, PrompTugalAPI.feed, on: .news, name: "news feed")
    }
}
