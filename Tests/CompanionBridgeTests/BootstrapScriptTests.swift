import CompanionCore
import Foundation
import Testing

@testable import CompanionBridge

/// The injected scripts, run in a real JavaScript engine (Node.js) with a minimal browser global.
struct BootstrapScriptTests {
    @Test("O-BRIDGE-1/2/9: omnigentNative is frozen and complete before the ready event; emits are non-writable")
    func omnigentBootstrap() throws {
        let output = try NodeRunner.run(
            NodeRunner.prelude + """
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
            NodeRunner.prelude + OmnigentBootstrap.script + """
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

    @Test("P-BRIDGE-4: window.ptApp = { version, ops } lists exactly the five ops; call posts {id, op, args}")
    func ptAppBootstrap() throws {
        let script = PromptugalBridge.bootstrapScript(version: "1.2 \"beta\"</script>")
        let reply = PromptugalBridge.replyScript(BridgeReply(id: .string("pt-1"), outcome: .success(.integer(5))))
        let output = try NodeRunner.run(
            NodeRunner.prelude + script + """
                const out = { version: window.ptApp.version, ops: window.ptApp.ops,
                  frozen: Object.isFrozen(window.ptApp) };
                window.ptApp.call("schedule.get").then((r) => { out.result = r; });
                \(reply)
                setImmediate(() => { out.posted = posted; console.log(JSON.stringify(out)); });
                """)
        let result = JSONValue(data: Data(output.utf8))
        #expect(result?["version"] == .string("1.2 \"beta\"</script>"))
        #expect(result?["ops"] == .array(PromptugalBridge.phaseOneOps.map(JSONValue.string)))
        #expect(result?["frozen"] == .bool(true))
        #expect(result?["result"] == .integer(5))
        #expect(
            result?["posted"]
                == .array([
                    .object([
                        "id": .string("pt-1"), "op": .string("schedule.get"),
                        "args": .null,
                    ])
                ]))
        #expect(PromptugalBridge.handlerName == "pt")
        #expect(PromptugalBridge.contentWorldName != "page")
    }

    @Test("P-BRIDGE-9/10/12: the write script stores the document intact and dispatches nr:schedule")
    func scheduleWrite() throws {
        let nastyID = "a\"b'c\\d</script>\u{2028}\u{2029}e"
        let document = JSONValue.object([
            "v": .integer(1),
            "picks": .array([.object(["id": .string(nastyID), "at": .string("2026-11-08T02:45:00.000Z")])]),
        ])
        let output = try NodeRunner.run(
            NodeRunner.prelude + """
                let heard = null;
                window.addEventListener("nr:schedule", () => { heard = localStorage.getItem("nr.schedule.v1"); });
                \(ScheduleSync.writeScript(document: document))
                console.log(JSON.stringify({ heard, events, read: \(ScheduleSync.readScript.dropLast()) }));
                """)
        let result = JSONValue(data: Data(output.utf8))
        #expect(result?["events"] == .array([.string("nr:schedule")]))
        let stored = result?["read"]?.stringValue
        #expect(result?["heard"]?.stringValue == stored)
        guard case .document(let read) = ScheduleSync.interpret(stored) else {
            Issue.record("the stored document did not read back")
            return
        }
        #expect(read.semanticallyEquals(document))
        #expect(read["picks"]?[0]?["id"] == .string(nastyID))
    }

    @Test(
        "P-BRIDGE-8, P-OPEN-9: null reads as empty; malformed values are reported, not merged",
        arguments: [
            ("null-absent", nil, true), ("null-json", "null", true), ("garbage", "{not json", false),
            ("wrong-version", #"{"v":2,"picks":[]}"#, false), ("picks-not-array", #"{"v":1,"picks":{}}"#, false),
            ("array", "[]", false), ("good", #"{"v":1,"picks":[{"id":"x","at":"2026-11-08T02:45:00.000Z"}]}"#, true),
        ] as [(String, String?, Bool)])
    func scheduleRead(_ name: String, _ stored: String?, _ accepted: Bool) {
        switch ScheduleSync.interpret(stored) {
        case .document(let document):
            #expect(accepted, "\(name) should be refused")
            #expect(document["v"] == .integer(1))
        case .malformed(let reason):
            #expect(!accepted, "\(name) should be accepted: \(reason)")
        }
    }
}
