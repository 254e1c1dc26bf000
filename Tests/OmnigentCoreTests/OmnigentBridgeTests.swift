import CompanionBridge
import CompanionCore
import CompanionLinks
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Omnigent's bridge methods (O-BRIDGE-*, O-PICK-*), each a table of inputs and effects.
struct OmnigentBridgeTests {
    static func address(_ text: String) -> ServerAddress {
        guard let address = try? ServerAddress(parsing: text, policy: .allowingInsecureLoopback) else {
            preconditionFailure("fixture address \(text) must parse")
        }
        return address
    }

    static let source = BridgeSource(
        isMainFrame: true, frameOrigin: "https://h.example.com", pageURL: "https://h.example.com/omnigent/c/x")

    static func bridge(journal: Journal = Journal(clock: ManualWallClock()), clock: ManualWallClock = ManualWallClock())
        -> OmnigentBridge
    {
        var recents = RecentServers()
        recents.recordSuccessfulLoad(of: address("https://mine.example.com/mount"))
        recents.recordSuccessfulLoad(of: address("https://corp.example.com"))
        let offer = ServerOffer(presets: [address("https://corp.example.com")], recents: recents)
        return OmnigentBridge(
            pinned: address("https://h.example.com/omnigent"), offer: offer, clock: clock, journal: journal)
    }

    static func url(_ text: String) -> URL {
        guard let url = URL(string: text) else { preconditionFailure("fixture URL \(text) must parse") }
        return url
    }

    static func json(_ text: String) -> JSONValue { JSONValue(data: Data(text.utf8)) ?? .string("bad fixture") }

    struct Row: Sendable, CustomTestStringConvertible {
        let body: String
        let effects: [OmnigentEffect]
        var testDescription: String { body }
    }

