import CompanionScreen
import Foundation
import Observation

/// The contracts tab's model: every contract with its rhythm and next due day, and the server's monthly and
/// yearly totals (C-CON-1, C-CON-2). Read through the kit's store, so it stays readable offline with its time
/// (C-OFF-2); no contract at all is `empty` (C-ERR-1).
@Observable @MainActor
public final class ContractsModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<ContractList> = .loading
    /// The lookups category and account names come from.
    public private(set) var lookups = Lookups()
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// The contracts of `server`.
    public init(server: CertainServer) {
        self.server = server
    }

    /// Loads the contracts: the stored list at once with its age, then the server's.
    public func load() async {
        for await update in server.bundle.read(CertainAPI.contracts, showing: state, isEmpty: { $0.items.isEmpty }) {
            state = update.state
            if update.endsSignIn { await server.lookups.forget() }
        }
        let items = state.value?.items ?? []
        lookups = await server.lookups.resolving(
            accounts: items.map(\.accountID), categories: items.compactMap(\.categoryID))
    }
}
