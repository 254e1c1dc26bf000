import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// PrompTugal's injected scripts in headless Chromium on a page served from loopback, driven through the
/// DevTools protocol (issue 16 item 6). The relay runs in an isolated world of its own (Chromium's counterpart
/// of a WebKit content world) holding the recording `pt` handler; `window.ptApp` runs in the page's world.
///
/// The Node tests in `BridgeTests` stay where Chromium cannot show the case: the allow-list is https-only and
/// names `promptugal.news`, which a loopback page can never be, so which pages get the scripts at all
/// (P-OPEN-11/12) and which pages the sync refuses (P-BRIDGE-11) are decided before any engine runs and are
/// checked there. The scripts here run under a configuration allowing the loopback page's origin, since every
/// script checks `location.origin` when it runs (P-BRIDGE-11).
@Suite("PrompTugal's bridge scripts in Chromium", .serialized)
@MainActor
struct PtAppChromiumTests {
    static let configuration = PrompTugalBridgeConfiguration(version: "1.4 \"beta\"</script>")
    static let news = URL(string: "https://promptugal.news/agenda") ?? URL(fileURLWithPath: "/")
    /// The website's own listener: it reads the schedule only when `nr:schedule` fires.
    static let html = """
        <!doctype html><html><head><script>
        window.__seen = [];
        window.addEventListener("nr:schedule", function () { __seen.push(localStorage.getItem("nr.schedule.v1")); });
        </script></head><body>agenda</body></html>
        """
    static let recorder = """
        window.__posted = [];
        window.webkit = { messageHandlers: { \(PrompTugalBridgeConfiguration.handlerName): {
          postMessage: function (message) { window.__posted.push(JSON.parse(JSON.stringify(message))); } } } };
        """

    /// Runs scripts in the Chromium page's own world, as `evaluateJavaScript` does on device.
    struct ChromiumScripting: PageScripting {
        let page: DevToolsPage
        func evaluate(_ script: String) async throws -> String? {
            try await page.evaluate(script).stringValue
        }
    }

    /// A loopback server serving `html`, a headless Chromium and a page of it; the caller closes both.
    static func open() async throws -> (ChromiumLoopbackPage, ChromiumDevTools, DevToolsPage) {
        let server = try ChromiumLoopbackPage(html: Self.html)
        do {
            let browser = try ChromiumDevTools.launch()
            do {
                return (server, browser, try await browser.newPage())
            } catch {
                browser.close()
                throw error
            }
        } catch {
            server.stop()
            throw error
        }
    }

