import CertainCore
import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// Certain's first screen: the overview (`OverviewModel` on `CertainServer`), its stored snapshot group.
enum CertainFirstScreen {
    static let policy = TransportPolicy.allowingInsecureLoopback

    /// The process's parts as the app makes them: the stores and the secrets in `folder`, and `transport` (the
    /// platform's, or the network down).
    static func environment(_ folder: URL, transport: (any Transport)?) -> AppEnvironment {
        AppEnvironment(
            transportPolicy: policy, stores: StoreRegistry(location: .directory(folder)),
            secrets: FileSecretStore(folder: folder.appendingPathComponent("secrets", isDirectory: true)),
            transport: transport)
    }

    /// Signs the fixture's plain user in to the Certain stand-in as the app does (its token kept in the secret
    /// store), and lets the overview refresh once, which stores its snapshot.
    @MainActor static func seed(folder: URL, server: URL) async throws {
        let control = Client(
            baseURL: server, configuration: Client.Configuration(retryPolicy: .never, transportPolicy: policy))
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        guard let password = fixture["passwords"]?["plain"]?.stringValue else {
            throw FirstScreenError("the Certain stand-in's fixture has no password for plain")
        }
        let environment = environment(folder, transport: nil)
        let address = try environment.address(server.absoluteString)
        let flow = CertainServer.signIn(address, device: "P9 bench", language: .english, environment: environment)
        try await flow.probe()
        guard case .authenticated = try await flow.signIn(username: "plain", password: password) else {
            throw FirstScreenError("the plain user's sign-in asked for more than a password")
        }
        let stored = try await flow.issueCredential()
        try environment.secrets.save(stored)
        let certain = try await CertainServer.open(stored, language: .english, environment: environment)
        let model = OverviewModel(server: certain)
        await model.refresh()
        guard model.state.kind == .content else { throw FirstScreenError("the overview did not load: \(model.state)") }
        try SeedNote(values: ["serverKey": stored.account.serverKey, "userID": stored.account.userID]).write(to: folder)
    }

    /// A new process: the credential from the secret store, the account's store, the network down; the overview
    /// shows its stored snapshot first (stale-while-revalidate), before the network fails.
    @MainActor static func read(folder: URL) async throws -> [String] {
        let note = try SeedNote.read(from: folder)
        let account = AccountKey(serverKey: try note.value("serverKey"), userID: try note.value("userID"))
        let environment = environment(folder, transport: NetworkDown())
        guard let stored = try environment.secrets.load(account) else {
            throw FirstScreenError("no stored Certain credential")
        }
        let certain = try await CertainServer.open(stored, language: .english, environment: environment)
        let model = OverviewModel(server: certain)
        guard let overview = await firstValue({ model.state.value }, while: { await model.refresh() }) else {
            throw FirstScreenError("the overview showed nothing offline: \(model.state)")
        }
        return overview.accounts.map(\.name) + overview.latest.map { "\($0.id) \($0.counterparty ?? "")" }
    }

    /// The same rows read by the `sqlite3` CLI: the stored group's accounts member (names), then its latest five.
    static func sqlite(folder: URL) throws -> (file: String, query: String) {
        let note = try SeedNote.read(from: folder)
        let account = AccountKey(serverKey: try note.value("serverKey"), userID: try note.value("userID"))
        return (
            folder.appendingPathComponent(account.storageName + ".sqlite").path,
            "SELECT json_extract(a.value, '$.name') FROM resources, json_each(resources.body) AS a "
                + "WHERE group_name = 'overview' AND member = 'accounts' ORDER BY a.key; "
                + "SELECT json_extract(t.value, '$.id') || ' ' || coalesce(json_extract(t.value, '$.counterparty'), '') "
                + "FROM resources, json_each(resources.body, '$.items') AS t "
                + "WHERE group_name = 'overview' AND member = 'latest' ORDER BY t.key"
        )
    }
}
