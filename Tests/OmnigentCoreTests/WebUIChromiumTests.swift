import CompanionBridge
import CompanionCore
import CompanionLinks
import CompanionStore
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Omnigent 0.19.1's own web UI, served by the real server, loaded in headless Chromium with the app's
/// bootstrap injected at document start and a recording `webkit.messageHandlers.omnigentNative`. The test plays
/// the shell: it drains what the page posted, decodes it with the kit's codec, hands it to `OmnigentBridge`, and
/// evaluates the emits the bridge returns in the page.
@Suite("Omnigent's real web UI in Chromium", .serialized)
struct WebUIChromiumTests {
    /// What the app's web view would install: the recording handler, then the bootstrap.
    static let recorder = """
        window.__posted = [];
        window.webkit = { messageHandlers: { \(OmnigentBootstrap.handlerName): {
          postMessage: function (message) {
            window.__posted.push(JSON.parse(JSON.stringify(message)));
            \(DevToolsPage.reportChange) } } } };
        """

    /// The shell's side of one round: every posted message decoded and handled; emits evaluated in the page.
    struct Shell {
        var bridge: OmnigentBridge
        let page: DevToolsPage
        let origin: String
        var methods: [String] = []
        var effects: [OmnigentEffect] = []

        mutating func pump() async throws {
            let posted = try await page.evaluate("window.__posted.splice(0)").arrayValue ?? []
            let href = try await page.evaluate("location.href").stringValue
            let source = BridgeSource(isMainFrame: true, frameOrigin: origin, pageURL: href)
            for body in posted {
                let request = try BridgeEnvelopeCodec.decode(body, dialect: .method)
                methods.append(request.op)
                let handled = bridge.receive(body, from: source)
                effects += handled
                for case .emit(let emit) in handled { _ = try await page.evaluate(emit.script) }
            }
        }

        /// Pumps until `expression` holds in the page (bounded; generous, since the page loads its whole UI
        /// while the rest of the suite runs on the same cores). Pumps and checks again after each DevTools event
        /// (a posted message, a DOM change, a navigation), not on a timer.
        mutating func pump(until expression: String, seconds: Double = 60) async throws {
            var shell = self
            defer { self = shell }
            try await page.waitUntil(seconds: seconds, "`\(expression)`") {
                try await shell.pump()
                return try await shell.page.evaluate(expression) == .bool(true)
            }
        }
    }

    func createSessions(_ url: URL, titles: [String]) async throws -> [Session] {
        let client = TestClients.loopback(url)
        var sessions: [Session] = []
        for title in titles { sessions.append(try await OmnigentFixture.createSession(client, title: title)) }
        return sessions
    }

    @Test(
        """
        Issue 17: the real page finds the native shell, every message it posts decodes and is accepted, OpenPath and \
        a notification tap navigate it, notify/signOutOfServer answer booleans, subscriptions unsubscribe, and the \
        watchdog never fails a healthy page that does not opt in (O-BRIDGE-1/2, O-ROUTE-1, O-NOTIF-4, O-WD-1)
        """)
    func realWebUI() async throws {
        let url = try TestServers.omnigent()
        let tag = UUID().uuidString.prefix(8)
        let sessions = try await createSessions(url, titles: ["web ui open \(tag)", "web ui tap \(tag)"])
        let pinned = try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback)
        let clock = ManualWallClock()
        let journal = Journal(clock: clock)
        var bridge = OmnigentBridge(
            pinned: pinned, offer: ServerOffer(presets: [], recents: RecentServers()),
            clock: clock, journal: journal)
        let browser = try ChromiumDevTools.launch()
        defer { browser.close() }
        let page = try await browser.newPage()
        try await page.addScriptOnNewDocument(Self.recorder + OmnigentBootstrap.script)
        bridge.loadStarted(of: pinned)
        try await page.navigate(pinned.description)
        var shell = Shell(bridge: bridge, page: page, origin: pinned.origin)

        // The page finds the shell: it asks for the picker, and renders the server it was told about.
        try await shell.pump(until: "!!document.querySelector('[data-testid=\"sidebar-server-picker\"]')")
        #expect(shell.methods.contains("getServerPicker"))
        #expect(shell.methods.contains("setColorScheme"))
        let pickerLabel = try await page.evaluate(
            "document.querySelector('[data-testid=\"sidebar-server-picker\"]').getAttribute('title')")
        #expect(pickerLabel == .string("\(pinned.host):\(pinned.port ?? 80)"))

