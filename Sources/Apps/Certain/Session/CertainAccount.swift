import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// Opening a signed-in Certain account: the client that carries only the device token, and the offline
/// store of exactly this server and user.
public enum CertainAccount {
    /// A client for `address` whose every request carries the credential of `session` (and no cookie), with
    /// the server's sentences in `language`.
    public static func client(
        address: URL, session: CredentialSession, language: Language, transportPolicy: TransportPolicy,
        journal: Journal = Journal(), clock: any WallClock = SystemWallClock()
    ) -> Client {
        Client(
            baseURL: address,
            configuration: Client.Configuration(
                defaultHeaders: [
                    "User-Agent": "CompanionKit/0.1 (Certain)", "Accept": "application/json",
                    "Accept-Language": language.acceptLanguage,
                ],
                middlewares: [AuthenticationMiddleware(session: session, rule: .certain)],
                transportPolicy: transportPolicy, journal: journal, clock: clock))
    }

    /// The offline store of `account` in `folder` (`nil`: in memory). One file per server and user (C-OFF-4).
    public static func offlineStore(for account: AccountKey, in folder: URL?, clock: any WallClock = SystemWallClock())
        throws(StoreError) -> OfflineStore
    {
        try OfflineStore(
            scope: account,
            location: folder.map { .directory($0) } ?? .memory, clock: clock)
    }

    /// The connection of the signed-in `stored` credential: token-only client, offline data in `folder`.
    public static func connect(
        stored: StoredCredential, secrets: any SecretStore, offlineFolder: URL?, language: Language,
        transportPolicy: TransportPolicy, journal: Journal = Journal(), clock: any WallClock = SystemWallClock()
    ) throws(StoreError) -> (connection: CertainConnection, session: CredentialSession) {
        let session = CredentialSession(stored: stored, store: secrets, journal: journal)
        let client = client(
            address: stored.address.url, session: session, language: language, transportPolicy: transportPolicy,
            journal: journal, clock: clock)
        let store = try offlineStore(for: stored.account, in: offlineFolder, clock: clock)
        return (CertainConnection(client: client, store: store, language: language), session)
    }
}
