import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Server setup's smaller rules, each as a person would meet it: a cancelled connect, the workspace-root bounce's
/// budget, a withdrawn preset at a cold start, the page opening setup, and addresses that are not web addresses.
@Suite("Omnigent setup rules", .serialized)
@MainActor
struct SetupRuleTests {
    let journal = Journal()

    func environment(policy: TransportPolicy = .allowingInsecureLoopback) -> AppEnvironment {
        OmnigentFixture.environment(journal: journal, policy: policy)
    }

    @Test(
        "Item 5: a cancelled connect says nothing: setup waits again, no 'not an Omnigent server'",
        .timeLimit(.minutes(1)))
    func aCancelledConnectIsSilent() async throws {
        // A port that accepts and never answers: the manifest read waits until the connect is cancelled.
        let silent = try ListeningSocket()
        let model = ServerSetupModel(environment: environment())
        model.addressText = "http://127.0.0.1:\(silent.port)"
        let connecting = Task { await model.connect() }
        let reached = await Task.detached { silent.waitForConnection(seconds: 20) }.value
        #expect(reached, "the manifest was being read")
        connecting.cancel()
        await connecting.value
        #expect(model.phase == .idle, "no sentence: \(model.phase)")
        #expect(model.current == nil)
    }

    @Test("Item 6: the workspace-root bounce is spent once per page load; the next load has its own")
    func oneBouncePerPageLoad() throws {
        let model = ServerSetupModel(environment: environment(policy: .httpsOnly))
        let root = try #require(URL(string: "https://w.cloud.databricks.com/?o=42"))
        #expect(model.navigation(to: root)?.absoluteString == "https://w.cloud.databricks.com/omnigent?o=42")
        #expect(model.navigation(to: root) == nil, "a second bounce on the same load lets the navigation proceed")
        let workspace = try ServerAddress(parsing: "https://w.cloud.databricks.com/omnigent", policy: .httpsOnly)
        _ = model.pageDidLoad(workspace)
        #expect(model.navigation(to: root) != nil, "a new load has a bounce of its own")
        #expect(model.navigation(to: try #require(URL(string: "https://example.com/"))) == nil)
    }

    @Test("Item 7 (O-OPEN-10): a saved preset the configuration withdrew is not opened at the next cold start")
    func aWithdrawnPresetIsNotReopened() throws {
        let preset = try ServerAddress(parsing: "https://preset.example.com", policy: .httpsOnly)
        let offered: ManagedValue = .dictionary(["serverUrls": .array([.string("preset.example.com")])])
        // The preset loaded: it is saved, as a preset.
        let first = ServerSetupModel(environment: environment(policy: .httpsOnly))
        first.applyManagedConfiguration(declarative: offered, classic: nil)
        _ = first.pageDidLoad(preset)
        #expect(first.saved == preset && first.savedIsPreset)
        // Cold start while it is still offered: it opens.
        let still = ServerSetupModel(saved: preset, savedIsPreset: true, environment: environment(policy: .httpsOnly))
        still.applyManagedConfiguration(declarative: offered, classic: nil)
        #expect(still.current == preset && still.saved == preset)
        // Cold start after the administrator withdrew it: setup, nothing current, nothing saved.
        let withdrawn = ServerSetupModel(
            saved: preset, savedIsPreset: true, environment: environment(policy: .httpsOnly))
        withdrawn.applyManagedConfiguration(declarative: .dictionary(["serverUrls": .array([])]), classic: nil)
        #expect(withdrawn.current == nil && withdrawn.saved == nil && withdrawn.phase == .idle)
        // A server the person typed is kept whatever the configuration says.
        let typed = ServerSetupModel(saved: preset, environment: environment(policy: .httpsOnly))
        typed.applyManagedConfiguration(declarative: .dictionary(["serverUrls": .array([])]), classic: nil)
        #expect(typed.current == preset && typed.saved == preset)
    }

