import CompanionScreen
import Foundation
import Observation

/// One team-data screen's model: the state a SwiftUI view binds to, and the load that refreshes it.
///
/// Rule: a load never empties the screen. While a refresh runs the last value stays on screen (the state turns
/// to `loading` only when there is nothing to show), and a failed refresh keeps it with its age (`TeamData`'s
/// rules: stale or offline).
@MainActor @Observable
public final class TeamDataModel<Value: Sendable & Equatable> {
    /// What the screen shows.
    public private(set) var state: ScreenState<Value> = .loading

    @ObservationIgnored private let read: @Sendable (Bool) async -> ScreenState<Value>

    /// A model whose loads call `read(offline)`.
    public init(read: @escaping @Sendable (Bool) async -> ScreenState<Value>) {
        self.read = read
    }

    /// Loads (from the saved copies only when `offline`).
    public func load(offline: Bool = false) async {
        if state.value == nil { state = .loading }
        state = await read(offline)
    }
}

extension TeamData {
    /// The Places screen's model.
    @MainActor
    public func placesModel() -> TeamDataModel<TeamPlaces> {
        TeamDataModel { offline in await self.places(offline: offline) }
    }

    /// The agenda's model.
    @MainActor
    public func agendaModel() -> TeamDataModel<TeamAgenda> {
        TeamDataModel { offline in await self.agenda(offline: offline) }
    }

    /// The "me" model (badge counts, the person's id).
    @MainActor
    public func meModel() -> TeamDataModel<TeamMe> {
        TeamDataModel { offline in await self.me(offline: offline) }
    }
}
