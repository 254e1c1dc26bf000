import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionLinks
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// What the app never does (O-NOTIF-1, O-SHELL-4): no APNs, no background polling, no localhost proxy or
/// CORS, no notification or push route. Shown two ways: no source file the app is built from holds an API
/// or route for them, and a full app flow against the real Omnigent 0.19.1 makes no such request.
@Suite("Omnigent out of scope: push, background polling, localhost proxy", .serialized)
@MainActor
struct OutOfScopeTests {
    let journal = Journal()

    /// The package root, from this file's place in `Tests/OmnigentCoreTests`.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What would give each out-of-scope thing a code path, matched case-insensitively.
    static let forbidden: [(token: String, why: String)] = [
        ("registerForRemoteNotifications", "APNs registration"),
        ("didRegisterForRemoteNotificationsWithDeviceToken", "an APNs token"),
        ("deviceToken", "an APNs token"),
        ("aps-environment", "the APNs entitlement"),
        ("apns", "APNs"),
        ("PushKit", "push"),
        ("BGTaskScheduler", "background polling"),
        ("BGAppRefreshTask", "background polling"),
        ("BGProcessingTask", "background polling"),
        ("setMinimumBackgroundFetchInterval", "background polling"),
        ("performFetchWithCompletionHandler", "background polling"),
        ("UIBackgroundModes", "background modes"),
        ("beginBackgroundTask", "work kept alive in the background"),
        ("Access-Control-Allow", "a CORS answer (a local proxy)"),
        ("NWListener", "a local listening server"),
        ("listen(", "a local listening socket"),
        ("/v1/notifications", "a notification route"),
        ("/v1/push", "a push route"),
        ("/v1/devices", "a device registration route"),
    ]

    /// The forbidden tokens `text` holds.
    static func violations(in text: String) -> [String] {
        let lower = text.lowercased()
        return forbidden.filter { lower.contains($0.token.lowercased()) }.map { "\($0.token) (\($0.why))" }
    }

    /// Every Swift file under `Sources`: the app core, the kit it is built on, the terminal client.
    static func sourceFiles() throws -> [URL] {
        let sources = packageRoot.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            throw OwnServerError(description: "cannot list \(sources.path)")
        }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test("O-SHELL-4/O-NOTIF-1: no source file has an APNs, background-polling, CORS, listener or push-route code path")
    func noSourceHasAnOutOfScopeCodePath() throws {
        // The scanner finds what it looks for.
        #expect(!Self.violations(in: "app.registerForRemoteNotifications()").isEmpty)
        #expect(!Self.violations(in: #"headers["Access-Control-Allow-Origin"] = "*""#).isEmpty)
        #expect(!Self.violations(in: #"BGTaskScheduler.shared.register(forTaskWithIdentifier: "poll")"#).isEmpty)
        let files = try Self.sourceFiles()
        let omnigent = files.filter { $0.path.contains("/Sources/Apps/Omnigent/") }
        #expect(omnigent.count >= 25, "the Omnigent core's files were read")
        #expect(files.contains { $0.path.contains("/Sources/CompanionHTTP/") }, "the kit's files were read")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            found += Self.violations(in: text).map { "\(file.lastPathComponent): \($0)" }
        }
        #expect(found.isEmpty, "out-of-scope code paths: \(found)")
    }

    @Test(
        "O-NOTIF-1: notifications are local; a full app flow calls no notification or push route, and 0.19.1 has none")
    func aFullFlowCallsNoPushRoute() async throws {
        let base = try TestServers.omnigent()
        // Omnigent 0.19.1 offers no notification, push or device route at all.
        let spec = try await TestClients.loopback(base).send(Request<JSONValue>.get("/openapi.json"))
        let routes = Array((spec["paths"]?.objectValue ?? [:]).keys)
        #expect(routes.count > 20 && routes.contains("/v1/sessions"))
        #expect(
            !routes.contains { path in ["notif", "push", "apns", "device"].contains { path.lowercased().contains($0) } }
        )

        // Setup, the page loading, the page asking for a notification and a badge, the sessions list, a
        // session's detail, a message, the read mark.
        let environment = OmnigentFixture.environment(journal: journal, clock: ManualWallClock())
        let setup = ServerSetupModel(environment: environment)
        setup.addressText = base.absoluteString
        await setup.connect()
        guard case .connected(let connection) = setup.phase else {
            Issue.record("expected connected, got \(setup.phase)")
            return
        }
        _ = setup.pageDidLoad(connection.address)
        var bridge = try #require(setup.bridge())
        let page = BridgeSource(isMainFrame: true, frameOrigin: connection.address.origin, pageURL: base.absoluteString)
        let beforeNotify = requestLines.count
        let effects =
            bridge.receive(.object(["method": "notify", "title": "Done", "navigatePath": "/c/x"]), from: page)
            + bridge.receive(.object(["method": "setBadgeCount", "count": 2]), from: page)
        #expect(effects.contains { if case .postNotification = $0 { true } else { false } }, "a local notification")
        #expect(effects.contains(.setBadgeCount(2)))
        #expect(requestLines.count == beforeNotify, "posting a notification or a badge asks nothing of the server")

        let account = try await OmnigentServer.account(of: connection, environment: environment)
        let server = try await OmnigentServer.open(connection, account: account, environment: environment)
        let client = server.client
        let list = SessionsListModel(server: server)
        await list.refresh()
        let agents = try await client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first)
        let session = try await client.send(try OmnigentAPI.createSession(agentID: agent.id, title: "no push"))
        let detail = SessionDetailModel(server: server, sessionID: session.id)
        await detail.refresh()
        await detail.updateDraft("hello")
        await detail.send()
        await detail.markRead()
        await list.refresh(policy: .fresh)

        let lines = requestLines
        #expect(lines.count >= 8, "the flow reached the server: \(lines)")
        for line in lines {
            let url = String(line.split(separator: " ", maxSplits: 1).last ?? "")
            #expect(url.hasPrefix(connection.address.origin), "only the server itself is asked: \(line)")
            let path = (URLComponents(string: url)?.path ?? url).lowercased()
            #expect(
                !["notif", "push", "apns", "device"].contains { path.contains($0) }, "a push route was called: \(line)")
        }
    }

    /// Every request this test's journal saw leave a client, as `METHOD url`.
    var requestLines: [String] { journal.events.filter { $0.kind == .request }.map(\.message) }
}