    @Test("O-PICK-5: the page's openServerSetup shows setup and leaves the current server as it is")
    func openServerSetupKeepsTheCurrentServer() async throws {
        let model = ServerSetupModel(environment: environment())
        model.addressText = try TestServers.omnigent().absoluteString
        await model.connect()
        guard case .connected(let connection) = model.phase else {
            Issue.record("expected connected, got \(model.phase)")
            return
        }
        _ = model.pageDidLoad(connection.address)
        let shown = await model.perform(.openServerSetup)
        #expect(shown == nil)
        #expect(model.phase == .idle, "the setup screen")
        #expect(model.current == connection.address && model.saved == connection.address, "unchanged")
        #expect(model.listedRecents == [connection.address])
    }

    @Test(
        "O-URL-6 and the real app's WorkspaceMountURLTests.testRejectsNonHTTPSchemes: no address, mount or bounce of a non-web scheme"
    )
    func nonWebSchemesAreRefused() throws {
        for text in ["ftp://example.com", "ftp://w.cloud.databricks.com/omnigent", "file:///omnigent"] {
            #expect(throws: ServerAddressError.self) { try ServerAddress(parsing: text, policy: .development) }
        }
        #expect(throws: ServerAddressError.unsupportedScheme("ftp")) {
            try ServerAddress(parsing: "ftp://example.com", policy: .development)
        }
        for text in ["ftp://w.cloud.databricks.com/", "ws://w.cloud.databricks.com", "file://w.cloud.databricks.com/"] {
            let url = try #require(URL(string: text))
            #expect(WorkspaceDiscovery.bounce(navigationTo: url) == nil, "\(text) is not bounced")
        }
    }
}

extension SetupRuleTests {
    @Test("O-OPEN-10: preset flags read back: none without a saved server, off for a typed server, off once withdrawn")
    func presetFlagsReadBack() throws {
        let preset = try ServerAddress(parsing: "https://preset.example.com", policy: .httpsOnly)
        let typed = try ServerAddress(parsing: "https://typed.example.com", policy: .httpsOnly)
        let offered: ManagedValue = .dictionary(["serverUrls": .array([.string("preset.example.com")])])
        #expect(!ServerSetupModel(savedIsPreset: true, environment: environment(policy: .httpsOnly)).savedIsPreset)
        #expect(ServerSetupModel(saved: preset, savedIsPreset: true, environment: environment()).savedIsPreset)
        // A typed server loaded while a preset is offered is not a preset.
        let model = ServerSetupModel(environment: environment(policy: .httpsOnly))
        #expect(!model.pageLoaded)
        model.applyManagedConfiguration(declarative: offered, classic: nil)
        _ = model.pageDidLoad(typed)
        #expect(model.saved == typed && !model.savedIsPreset && model.pageLoaded)
        // The preset's page loaded, then the configuration withdrew it: it is no longer saved, nor a preset, but
        // the page on screen stays current.
        _ = model.pageDidLoad(preset)
        #expect(model.savedIsPreset)
        model.applyManagedConfiguration(declarative: .dictionary(["serverUrls": .array([])]), classic: nil)
        #expect(model.saved == nil && !model.savedIsPreset)
        #expect(model.current == preset, "a loaded page is not taken away")
        #expect(journal.events.contains { $0.message == "saved preset withdrawn; setup opens" })
    }

    @Test("O-RECENT-4: a conversation URL right under the origin splits; anything not `c/<id>` is left whole")
    func conversationSplitEdges() throws {
        func split(_ text: String) throws -> (String, String?) {
            let (server, path) = try ServerSetupModel.splitConversation(
                try ServerAddress(parsing: text, policy: .httpsOnly), policy: .httpsOnly)
            return (server.description, path)
        }
        #expect(try split("https://h.example.com/c/conv_abc") == ("https://h.example.com", "/c/conv_abc"))
        #expect(try split("https://h.example.com/x/conv_abc") == ("https://h.example.com/x/conv_abc", nil))
        #expect(try split("https://h.example.com/c") == ("https://h.example.com/c", nil))
        #expect(try split("https://h.example.com/a/b/c/conv_1/") == ("https://h.example.com/a/b", "/c/conv_1"))
    }
}
