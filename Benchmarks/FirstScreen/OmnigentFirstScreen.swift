import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation
import OmnigentCore

/// Omnigent's first screen: the sessions list (`SessionsListModel`), its first page from the offline store.
enum OmnigentFirstScreen {
    /// The list's page size, as the app shows it.
    static let pageSize = 20

    /// The process's parts as the app makes them: the stores in `folder`, and `transport` (the platform's when
    /// `nil`, or the network down).
    static func environment(_ folder: URL, transport: (any Transport)?) -> AppEnvironment {
        AppEnvironment(
            transportPolicy: .allowingInsecureLoopback, stores: StoreRegistry(location: .directory(folder)),
            secrets: InMemorySecretStore(), transport: transport)
    }

    /// Connects to the real Omnigent server as the app does (header mode), lets the sessions list read its first
    /// page (the fetcher stores it), and notes the connection and account for the cold read.
    @MainActor static func seed(folder: URL, server: URL) async throws {
        let environment = environment(folder, transport: nil)
        let address = try environment.address(server.absoluteString)
        let connection = try await OmnigentConnector.connect(address, environment: environment)
        let account = try await OmnigentServer.account(of: connection, environment: environment)
        let omnigent = try await OmnigentServer.open(connection, account: account, environment: environment)
        let client = omnigent.client
        // A full first page: sessions made through the API when the server holds fewer.
        let listed = try await client.send(OmnigentAPI.sessions(limit: pageSize)).data.count
        if listed < pageSize {
            let agents = try await client.send(OmnigentAPI.agents()).data
            guard let agent = agents.first(where: { $0.name == "debby" }) ?? agents.first else {
                throw FirstScreenError("the Omnigent server lists no agent to make sessions for")
            }
            for index in listed..<pageSize {
                _ = try await client.send(
                    try OmnigentAPI.createSession(agentID: agent.id, title: "P9 session \(index)"))
            }
        }
        let model = SessionsListModel(server: omnigent, pageSize: pageSize)
        await model.refresh(policy: .fresh)
        guard let page = model.state.value, !page.sessions.isEmpty else {
            throw FirstScreenError("the Omnigent server listed no session to store: \(model.state)")
        }
        let encoder = JSONEncoder()
        try SeedNote(values: [
            "address": address.url.absoluteString, "apiBase": connection.apiBase.absoluteString,
            "manifest": String(decoding: try encoder.encode(connection.manifest), as: UTF8.self),
            "serverKey": account.serverKey, "userID": account.userID,
        ]).write(to: folder)
    }

    /// A new process: the connection from the app's settings, the account's store, the network down; the
    /// sessions list shows the stored page (stale-while-revalidate shows it before the network answers).
    @MainActor static func read(folder: URL) async throws -> [String] {
        let note = try SeedNote.read(from: folder)
        let environment = environment(folder, transport: NetworkDown())
        guard let apiBase = URL(string: try note.value("apiBase")) else { throw FirstScreenError("bad API base") }
        let connection = ServerConnection(
            address: try environment.address(try note.value("address")), apiBase: apiBase,
            manifest: try Client.makeDecoder().decode(Manifest.self, from: Data(try note.value("manifest").utf8)))
        let account = AccountKey(serverKey: try note.value("serverKey"), userID: try note.value("userID"))
        let omnigent = try await OmnigentServer.open(connection, account: account, environment: environment)
        let model = SessionsListModel(server: omnigent, pageSize: pageSize)
        guard let page = await firstValue({ model.state.value }, while: { await model.refresh() }) else {
            throw FirstScreenError("the sessions list showed nothing offline: \(model.state)")
        }
        return page.sessions.map { "\($0.id) \($0.title ?? "")" }
    }

    /// The same rows read by the `sqlite3` CLI: the stored first page's sessions, id and title, in order. The
    /// sessions list is the kit's paged list, kept as list items (`list_items`, one row a session in its position).
    static func sqlite(folder: URL) throws -> (file: String, query: String) {
        let note = try SeedNote.read(from: folder)
        let account = AccountKey(serverKey: try note.value("serverKey"), userID: try note.value("userID"))
        return (
            folder.appendingPathComponent(account.storageName + ".sqlite").path,
            "SELECT json_extract(body, '$.id') || ' ' || coalesce(json_extract(body, '$.title'), '') "
                + "FROM list_items ORDER BY list_key, position LIMIT \(pageSize)"
        )
    }
}
