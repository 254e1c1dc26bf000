import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Certain's first screen: the overview (`OverviewModel`), its last complete snapshot from the offline store.
enum CertainFirstScreen {
    static let policy = TransportPolicy.allowingInsecureLoopback

    /// Signs the fixture's plain user in to the Certain stand-in as the app does (its token kept in the secret
    /// store), and lets the overview refresh once, which stores its snapshot.
    @MainActor static func seed(folder: URL, server: URL) async throws {
        let control = Client(
            baseURL: server, configuration: Client.Configuration(retryPolicy: .never, transportPolicy: policy))
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        guard let password = fixture["passwords"]?["plain"]?.stringValue else {
            throw FirstScreenError("the Certain stand-in's fixture has no password for plain")
        }
        let address = try ServerAddress(parsing: server.absoluteString, policy: policy)
        let flow = CertainSignIn(
            address: address,
            client: Client(
                baseURL: server, configuration: Client.Configuration(retryPolicy: .never, transportPolicy: policy)),
            tokenName: TokenName.make(device: "P9 bench"))
        try await flow.probe()
        guard case .authenticated = try await flow.signIn(username: "plain", password: password) else {
            throw FirstScreenError("the plain user's sign-in asked for more than a password")
        }
        let stored = try await flow.issueCredential()
        let secrets = FileSecretStore(folder: folder.appendingPathComponent("secrets", isDirectory: true))
        try secrets.save(stored)
        let (connection, _) = try CertainAccount.connect(
            stored: stored, secrets: secrets, offlineFolder: folder, language: .english, transportPolicy: policy)
        try await connection.reloadLookups()
        let model = OverviewModel(connection: connection)
        await model.refresh()
        guard case .content = model.state else { throw FirstScreenError("the overview did not load: \(model.state)") }
        try SeedNote(values: ["serverKey": stored.account.serverKey, "userID": stored.account.userID]).write(to: folder)
    }

    /// A new process: the credential from the secret store, the account's offline store, the network down; the
    /// overview shows its stored snapshot at once, as stale, before its refresh fails.
    @MainActor static func read(folder: URL) async throws -> [String] {
        let note = try SeedNote.read(from: folder)
        let account = AccountKey(serverKey: try note.value("serverKey"), userID: try note.value("userID"))
        let secrets = FileSecretStore(folder: folder.appendingPathComponent("secrets", isDirectory: true))
        guard let stored = try secrets.load(account) else { throw FirstScreenError("no stored Certain credential") }
        let session = CredentialSession(stored: stored, store: secrets)
        let client = Client(
            baseURL: stored.address.url,
            configuration: Client.Configuration(
                middlewares: [AuthenticationMiddleware(session: session, rule: .certain)], transportPolicy: policy),
            transport: NetworkDown())
        let connection = CertainConnection(
            client: client, store: try CertainAccount.offlineStore(for: account, in: folder), language: .english)
        let model = OverviewModel(connection: connection)
        guard let overview = await firstValue({ model.state.value }, while: { await model.appear() }) else {
            throw FirstScreenError("the overview showed nothing offline: \(model.state)")
        }
        return overview.accounts.map(\.name) + overview.latest.map { "\($0.id) \($0.counterparty ?? "")" }
    }

    /// The same rows read by the `sqlite3` CLI: the stored snapshot's account names, then its latest transactions.
    static func sqlite(folder: URL) throws -> (file: String, query: String) {
        let note = try SeedNote.read(from: folder)
        let account = AccountKey(serverKey: try note.value("serverKey"), userID: try note.value("userID"))
        return (
            folder.appendingPathComponent(account.storageName + ".sqlite").path,
            "SELECT json_extract(a.value, '$.name') FROM resources, json_each(resources.body, '$.accounts') AS a "
                + "WHERE resources.key = 'certain:overview' ORDER BY a.key; "
                + "SELECT json_extract(t.value, '$.id') || ' ' || coalesce(json_extract(t.value, '$.counterparty'), '') "
                + "FROM resources, json_each(resources.body, '$.latest') AS t WHERE resources.key = 'certain:overview' ORDER BY t.key"
        )
    }
}
