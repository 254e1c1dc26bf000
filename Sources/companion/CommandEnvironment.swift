import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionStore
import Foundation

/// The terminal client's one way to make the process's parts for an app core, as an app makes them once at
/// launch: the platform's transport under the command line's transport policy (each server's own network
/// settings applied), the secret store in the state folder, the terminal's journal, and the stores a command
/// keeps.
///
/// Rule: no command builds an `AppEnvironment` or a `Client` of its own; `scripts/check-app-road` counts them.
enum CommandEnvironment {
    /// Where an app core's offline stores live for a command.
    enum Stores: Sendable, Equatable {
        /// In memory: nothing of the core is kept after the command.
        case memory
        /// On disk, in this folder of the state folder (created 0700; the databases made 0600 by the core).
        case folder(String)
    }

    /// The environment for `policy` with `stores`, the state folder's secret store and the terminal's journal.
    static func make(policy: TransportPolicy, stores: Stores) throws(CommandFailure) -> AppEnvironment {
        try make(policy: policy, stores: stores, secrets: AuthCommands.store())
    }

    /// The environment for `policy` with `stores` and `secrets` (a core that keeps its secrets elsewhere).
    static func make(policy: TransportPolicy, stores: Stores, secrets: any SecretStore) throws(CommandFailure)
        -> AppEnvironment
    {
        let registry: StoreRegistry
        switch stores {
        case .memory: registry = StoreRegistry(location: .memory)
        case .folder(let relative): registry = StoreRegistry(location: .directory(try Terminal.stateFolder(relative)))
        }
        return AppEnvironment(transportPolicy: policy, stores: registry, secrets: secrets, journal: Terminal.journal)
    }

    /// The environment this command line asks for (`--https-only` or the terminal's default) with `stores`.
    static func make(_ arguments: Arguments, stores: Stores) throws(CommandFailure) -> AppEnvironment {
        try make(policy: arguments.transportPolicy, stores: stores)
    }
}

extension CommandEnvironment {
    /// The terminal's own profile, for a server before it is known as an app's (sign-in, `probe`, `get`):
    /// the kit's defaults, `User-Agent: CompanionKit/0.1`, JSON accepted, `timeout` per request.
    static func terminalProfile(timeout: Duration = .seconds(30)) -> AppProfile {
        AppProfile(userAgent: "CompanionKit/0.1", timeout: timeout)
    }
}
