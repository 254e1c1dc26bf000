import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Omnigent's injected scripts, run in a real JavaScript engine (Node.js) with a minimal browser global.
///
/// Everything a browser shows (the frozen object, the ready-event order, the non-writable emits, what it
/// posts, the picker's answer and timeout, emitted text arriving intact) is checked in headless Chromium in
/// `BridgeScriptChromiumTests` and against the real web UI in `WebUIChromiumTests`. What stays in Node is what
/// a recording `setTimeout` shows and a browser cannot (the picker timer's exact 3 000 ms delay, and that
/// answering a request clears its timer), and the page-side shapes of the methods and emits, one call each.
struct OmnigentBootstrapScriptTests {
    static func run(_ body: String) throws -> JSONValue? {
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: [OmnigentBootstrap.handlerName]) + OmnigentBootstrap.script + body)
        return JSONValue(data: Data(output.utf8))
    }

    @Test("O-PICK-1/2: getServerPicker resolves with the app's answer, and with null after 3 s without one")
    func pickerPromise() throws {
        let answer = OmnigentEmit.serverPicker(
            requestId: "picker-1", info: .object(["currentOrigin": .string("https://h.example.com")])
        ).script
        let result = try Self.run(
            """
            const results = [];
            window.omnigentNative.getServerPicker().then((info) => results.push(["ok", info.currentOrigin]));
            window.omnigentNative.getServerPicker().then((info) => results.push(["late", info]),
                                                         (e) => results.push(["rejected", e.message]));
            \(answer)
            timers[1].f();
            setImmediate(() => console.log(JSON.stringify({ results, posted,
              delays: timers.map((t) => t.ms), cleared: !!timers[0].cleared })));
            """)
        #expect(result?["delays"] == .array([.integer(3_000), .integer(3_000)]))
        #expect(result?["cleared"] == .bool(true))
        // The real app's timeout resolves null instead of rejecting (0.19.1's page reads null either way).
        #expect(
            result?["results"]
                == .array([
                    .array([.string("ok"), .string("https://h.example.com")]),
                    .array([.string("late"), .null]),
                ]))
        #expect(result?["posted"]?[0]?["requestId"] == .string("picker-1"))
    }

    /// The version the page reads is 1 (the protocol the app speaks); `notify` and `signOutOfServer` wait 10 s
    /// for the app's answer (a recording timer shows the delay) and then read `false`.
    @Test(
        "O-BRIDGE-1: nativeBridgeVersion is 1; notify and signOutOfServer (awaited calls) read false after 10 s unanswered"
    )
    func versionAndReplyTimeouts() throws {
        let result = try Self.run(
            """
            const n = window.omnigentNative;
            const results = [];
            n.notify({ title: "Done" }).then((v) => results.push(["notify", v]));
            n.signOutOfServer().then((v) => results.push(["signout", v]));
            timers.forEach((t) => t.f());
            setImmediate(() => console.log(JSON.stringify({ version: n.nativeBridgeVersion,
              delays: timers.map((t) => t.ms), results })));
            """)
        #expect(result?["version"] == .integer(1))
        #expect(result?["delays"] == .array([.integer(10_000), .integer(10_000)]))
        #expect(
            result?["results"]
                == .array([.array([.string("notify"), .bool(false)]), .array([.string("signout"), .bool(false)])]))
    }

    @Test("O-PICK-1: the ServerPicker emit resolves the promise with the info only when it is an object, else null")
    func pickerAnswerMustBeAnObject() throws {
        let result = try Self.run(
            """
            const results = [];
            window.omnigentNative.getServerPicker().then((info) => results.push(info));
            window.omnigentNative.getServerPicker().then((info) => results.push(info));
            window.__omnigentNativeEmitServerPicker?.("picker-1", "not an object");
            window.__omnigentNativeEmitServerPicker?.("picker-2", { currentOrigin: "https://h.example.com" });
            setImmediate(() => console.log(JSON.stringify(results)));
            """)
        #expect(result == .array([.null, .object(["currentOrigin": .string("https://h.example.com")])]))
    }

    @Test("O-BRIDGE-4: nativeWebReady(v) and nativeHeartbeat(v) post the version they are given")
    func readyAndHeartbeatCarryTheirVersion() throws {
        let result = try Self.run(
            """
            window.omnigentNative.nativeWebReady(2); window.omnigentNative.nativeHeartbeat(7);
            window.omnigentNative.nativeWebReady(1);
            console.log(JSON.stringify(posted));
            """)
        #expect(
            result
                == .array([
                    .object(["method": "nativeWebReady", "version": 2]),
                    .object(["method": "nativeHeartbeat", "version": 7]),
                    .object(["method": "nativeWebReady", "version": 1]),
                ]))
    }

    @Test(
        "O-BRIDGE-6/8: setBadgeCount posts 0 for a non-number; setViewMode posts chat for another mode, hidden by default"
    )
    func methodsNormalizeAsTheRealAppDoes() throws {
        let result = try Self.run(
            """
            const n = window.omnigentNative;
            n.setBadgeCount("5"); n.setBadgeCount(NaN); n.setBadgeCount(3);
            n.setViewMode({ mode: "split" }); n.setViewMode({ mode: "terminal", terminalEnabled: 1, visible: true });
            n.setViewMode();
            const rejected = [];
            n.switchServer(42).catch((e) => rejected.push(e.message));
            setImmediate(() => console.log(JSON.stringify({ posted, rejected })));
            """)
        #expect(
            result?["posted"]
                == .array([
                    .object(["method": "setBadgeCount", "count": 0]),
                    .object(["method": "setBadgeCount", "count": 0]),
                    .object(["method": "setBadgeCount", "count": 3]),
                    .object([
                        "method": "setViewMode", "mode": "chat", "terminalEnabled": false,
                        "terminalStartingUp": false, "visible": false,
                    ]),
                    .object([
                        "method": "setViewMode", "mode": "terminal", "terminalEnabled": true,
                        "terminalStartingUp": false, "visible": true,
                    ]),
                    .object([
                        "method": "setViewMode", "mode": "chat", "terminalEnabled": false,
                        "terminalStartingUp": false, "visible": false,
                    ]),
                ]))
        #expect(result?["rejected"] == .array([.string("invalid server")]), "switchServer takes a string only")
    }

    @Test(
        "O-BRIDGE-9: onNativeInsets replays the last insets to a late subscriber; onViewModeChanged hears chat/terminal"
    )
    func subscriptionsAsTheRealAppHasThem() throws {
        let result = try Self.run(
            """
            const seen = [];
            \(OmnigentEmit.insets(bottomBar: 49, topBar: 20).script)
            const stop = window.omnigentNative.onNativeInsets((i) => seen.push(["insets", i.topBar, i.bottomBar]));
            \(OmnigentEmit.insets(bottomBar: 0, topBar: 10).script)
            stop();
            \(OmnigentEmit.insets(bottomBar: 5, topBar: 5).script)
            window.omnigentNative.onViewModeChanged((m) => seen.push(["mode", m]));
            \(OmnigentEmit.viewModeChanged(mode: "terminal").script)
            \(OmnigentEmit.viewModeChanged(mode: "split").script)
            window.omnigentNative.onOpenPath((p) => seen.push(["open", p]));
            \(OmnigentEmit.openPath("/c/x").script)
            \(OmnigentEmit.openPath("c/not-rooted").script)
            window.__omnigentNativeEmitOpenPath?.(42);
            console.log(JSON.stringify(seen));
            """)
        #expect(
            result
                == .array([
                    .array([.string("insets"), .integer(20), .integer(49)]),
                    .array([.string("insets"), .integer(10), .integer(0)]),
                    .array([.string("mode"), .string("terminal")]),
                    .array([.string("open"), .string("/c/x")]),
                ]))
    }

    @Test("O-BRIDGE-9: emits are called as ?.(…): on a page without the bootstrap they do nothing and throw nothing")
    func emitsOnAPageWithoutTheBridge() throws {
        let emits: [OmnigentEmit] = [
            .openPath("/c/x"), .notificationActivated(path: "/c/y"), .viewModeChanged(mode: "chat"),
            .insets(bottomBar: 1), .serverPicker(requestId: "picker-1", info: .null),
            .sidebarDrag(phase: "move", progress: 0.5), .keyboardViewport(width: 1, height: 1),
            .reply(requestId: "notify-1", value: .bool(true)),
        ]
        let output = try NodeRunner.run(
            "globalThis.window = globalThis;\n" + emits.map(\.script).joined(separator: "\n")
                + "\nconsole.log(JSON.stringify({ ok: true }));")
        #expect(JSONValue(data: Data(output.utf8)) == .object(["ok": true]))
        #expect(OmnigentBootstrap.emitNames.count == emits.count)
    }
}
