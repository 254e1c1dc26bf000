import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// App environments for tests: the platform's transport under `.allowingInsecureLoopback` (the test servers talk
/// plain http on 127.0.0.1), stores in memory unless a folder is given, secrets in memory, and every other part
/// replaceable (a manual clock, an instant sleeper).
public enum TestEnvironments {
    /// An environment for the local test servers.
    public static func loopback(
        stores location: StoreLocation = .memory, secrets: any SecretStore = InMemorySecretStore(),
        journal: Journal = Journal(), clock: any WallClock = SystemWallClock(), sleeper: any Sleeper = TaskSleeper(),
        random: any RandomSource = SystemRandomSource(), transport: (any Transport)? = nil
    ) -> AppEnvironment {
        AppEnvironment(
            transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: location, clock: clock),
            secrets: secrets, journal: journal, clock: clock, sleeper: sleeper, random: random, transport: transport)
    }
}
