import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation
import MainworthyCore

/// Mainworthy's first screen: the queue of the open project (`MainworthyWorkspace`, `QueueScreen`).
///
/// The core keeps its data in memory only (drafts M-DRAFT-3, runs O-11, recent lists O-14): nothing of the queue
/// is on the device when a new process starts, so there is no first screen from an offline store to measure. What
/// a person waits for instead is a new process with the stored session reading the projects and the queue from the
/// server; with the network down, the screen that says so.
enum MainworthyFirstScreen {
    static let policy = TransportPolicy.allowingInsecureLoopback
    static let project = "shop"

    /// The process's parts as the app makes them: the secrets in `folder` (the core keeps no store on disk), and
    /// `transport` (the platform's when `nil`, or the network down).
    static func environment(_ folder: URL, transport: (any Transport)?) -> AppEnvironment {
        AppEnvironment(
            transportPolicy: policy, stores: StoreRegistry(location: .memory),
            secrets: FileSecretStore(folder: folder.appendingPathComponent("secrets", isDirectory: true)),
            transport: transport)
    }

    /// Resets the reference server's fixture and signs ada in as the app does; the session (a cookie) goes to the
    /// secret store, as it does on a phone (M-AUTH-7). Also writes a curl config reading the same two routes with
    /// that cookie (0600: it holds the session), the peer of the network-up read.
    @MainActor static func seed(folder: URL, server: URL) async throws {
        let control = Client(
            baseURL: server, configuration: Client.Configuration(retryPolicy: .never, transportPolicy: policy))
        _ = try await control.send(
            Request<JSONValue>.post("/_control/reset", body: ["fixture": "default"] as JSONValue))
        let fixture = try await control.send(Request<JSONValue>.get("/_control/fixture"))
        guard let password = fixture["passwords"]?["ada"]?.stringValue else {
            throw FirstScreenError("the Mainworthy fixture has no password for ada")
        }
        let build = MainworthyBuild(server: server, version: "bench")
        let environment = environment(folder, transport: nil)
        let signIn = try MainworthySignIn.model(build: build, environment: environment)
        await signIn.submitPassword(username: "ada", password: password)
        guard case .signedIn = signIn.state else { throw FirstScreenError("ada's sign-in: \(signIn.state)") }
        guard let mainworthy = try await MainworthyServer.stored(build: build, environment: environment),
            let credential = await mainworthy.credentials.credential
        else {
            throw FirstScreenError("the sign-in stored no session")
        }
        let urls = [
            try mainworthy.bundle.client.httpRequest(for: MainworthyAPI.projects()).url,
            try mainworthy.bundle.client.httpRequest(for: MainworthyAPI.queue(project)).url,
        ]
        let header = credential.credential.header
        let config =
            "silent\nheader = \"\(header.name): \(header.value)\"\nheader = \"Accept: application/json\"\n"
            + urls.map { "url = \"\($0.absoluteString)\"\n" }.joined()
        let path = folder.appendingPathComponent("curl-queue.conf").path
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(config.utf8), attributes: [.posixPermissions: 0o600])
        else { throw FirstScreenError("could not write the curl config") }
        try SeedNote(values: ["server": server.absoluteString]).write(to: folder)
    }

    /// A new process: the stored session, the projects and the queue from the server (`network: true`), or the
    /// screen with the network down (`network: false`: the one row is the sentence the screen shows).
    @MainActor static func read(folder: URL, network: Bool) async throws -> [String] {
        guard let server = URL(string: try SeedNote.read(from: folder).value("server")) else {
            throw FirstScreenError("bad server address in the seed note")
        }
        let environment = environment(folder, transport: network ? nil : NetworkDown())
        guard
            let mainworthy = try await MainworthyServer.stored(
                build: MainworthyBuild(server: server, version: "bench"), environment: environment)
        else { throw FirstScreenError("no stored Mainworthy session") }
        let workspace = MainworthyWorkspace(server: mainworthy)
        await workspace.load(preferred: project)
        guard network else {
            guard case .failed = workspace.projects.kind else {
                throw FirstScreenError("with the network down the projects read \(workspace.projects)")
            }
            return [workspace.projects.problem ?? "failed"]
        }
        guard let queue = workspace.queue else { throw FirstScreenError("no project opened: \(workspace.projects)") }
        await queue.refresh()
        guard let page = queue.state.value else { throw FirstScreenError("the queue did not load: \(queue.state)") }
        return [page.summaryLine] + page.items.map { "\($0.id) \($0.title)" }
    }

    /// The peer of the network-up read: one curl process reading the same two routes with the same session.
    static func curl(folder: URL) -> [String] {
        ["-K", folder.appendingPathComponent("curl-queue.conf").path]
    }
}
