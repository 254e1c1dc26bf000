import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// The contracts tab's model: every contract with its own amount in its own currency, its rhythm and next due
/// day, and the server's monthly and yearly totals (C-CON-1, C-CON-2). A kit feed of the contracts, so it stays
/// readable offline with its time (C-OFF-2); no contract at all is `empty` (C-ERR-1).
@Observable @MainActor
public final class ContractsModel {
    /// The contracts' feed.
    public let feed: ScreenFeed<ContractList>
    /// The lookups category and account names come from.
    public private(set) var lookups = Lookups()
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// What the screen shows.
    public var state: ScreenState<ContractList> { feed.state }

    /// The contracts of `server`.
    public init(server: CertainServer) {
        self.server = server
        feed = server.bundle.feed(CertainAPI.contracts, isEmpty: { $0.items.isEmpty })
    }

    /// Loads the contracts: the stored list at once with its age, then the server's.
    public func load() async {
        await feed.refresh()
        if feed.endsSignIn { await server.lookups.forget() }
        let items = state.value?.items ?? []
        lookups = await server.lookups.resolving(
            accounts: items.map(\.accountID), categories: items.compactMap(\.categoryID), readAt: state.fetchedAt)
    }
}
