import CompanionScreen
import Foundation
import Observation

/// The accounts tab's model: every account with its balance in its own currency (C-ACC-1). Read through the
/// kit's store, so it stays readable offline with its time (C-OFF-2); no account at all is `empty`. A fresh
/// list also refreshes the accounts lookup.
@Observable @MainActor
public final class AccountsModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<[Account]> = .loading
    @ObservationIgnored private let server: CertainServer

    /// The texts of the server's language.
    public var texts: Texts { server.texts }

    /// The accounts of `server`.
    public init(server: CertainServer) {
        self.server = server
    }

    /// Loads the accounts: the stored list at once with its age, then the server's.
    public func load() async {
        for await update in server.bundle.read(CertainAPI.accounts, showing: state, isEmpty: { $0.isEmpty }) {
            state = update.state
            if update.endsSignIn { await server.lookups.forget() }
        }
        // A fresh list is the fresher accounts lookup too.
        if state.kind == .content, let accounts = state.value { await server.lookups.updateAccounts(accounts) }
    }
}
