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
/// `BridgeScriptChromiumTests` and against the real web UI in `WebUIChromiumTests`. Only this case stays in
/// Node, because Chromium cannot show it: the picker timer's exact 3 000 ms delay and that answering a
/// request clears its timer, read from a recording `setTimeout` (in a browser a cleared timer leaves no trace).
struct OmnigentBootstrapScriptTests {
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
