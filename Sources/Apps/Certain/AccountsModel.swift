import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// The accounts tab's model: every account with its balance in its own currency (C-ACC-1). A kit feed of the
/// accounts, so it stays readable offline with its time (C-OFF-2); no account at all is `empty`. A fresh list
/// also refreshes the accounts lookup.
@Observable @MainActor
public final class AccountsModel {
    /// The accounts' feed.
    public let feed: ScreenFeed<[Account]>
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// What the screen shows.
    public var state: ScreenState<[Account]> { feed.state }

    /// The accounts of `server`.
    public init(server: CertainServer) {
        self.server = server
        feed = server.bundle.feed(CertainAPI.accounts, isEmpty: { $0.isEmpty })
    }

    /// Loads the accounts: the stored list at once with its age, then the server's.
    public func load() async {
        await feed.refresh()
        if feed.endsSignIn { await server.lookups.forget() }
        // A fresh list is the fresher accounts lookup too.
        if state.kind == .content, let accounts = state.value { await server.lookups.updateAccounts(accounts) }
    }
}