    @Test(
        """
        P-BRIDGE-1/4/9/10/12, P-OPEN-13: ptApp frozen in the page's world, the handler only in the bridge's world, \
        a call relayed and answered, and the localStorage sync seen by the page's own listener
        """)
    func ptAppInChromium() async throws {
        let (server, browser, page) = try await Self.open()
        defer {
            browser.close()
            server.stop()
        }
        let world = PrompTugalBridgeConfiguration.contentWorldName
        // The scripts check `location.origin` when they run (P-BRIDGE-11, P-OPEN-12): here the page's is the
        // loopback server's.
        let loopback = PrompTugalBridgeConfiguration(
            version: Self.configuration.version,
            allowList: OriginAllowList([
                try ServerAddress(parsing: server.url.absoluteString, policy: .allowingInsecureLoopback)
            ]))
        try await page.addScriptOnNewDocument(Self.recorder + loopback.relayScript, worldName: world)
        try await page.addScriptOnNewDocument(loopback.pageScript)
        try await page.navigate(server.url.absoluteString)
        let bridgeWorld = try page.contextID(ofWorld: world)

        // P-BRIDGE-1, P-OPEN-13: the page sees ptApp (frozen, non-writable) and never the handler.
        let seen = try await page.evaluate(
            """
            (function () {
              new Function("window.ptApp = {}; window.ptApp.version = 'x';")();
              var d = Object.getOwnPropertyDescriptor(window, "ptApp");
              return { version: ptApp.version, ops: ptApp.ops, frozen: Object.isFrozen(ptApp) && Object.isFrozen(ptApp.ops),
                writable: d.writable || d.configurable, handler: typeof window.webkit };
            })()
            """)
        #expect(seen["version"] == .string("1.4 \"beta\"</script>"))
        #expect(seen["ops"] == .array(PrompTugalBridgeConfiguration.ops.map(JSONValue.string)))
        #expect(seen["frozen"] == true && seen["writable"] == false && seen["handler"] == "undefined")
        #expect(try await page.evaluate("typeof window.ptApp", contextID: bridgeWorld) == "undefined")

        // A call crosses to the bridge world, is answered by the real endpoint, and settles in the page.
        let store = ScheduleStore(clock: ManualWallClock(Date(timeIntervalSince1970: 1_794_105_900)))
        store.toggle("ai-doom-or-boom")
        let endpoint = Self.configuration.endpoint(
            services: AppBridgeServices(store: store, person: { "p-0042" }, planner: { _ in }), journal: Journal())
        #expect(try await page.evaluate("window.__call = ptApp.call('schedule.get'); true") == true)
        let posted = try await page.evaluate("__posted.splice(0)", contextID: bridgeWorld)
        let message = try #require(posted[0])
        #expect(message == .object(["id": "pt-1", "op": "schedule.get", "args": .null]))
        let source = BridgeSource(
            isMainFrame: true, frameOrigin: "https://promptugal.news", pageURL: Self.news.absoluteString)
        let reply = try #require(await endpoint.receive(message, from: source))
        #expect(try await page.evaluate(loopback.replyScript(reply), contextID: bridgeWorld) == .null)
        #expect(try await page.evaluate("__call") == store.document.json)

        // P-BRIDGE-8/9/10/12: the sync reads the page's localStorage, merges, writes back, and the page's own
        // listener sees the written value; hostile ids survive the round trip.
        let nasty = "a\"b'c\\d<script>\u{2028}\u{2029}e"
        store.toggle(nasty)
        #expect(
            try await page.evaluate(
                #"localStorage.setItem("nr.schedule.v1", '{"v":1,"picks":[{"id":"from-web","at":"2026-11-08T01:00:00.000Z"}]}'); true"#
            ) == true)
        let sync = WebScheduleSync(store: store, configuration: loopback, journal: Journal())
        let outcome = await sync.sync(page: server.url, scripting: ChromiumScripting(page: page))
        #expect(outcome == .synced(added: ["from-web"]), "\(outcome)")
        let stored = try await page.evaluate("localStorage.getItem('nr.schedule.v1')").stringValue
        let written = try ScheduleDocument(data: Data((stored ?? "").utf8))
        #expect(Set(written.picks) == Set(store.picks) && written.picks.count == store.picks.count)
        #expect(try await page.evaluate("__seen") == .array([.string(stored ?? "?")]))
        #expect(store.picks.map(\.id).contains(nasty))
    }

    @Test("P-OPEN-12: scripts installed on a page whose origin is not allowed define no ptApp and relay nothing")
    func noPtAppOnAnotherOrigin() async throws {
        let (server, browser, page) = try await Self.open()
        defer {
            browser.close()
            server.stop()
        }
        let world = PrompTugalBridgeConfiguration.contentWorldName
        // The app's own allow-list (`https://promptugal.news`), installed as if the page had navigated after the
        // glue's check: the page's origin is the loopback server's.
        try await page.addScriptOnNewDocument(Self.recorder + Self.configuration.relayScript, worldName: world)
        try await page.addScriptOnNewDocument(Self.configuration.pageScript)
        try await page.navigate(server.url.absoluteString)
        let bridgeWorld = try page.contextID(ofWorld: world)
        #expect(try await page.evaluate("typeof window.ptApp") == "undefined")
        #expect(
            try await page.evaluate(
                #"window.dispatchEvent(new CustomEvent("pt:call", { detail: '{"id":"x","op":"schedule.get"}' })); true"#
            ) == true)
        #expect(try await page.evaluate("__posted.length", contextID: bridgeWorld) == 0)
    }
}
