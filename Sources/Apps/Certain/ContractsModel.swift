import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The contracts tab's model: every contract with its rhythm and next due day, and the server's monthly and
/// yearly totals (C-CON-1, C-CON-2). Kept offline with its time (C-OFF-2).
@Observable @MainActor
public final class ContractsModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<ContractList> = .loading
    /// The lookups category and account names come from.
    public private(set) var lookups = Lookups()
    /// The texts.
    public let texts: Texts
    @ObservationIgnored private let connection: CertainConnection

    /// The contracts of `connection`.
    public init(connection: CertainConnection) {
        self.connection = connection
        self.texts = connection.texts
    }

    /// Loads the contracts.
    public func load() async {
        do {
            let list = try await connection.fetch(CertainAPI.contracts)
            let fetchedAt = connection.clock.now()
            try? await connection.save("contracts", list, fetchedAt: fetchedAt)
            lookups = await connection.resolving(
                accounts: list.items.map(\.accountID), categories: list.items.compactMap(\.categoryID))
            state = .content(list, fetchedAt: fetchedAt)
        } catch {
            let stored: Stored<ContractList>? = await connection.stored("contracts")
            lookups = await connection.resolving()
            state = ScreenFailure.state(
                after: error, showing: state, stored: stored, now: connection.clock.now(), texts: texts)
        }
    }
}

/// The accounts tab's model: every account with its balance in its own currency (C-ACC-1). Kept offline
/// with its time (C-OFF-2); the reply also refreshes the accounts lookup.
@Observable @MainActor
public final class AccountsModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<[Account]> = .loading
    /// The texts.
    public let texts: Texts
    @ObservationIgnored private let connection: CertainConnection

    /// The accounts of `connection`.
    public init(connection: CertainConnection) {
        self.connection = connection
        self.texts = connection.texts
    }

    /// Loads the accounts.
    public func load() async {
        do {
            let accounts = try await connection.fetch(CertainAPI.accounts)
            let fetchedAt = connection.clock.now()
            try? await connection.save("accounts", accounts, fetchedAt: fetchedAt)
            await connection.updateAccounts(accounts)
            state = .content(accounts, fetchedAt: fetchedAt)
        } catch {
            let stored: Stored<[Account]>? = await connection.stored("accounts")
            state = ScreenFailure.state(
                after: error, showing: state, stored: stored, now: connection.clock.now(), texts: texts)
        }
    }
}