        // The page's own bridge module, as it calls the shell.
        let moduleURL = try await page.evaluate(
            "performance.getEntriesByType('resource').map((e) => e.name).find((n) => /nativeBridge-[^/]*\\.js$/.test(n))"
        )
        let module = try #require(moduleURL.stringValue, "the page did not load its nativeBridge module")
        _ = try await page.evaluate(
            "import(\(JavaScriptLiteral.string(module))).then((m) => { window.__bridge = m; return true; })")
        let probes = try await page.evaluate(
            "({ ios: __bridge.h(), native: __bridge._(), picker: __bridge.z() })")
        #expect(probes == .object(["ios": .bool(true), "native": .bool(true), "picker": .bool(true)]))

        // OpenPath routes the SPA in place (no new document: the marker survives).
        _ = try await page.evaluate("window.__sameDocument = true")
        let first = sessions[0].id
        _ = try await page.evaluate(OmnigentEmit.openPath("/c/\(first)").script)
        try await shell.pump(until: "location.pathname === '/c/\(first)' && window.__sameDocument === true")

        // A notification tap reaches the page's onNotificationActivated subscriber and navigates.
        let second = sessions[1].id
        _ = try await page.evaluate(shell.bridge.emit(.notificationActivated(path: "/c/\(second)")))
        try await shell.pump(until: "location.pathname === '/c/\(second)' && window.__sameDocument === true")

        // notify and signOutOfServer: the page's own functions await a boolean and get `true`.
        _ = try await page.evaluate(
            """
            window.__answers = {};
            __bridge.v({ title: "Done", body: "b", navigatePath: "/c/\(first)" }).then((r) => __answers.notify = r);
            __bridge.I().then((r) => __answers.signOut = r);
            true
            """)
        try await shell.pump(until: "__answers.notify === true && __answers.signOut === true")
        #expect(
            shell.effects.contains(
                .postNotification(OmnigentNotification(title: "Done", body: "b", navigatePath: "/c/\(first)"))))
        #expect(shell.effects.contains(.signOutOfServer))

        // getKeyboardViewport: {width, height} after the app reports one; the subscriber hears of the change.
        let width = try #require(try await page.evaluate("window.innerWidth").doubleValue)
        _ = try await page.evaluate(
            "window.__keyboard = 0; window.__stopKeyboard = __bridge.S(() => window.__keyboard++); true")
        _ = try await page.evaluate(OmnigentEmit.keyboardViewport(width: width, height: 400).script)
        #expect(try await page.evaluate("[__keyboard, __bridge.l()]") == .array([.integer(1), .integer(400)]))
        _ = try await page.evaluate("__stopKeyboard()")
        _ = try await page.evaluate(OmnigentEmit.keyboardViewport(width: width, height: 300).script)
        #expect(try await page.evaluate("__keyboard") == .integer(1), "unsubscribed callbacks are not called")

        // Insets and drags reach their subscribers with the shapes the page reads.
        _ = try await page.evaluate(
            """
            window.__seen = []; __bridge.x((i) => __seen.push(["insets", i.topBar, i.bottomBar]));
            __bridge.w((phase, p) => __seen.push(["drag", phase, p])); true
            """)
        _ = try await page.evaluate(OmnigentEmit.insets(bottomBar: 49, topBar: 20).script)
        _ = try await page.evaluate(OmnigentEmit.sidebarDrag(phase: "move", progress: 0.5).script)
        #expect(
            try await page.evaluate("__seen")
                == .array([
                    .array([.string("insets"), .integer(20), .integer(49)]),
                    .array([.string("drag"), .string("move"), .number(0.5)]),
                ]))
        try await shell.pump()

        // Every method the page called exists, decodes and is accepted; none is ignored.
        let ignored = journal.events.filter { $0.fields["outcome"] == "ignored" || $0.fields["outcome"] == "rejected" }
        #expect(ignored.isEmpty, "ignored: \(ignored.map(\.message))")
        #expect(page.consoleErrors.filter { $0.contains("nativeBridge") }.isEmpty)

        // The page never sends nativeWebReady: the watchdog does not watch it, so it never fails.
        #expect(!shell.methods.contains("nativeWebReady"))
        clock.advance(by: 120)
        #expect(shell.bridge.health == .idle)
    }
}
