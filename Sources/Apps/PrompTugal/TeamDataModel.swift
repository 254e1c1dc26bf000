import CompanionApp
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// One team-data screen's model: it holds the part's feed, which a SwiftUI view binds to through `state`.
///
/// Rule: a load never empties the screen. The feed shows the saved copy at once with its age, then the site's
/// answer; a failed refresh keeps what is shown with its age (`TeamData`'s rules: stale or offline). The state is
/// `loading` only while there is nothing to show. A write of the part's saved copy elsewhere (another screen's
/// read of the same file) shows here with no request.
@MainActor @Observable
public final class TeamDataModel<Value: Sendable & Equatable> {
    /// The part's feed.
    public let feed: ScreenFeed<Value>

    /// A model showing `feed`.
    public init(feed: ScreenFeed<Value>) { self.feed = feed }

    /// A model reading `request` from `site` of `team`.
    public convenience init(_ team: TeamData, _ request: Request<Value>, on site: TeamEndpoint.Site) {
        self.init(feed: team.feed(request, on: site))
    }

    /// What the screen shows.
    public var state: ScreenState<Value> { feed.state }

    /// Loads (from the saved copies only when `offline`).
    public func load(offline: Bool = false) async { await feed.refresh(offline ? .offline : nil) }
}

extension TeamData {
    /// The Places screen's model.
    @MainActor
    public func placesModel() -> TeamDataModel<TeamPlaces> { TeamDataModel(self, PrompTugalAPI.places, on: .news) }

    /// The agenda's model.
    @MainActor
    public func agendaModel() -> TeamDataModel<TeamAgenda> { TeamDataModel(self, PrompTugalAPI.agenda, on: .news) }

    /// The "me" model (badge counts, the person's id, the team's people).
    @MainActor
    public func meModel() -> TeamDataModel<TeamMe> { TeamDataModel(self, PrompTugalAPI.me, on: .team) }

    /// The news feed's model.
    @MainActor
    public func feedModel() -> TeamDataModel<NewsFeed> { TeamDataModel(self, PrompTugalAPI.feed, on: .news) }
}