    static let rows: [Row] = [
        // O-BRIDGE-5
        Row(body: #"{"method":"setColorScheme","scheme":"dark"}"#, effects: [.setColorScheme(.dark)]),
        Row(body: #"{"method":"setColorScheme","scheme":"light"}"#, effects: [.setColorScheme(.light)]),
        Row(body: #"{"method":"setColorScheme","scheme":"system"}"#, effects: [.setColorScheme(.system)]),
        Row(body: #"{"method":"setColorScheme","scheme":"sepia"}"#, effects: []),
        Row(body: #"{"method":"setColorScheme"}"#, effects: []),
        // O-BRIDGE-6, O-OPEN-12
        Row(body: #"{"method":"setBadgeCount","count":7}"#, effects: [.setBadgeCount(7)]),
        Row(body: #"{"method":"setBadgeCount","count":-3}"#, effects: [.setBadgeCount(0)]),
        Row(body: #"{"method":"setBadgeCount","count":0}"#, effects: [.setBadgeCount(0)]),
        Row(body: #"{"method":"setBadgeCount","count":2.9}"#, effects: [.setBadgeCount(2)]),
        Row(body: #"{"method":"setBadgeCount","count":1e300}"#, effects: [.setBadgeCount(Int(Int32.max))]),
        // A count that is not a number sets 0, as the real app's bridge does.
        Row(body: #"{"method":"setBadgeCount","count":"5"}"#, effects: [.setBadgeCount(0)]),
        Row(body: #"{"method":"setBadgeCount","count":true}"#, effects: [.setBadgeCount(0)]),
        Row(body: #"{"method":"setBadgeCount"}"#, effects: [.setBadgeCount(0)]),
        // O-BRIDGE-7, O-OPEN-13
        Row(
            body: #"{"method":"notify","title":"Done","body":"b","navigatePath":"/c/x"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "b", navigatePath: "/c/x"))]),
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"c/x"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil))]),
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"//evil.example"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil))]),
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"/\\evil.example"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil))]),
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"https://evil.example/"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil))]),
        Row(body: #"{"method":"notify","title":"","body":"b"}"#, effects: []),
        Row(body: #"{"method":"notify","body":"b"}"#, effects: []),
        // O-BRIDGE-8
        Row(
            body:
                #"{"method":"setViewMode","mode":"terminal","terminalEnabled":true,"terminalStartingUp":false,"visible":true}"#,
            effects: [
                .setViewMode(
                    OmnigentViewMode(
                        mode: "terminal", terminalEnabled: true, terminalStartingUp: false,
                        visible: true))
            ]),
        Row(
            body: #"{"method":"setViewMode","mode":"chat","visible":false}"#,
            effects: [
                .setViewMode(
                    OmnigentViewMode(
                        mode: "chat", terminalEnabled: false, terminalStartingUp: false,
                        visible: false))
            ]),
        // Another mode is chat, and the bar is hidden unless the page says visible (the real app).
        Row(
            body: #"{"method":"setViewMode","mode":"split","visible":true}"#,
            effects: [
                .setViewMode(
                    OmnigentViewMode(mode: "chat", terminalEnabled: false, terminalStartingUp: false, visible: true))
            ]),
        Row(
            body: #"{"method":"setViewMode"}"#,
            effects: [
                .setViewMode(
                    OmnigentViewMode(mode: "chat", terminalEnabled: false, terminalStartingUp: false, visible: false))
            ]),
        // O-PICK-3/4
        Row(
            body: #"{"method":"switchServer","url":"https://mine.example.com"}"#,
            effects: [.switchServer(address("https://mine.example.com/mount"))]),
        Row(
            body: #"{"method":"switchServer","url":"https://corp.example.com/"}"#,
            effects: [.switchServer(address("https://corp.example.com"))]),
        Row(
            body: #"{"method":"switchServer","url":"https://evil.example.com"}"#,
            effects: [.showMessage("That server is no longer available. Choose a server to reconnect.")]),
        Row(
            body: #"{"method":"switchServer","url":"not a url"}"#,
            effects: [.showMessage("That server is no longer available. Choose a server to reconnect.")]),
        Row(body: #"{"method":"switchServer"}"#, effects: []),
        // O-PICK-5
        Row(body: #"{"method":"openServerSetup"}"#, effects: [.openServerSetup]),
        // Issue 17: the rest of what Omnigent's own web UI calls, with the answers it awaits.
        Row(body: #"{"method":"setServerSwitcherHidden","hidden":true}"#, effects: [.setServerSwitcherHidden(true)]),
        Row(body: #"{"method":"setServerSwitcherHidden","hidden":"yes"}"#, effects: []),
        Row(
            body: #"{"method":"setDocumentScrollEnabled","enabled":false}"#, effects: [.setDocumentScrollEnabled(false)]
        ),
        Row(
            body: #"{"method":"signOutOfServer","requestId":"signout-2"}"#,
            effects: [.signOutOfServer, .emit(.reply(requestId: "signout-2", value: .bool(true)))]),
        Row(
            body: #"{"method":"notify","title":"Done","requestId":"notify-1"}"#,
            effects: [
                .postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil)),
                .emit(.reply(requestId: "notify-1", value: .bool(true))),
            ]),
        // A call the page awaits is answered `false` when it is ignored, so the page never waits in vain.
        Row(
            body: #"{"method":"notify","title":"","requestId":"notify-3"}"#,
            effects: [.emit(.reply(requestId: "notify-3", value: .bool(false)))]),
        // O-BRIDGE-6: a count of exactly 1 is 1 (the first count above the floor of 0).
        Row(body: #"{"method":"setBadgeCount","count":1}"#, effects: [.setBadgeCount(1)]),
        // O-OPEN-13: a control character (below U+0020, or U+007F) makes the path unusable; a space and `~` do not.
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"/c/x\u001f"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil))]),
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"/c/x\u007f"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: nil))]),
        Row(
            body: #"{"method":"notify","title":"Done","navigatePath":"/c/a b~"}"#,
            effects: [.postNotification(OmnigentNotification(title: "Done", body: "", navigatePath: "/c/a b~"))]),
        // A request id of 128 characters is answered; one of 129 is not an awaited call.
        Row(
            body: #"{"method":"openServerSetup","requestId":"\#(String(repeating: "r", count: 128))"}"#,
            effects: [
                .openServerSetup, .emit(.reply(requestId: String(repeating: "r", count: 128), value: .bool(true))),
            ]
        ),
        Row(
            body: #"{"method":"openServerSetup","requestId":"\#(String(repeating: "r", count: 129))"}"#,
            effects: [.openServerSetup]),
        Row(
            body: #"{"method":"getServerPicker","requestId":"\#(String(repeating: "r", count: 129))"}"#, effects: []),
        // O-OPEN-12: unknown methods are ignored.
        Row(body: #"{"method":"eval","code":"x"}"#, effects: []),
    ]

    @Test("O-BRIDGE-5..8, O-PICK-3..5, O-OPEN-12/13: methods and their effects", arguments: rows)
    func methods(_ row: Row) {
        let journal = Journal(clock: ManualWallClock())
        var bridge = Self.bridge(journal: journal)
        #expect(bridge.receive(Self.json(row.body), from: Self.source) == row.effects)
        let emits = row.effects.filter { if case .emit = $0 { true } else { false } }
        let ignored = row.effects.allSatisfy { $0 == .emit(.reply(requestId: "notify-3", value: .bool(false))) }
        #expect(journal.events.count == 1 + emits.count)
        #expect(journal.events.first?.kind == .bridge)
        #expect(journal.events.first?.fields["outcome"] == (ignored ? "ignored" : "accepted"))
    }

    @Test(
        "O-BRIDGE-4: nativeWebReady and nativeHeartbeat with a version are accepted (answered true when awaited); without one, ignored"
    )
    func readinessAndHeartbeatAreAccepted() {
        for op in ["nativeWebReady", "nativeHeartbeat"] {
            let journal = Journal(clock: ManualWallClock())
            var bridge = Self.bridge(journal: journal)
            #expect(
                bridge.receive(Self.json(#"{"method":"\#(op)","version":1,"requestId":"r-1"}"#), from: Self.source)
                    == [.emit(.reply(requestId: "r-1", value: .bool(true)))], "\(op)")
            #expect(
                bridge.receive(Self.json(#"{"method":"\#(op)","requestId":"r-2"}"#), from: Self.source)
                    == [.emit(.reply(requestId: "r-2", value: .bool(false)))], "\(op) without a version")
            let inbound = journal.events.filter { $0.fields["direction"] == "page→app" }
            #expect(inbound.map { $0.fields["outcome"] } == ["accepted", "ignored"], "\(op)")
        }
    }

    @Test("O-BRIDGE-3, O-ROUTE-7: subframes and foreign origins are dropped with no effect, and journaled")
    func rejected() {
        let journal = Journal(clock: ManualWallClock())
        var bridge = Self.bridge(journal: journal)
        let body = Self.json(#"{"method":"setBadgeCount","count":3}"#)
        let sources = [
            BridgeSource(isMainFrame: false, frameOrigin: "https://h.example.com", pageURL: "https://h.example.com/"),
            BridgeSource(isMainFrame: true, frameOrigin: "https://evil.example", pageURL: "https://h.example.com/"),
            BridgeSource(isMainFrame: true, frameOrigin: "https://h.example.com", pageURL: "https://evil.example/"),
            BridgeSource(isMainFrame: true, frameOrigin: "http://h.example.com", pageURL: "https://h.example.com/"),
        ]
        for source in sources { #expect(bridge.receive(body, from: source).isEmpty) }
        #expect(bridge.receive(.array([]), from: Self.source).isEmpty)
        #expect(journal.events.count == 5)
        #expect(journal.events.allSatisfy { $0.kind == .bridge && $0.fields["outcome"] == "rejected" })
    }

    @Test("O-PICK-1: getServerPicker answers through ServerPicker, echoing the request id; recents exclude presets")
    func picker() throws {
        let journal = Journal(clock: ManualWallClock())
        var bridge = Self.bridge(journal: journal)
        let effects = bridge.receive(
            Self.json(#"{"method":"getServerPicker","requestId":"picker-1"}"#), from: Self.source)
        guard case .emit(let emit) = effects.first, case .serverPicker(let requestId, let info) = emit else {
            Issue.record("expected a picker emit, got \(effects)")
            return
        }
        #expect(requestId == "picker-1")
        #expect(
            info
                == Self.json(
                    #"""
                    {"canSignOut":true,"currentServer":"https://h.example.com/omnigent",
                     "currentOrigin":"https://h.example.com","currentServerUrl":"https://h.example.com/omnigent",
                     "managedServers":["https://corp.example.com"],"recentServers":["https://mine.example.com/mount"]}
                    """#))
        #expect(emit.script.hasPrefix("window.__omnigentNativeEmitServerPicker?.(\"picker-1\", {"))
        #expect(journal.events.map { $0.fields["direction"] } == ["page→app", "app→page"])
    }

    @Test("O-BRIDGE-4, O-WD-*: ready and heartbeat drive the watchdog through the injected clock")
    func watchdog() {
        let clock = ManualWallClock()
        var bridge = Self.bridge(clock: clock)
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        // A page that never sends nativeWebReady (Omnigent's own web UI) is not watched: no failure, ever.
        clock.advance(by: 60)
        #expect(bridge.health == .idle)
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        clock.advance(by: 5)
        _ = bridge.receive(Self.json(#"{"method":"nativeWebReady","version":1}"#), from: Self.source)
        for _ in 0..<10 {
            clock.advance(by: 14)
            _ = bridge.receive(Self.json(#"{"method":"nativeHeartbeat","version":1}"#), from: Self.source)
        }
        guard case .healthy = bridge.health else {
            Issue.record("expected healthy, got \(bridge.health)")
            return
        }
        clock.advance(by: 16)
        #expect(bridge.health == .failed(.heartbeatMissed))
        // O-WD-1/3: the page opted in, so a reload is held to the 20 s readiness.
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        clock.advance(by: 19.9)
        #expect(bridge.health == .awaitingReadiness(since: clock.now() - 19.9))
        clock.advance(by: 0.1)
        #expect(bridge.health == .failed(.readinessTimedOut))
        // A reload restarts the readiness phase; a version mismatch fails it.
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        _ = bridge.receive(Self.json(#"{"method":"nativeWebReady","version":2}"#), from: Self.source)
        #expect(bridge.health == .failed(.versionMismatch("2")))
        bridge.contentProcessTerminated()
        #expect(bridge.health == .failed(.contentProcessTerminated))
    }

    @Test("O-BRIDGE-9: each emit is named (in the journal) by the page function its script calls, the bootstrap's")
    func emitNamesAreThePageFunctionsCalled() {
        let emits: [OmnigentEmit] = [
            .notificationActivated(path: "/c/y"), .openPath("/c/x"), .viewModeChanged(mode: "chat"),
            .insets(bottomBar: 1), .serverPicker(requestId: "picker-1", info: .null),
            .sidebarDrag(phase: "move", progress: 0.5), .keyboardViewport(width: 1, height: 1),
            .reply(requestId: "notify-1", value: .bool(true)),
        ]
        #expect(emits.map(\.name) == OmnigentBootstrap.emitNames)
        for emit in emits {
            #expect(emit.script.hasPrefix("window.__omnigentNativeEmit\(emit.name)?.("), "\(emit.script)")
        }
    }

    @Test("O-BRIDGE-9/10: emits clamp the drag progress, put the top bar at 0 unless told, and encode any text safely")
    func emits() {
        let bridge = Self.bridge()
        #expect(
            bridge.emit(.sidebarDrag(phase: "move", progress: 1.7))
                == #"window.__omnigentNativeEmitSidebarDrag?.("move", 1);"#)
        #expect(
            OmnigentEmit.sidebarDrag(phase: "end", progress: -2).script
                == #"window.__omnigentNativeEmitSidebarDrag?.("end", 0);"#)
        // A progress that is not a number is 0, as a value out of range is clamped.
        for progress in [Double.nan, .infinity, -.infinity] {
            #expect(
                OmnigentEmit.sidebarDrag(phase: "move", progress: progress).script
                    == #"window.__omnigentNativeEmitSidebarDrag?.("move", 0);"#)
        }
        // `…Insets(bottomBar)`: the bottom bar alone leaves the top bar at 0; lengths are finite and not negative.
        #expect(OmnigentEmit.insets(bottomBar: 34).script == "window.__omnigentNativeEmitInsets?.(34, 0);")
        #expect(
            OmnigentEmit.insets(bottomBar: -3, topBar: .nan).script == "window.__omnigentNativeEmitInsets?.(0, 0);")
        // Called as `?.(…)`, as the real app does, so a page without the bridge ignores it.
        #expect(OmnigentEmit.openPath("/c/x").script == #"window.__omnigentNativeEmitOpenPath?.("\/c\/x");"#)
        let nasty = "/c/\"'\\</script>\u{2028}\u{2029}é"
        let script = OmnigentEmit.notificationActivated(path: nasty).script
        #expect(!script.contains("</script>"))
        #expect(!script.contains("\u{2028}"))
        // That the value arrives intact in a real page is shown in Chromium (`BridgeScriptChromiumTests`).
    }

    @Test("O-BRIDGE-11: a dead content process is a state with the shell's sentence; the recovery wording")
    func processDeathMessage() {
        #expect(
            OmnigentBridge.failureMessage(.contentProcessTerminated) == "The server UI process stopped unexpectedly.")
        // The real app's recovery screen: one sentence for both timeouts, another for a protocol mismatch.
        #expect(OmnigentBridge.failureMessage(.readinessTimedOut) == "The server UI stopped responding.")
        #expect(OmnigentBridge.failureMessage(.heartbeatMissed) == "The server UI stopped responding.")
        #expect(
            OmnigentBridge.failureMessage(.versionMismatch("2"))
                == "The server UI is incompatible with this app version.")
    }

    static func ready(_ bridge: inout OmnigentBridge, version: Int = 1) {
        _ = bridge.receive(json(#"{"method":"nativeWebReady","version":\#(version)}"#), from: source)
    }

    static func beat(_ bridge: inout OmnigentBridge) {
        _ = bridge.receive(json(#"{"method":"nativeHeartbeat","version":1}"#), from: source)
    }

    /// Ported from the real app's `NativeBridgeTests.testNavigationDelegateResetsPinnedDocumentsButPreservesAuthReturn`.
    /// We differ in one step: a failed page stays failed until the next load (the recovery screen's Reload),
    /// where the real app's watchdog object takes a late readiness; so the vector reloads before its second
    /// readiness.
    @Test(
        "O-WD-1/3: a new document on the pinned origin needs readiness again; a return from the identity provider does not"
    )
    func navigationResetsDocumentsButKeepsTheAuthReturn() throws {
        let clock = ManualWallClock()
        var bridge = Self.bridge(clock: clock)
        let pinned = Self.address("https://h.example.com/omnigent")
        bridge.loadStarted(of: pinned)
        bridge.mainFrameNavigationStarted(to: Self.url("https://h.example.com/omnigent"))
        Self.ready(&bridge)
        // Another document of the same server: readiness is due again; a heartbeat (the old document's) counts
        // for nothing.
        bridge.mainFrameNavigationStarted(to: Self.url("https://h.example.com/replacement"))
        clock.advance(by: 10)
        Self.beat(&bridge)
        clock.advance(by: 10)
        #expect(bridge.health == .failed(.readinessTimedOut))
        bridge.loadStarted(of: pinned)
        Self.ready(&bridge)
        // Off to the identity provider and back: paused, then a 20 s grace with the readiness kept.
        bridge.mainFrameNavigationStarted(to: Self.url("https://idp.example.com/login"))
        clock.advance(by: 300)
        #expect(bridge.health == .paused(ready: true))
        bridge.mainFrameNavigationStarted(to: Self.url("https://h.example.com/omnigent"))
        clock.advance(by: 14)
        Self.beat(&bridge)
        clock.advance(by: 14)
        guard case .healthy = bridge.health else {
            Issue.record("expected healthy after the return, got \(bridge.health)")
            return
        }
    }

    /// Ported from the real app's `NativeBridgeTests.testCoordinatorResumePreservesCompatibilityDuringGrace`.
    @Test("O-WD-1 (amended): back in the foreground on the pinned page, a 20 s grace with the readiness kept")
    func resumeKeepsReadinessThroughTheGrace() throws {
        let clock = ManualWallClock()
        var bridge = Self.bridge(clock: clock)
        let page = Self.url("https://h.example.com/omnigent")
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        Self.ready(&bridge)
        bridge.appWillResignActive()
        clock.advance(by: 600)
        #expect(bridge.health == .paused(ready: true), "60 s away is no failure: the watchdog pauses")
        bridge.appBecameActive(pageURL: page)
        #expect(bridge.watchdog.deadline == clock.now() + 20)
        clock.advance(by: 14)
        Self.beat(&bridge)
        clock.advance(by: 14)
        guard case .healthy = bridge.health else {
            Issue.record("expected healthy, got \(bridge.health)")
            return
        }
        // Back in the foreground on another origin's page: still paused.
        bridge.appWillResignActive()
        bridge.appBecameActive(pageURL: Self.url("https://idp.example.com/login"))
        clock.advance(by: 60)
        #expect(bridge.health == .paused(ready: true))
    }

    @Test("O-BRIDGE-4: nativeWebReady and nativeHeartbeat carry their version: another one is the mismatch state")
    func versionsAreCarried() {
        let clock = ManualWallClock()
        var bridge = Self.bridge(clock: clock)
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        Self.ready(&bridge, version: 2)
        #expect(bridge.health == .failed(.versionMismatch("2")))
        var other = Self.bridge(clock: clock)
        other.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        Self.ready(&other)
        _ = other.receive(Self.json(#"{"method":"nativeHeartbeat","version":3}"#), from: Self.source)
        #expect(other.health == .failed(.versionMismatch("3")))
    }

    /// The version is compared as the page wrote it: a whole number in any JSON form is that number, a fraction
    /// stays a fraction, a string is its text (at most 16 characters of it).
    @Test("O-BRIDGE-4: nativeWebReady(1.0) and (\"1\") are version 1; 1.5 and a long string are mismatches as written")
    func versionsAreReadAsWritten() {
        let start = Date(timeIntervalSince1970: 1_764_400_000)
        let cases: [(String, HeartbeatWatchdog.State)] = [
            ("1.0", .healthy(lastBeat: start)),
            (#""1""#, .healthy(lastBeat: start)),
            ("1.5", .failed(.versionMismatch("1.5"))),
            ("-2.5e0", .failed(.versionMismatch("-2.5"))),
            (#""12345678901234567890""#, .failed(.versionMismatch("1234567890123456"))),
        ]
        for (written, health) in cases {
            let clock = ManualWallClock(start)
            var bridge = Self.bridge(clock: clock)
            bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
            _ = bridge.receive(
                Self.json(#"{"method":"nativeWebReady","version":\#(written)}"#), from: Self.source)
            #expect(bridge.health == health, "version \(written)")
        }
    }
}

/// Boundaries the sampled mutation run of 2026-12-07 (seed 4249) found unasserted.
extension OmnigentBridgeTests {
    /// A navigation whose URL the web view does not give (`nil`) is not on the pinned origin: the watchdog pauses
    /// as for an identity provider's page, and no readiness is asked of a document it cannot see.
    @Test("O-WD-1 (amended), O-WD-3: a main-frame navigation without a URL pauses the watchdog, readiness kept")
    func aNavigationWithoutAURLIsOffThePinnedOrigin() {
        let clock = ManualWallClock()
        var bridge = Self.bridge(clock: clock)
        bridge.loadStarted(of: Self.address("https://h.example.com/omnigent"))
        bridge.mainFrameNavigationStarted(to: Self.url("https://h.example.com/omnigent"))
        Self.ready(&bridge)
        bridge.mainFrameNavigationStarted(to: nil)
        clock.advance(by: 300)
        #expect(bridge.health == .paused(ready: true))
    }

    /// A rejected message's journal line names the frame's origin; a frame origin that does not parse is
    /// journaled as its first 80 characters, exactly.
    @Test("O-BRIDGE-3: a frame origin that does not parse is journaled as its first 80 characters")
    func anUnparsableFrameOriginIsJournaledClipped() {
        let journal = Journal(clock: ManualWallClock())
        var bridge = Self.bridge(journal: journal)
        let written = String((0..<120).map { Character(String($0 % 10)) })
        let source = BridgeSource(isMainFrame: true, frameOrigin: written, pageURL: "https://h.example.com/omnigent")
        #expect(bridge.receive(Self.json(#"{"method":"setBadgeCount","count":3}"#), from: source).isEmpty)
        #expect(journal.events.count == 1)
        #expect(journal.events.first?.fields["outcome"] == "rejected")
        #expect(journal.events.first?.fields["origin"] == String(written.prefix(80)))
        #expect(journal.events.first?.fields["origin"]?.count == 80)
    }

    /// The picker's request id is answered up to 128 characters, as every awaited call's is (129: not answered).
    @Test("O-PICK-1: getServerPicker with a request id of exactly 128 characters is answered, echoing it")
    func thePickerAnswersARequestIdOf128Characters() {
        var bridge = Self.bridge()
        let requestId = String(repeating: "r", count: 128)
        let effects = bridge.receive(
            Self.json(#"{"method":"getServerPicker","requestId":"\#(requestId)"}"#), from: Self.source)
        #expect(effects == [.emit(.serverPicker(requestId: requestId, info: bridge.pickerInfo))])
    }
}
