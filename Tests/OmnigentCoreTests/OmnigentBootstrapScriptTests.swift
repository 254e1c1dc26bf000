import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Omnigent's injected scripts, run in a real JavaScript engine (Node.js) with a minimal browser global.
struct OmnigentBootstrapScriptTests {
    @Test("O-BRIDGE-1/2/9: omnigentNative is frozen and complete before the ready event; emits are non-writable")
    func omnigentBootstrap() throws {
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: ["omnigentNative"]) + """
                let seen = null;
                window.addEventListener("omnigent-native-bridge-ready", () => {
                  seen = { kind: window.omnigentNative.kind, version: window.omnigentNative.nativeBridgeVersion };
                });
                \(OmnigentBootstrap.script)
                window.omnigentNative.kind = "android";
                window.omnigentNative = {};
                window.__omnigentNativeEmitOpenPath = () => {};
                window.omnigentNative.setBadgeCount(4);
                window.omnigentNative.nativeWebReady();
                window.omnigentNative.notify({ title: "t", navigatePath: "/c/x" });
                const emits = ["NotificationActivated", "OpenPath", "ViewModeChanged", "Insets", "ServerPicker",
                  "SidebarDrag"].filter((n) => typeof window["__omnigentNativeEmit" + n] === "function" &&
                  !Object.getOwnPropertyDescriptor(window, "__omnigentNativeEmit" + n).writable);
                console.log(JSON.stringify({ seen, frozen: Object.isFrozen(window.omnigentNative),
                  kind: window.omnigentNative.kind, events, posted, emits }));
                """)
        let result = JSONValue(data: Data(output.utf8))
        #expect(result?["seen"] == .object(["kind": .string("ios"), "version": .integer(1)]))
        #expect(result?["frozen"] == .bool(true))
        #expect(result?["kind"] == .string("ios"))
        #expect(result?["events"] == .array([.string(OmnigentBootstrap.readyEvent)]))
        #expect(result?["emits"]?.arrayValue?.count == 6)
        let posted = result?["posted"]?.arrayValue ?? []
        #expect(posted.count == 3)
        // What the script posts is exactly what the app-side bridge decodes.
        let request = try BridgeEnvelopeCodec.decode(posted[0], dialect: .method)
        #expect(request.op == "setBadgeCount")
        #expect(request.args["count"] == .integer(4))
        #expect(posted[1] == .object(["method": .string("nativeWebReady"), "version": .integer(1)]))
    }

    @Test("O-PICK-1/2: getServerPicker resolves with the app's answer, and times out after 3 s without one")
    func pickerPromise() throws {
        let answer = OmnigentEmit.serverPicker(
            requestId: "picker-1", info: .object(["currentOrigin": .string("https://h.example.com")])
        ).script
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: ["omnigentNative"]) + OmnigentBootstrap.script + """
                const results = [];
                window.omnigentNative.getServerPicker().then((info) => results.push(["ok", info.currentOrigin]));
                window.omnigentNative.getServerPicker().catch((e) => results.push(["timeout", e.message]));
                \(answer)
                timers[1].f();
                setImmediate(() => console.log(JSON.stringify({ results, posted,
                  delays: timers.map((t) => t.ms), cleared: !!timers[0].cleared })));
                """)
        let result = JSONValue(data: Data(output.utf8))
        #expect(result?["delays"] == .array([.integer(3_000), .integer(3_000)]))
        #expect(result?["cleared"] == .bool(true))
        #expect(
            result?["results"]
                == .array([
                    .array([.string("ok"), .string("https://h.example.com")]),
                    .array([.string("timeout"), .string("getServerPicker timed out")]),
                ]))
        #expect(result?["posted"]?[0]?["requestId"] == .string("picker-1"))
    }
}
