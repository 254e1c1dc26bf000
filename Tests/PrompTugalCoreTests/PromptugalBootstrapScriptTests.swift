import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// PrompTugal's injected scripts, run in a real JavaScript engine (Node.js) with a minimal browser global.
struct PromptugalBootstrapScriptTests {
    @Test("P-BRIDGE-9/10/12: the sync script stores the document intact and dispatches nr:schedule")
    func scheduleWrite() throws {
        let nastyID = "a\"b'c\\d</script>\u{2028}\u{2029}e"
        let at = Date(timeIntervalSince1970: 1_794_105_900)
        let document = ScheduleDocument(picks: [SchedulePick(id: nastyID, at: at)])
        let script = ScheduleSync.syncScript(picks: document, removals: [:], allowed: ["https://promptugal.news"])
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: ["pt"]) + """
                window.location = { origin: "https://promptugal.news" };
                let heard = null;
                window.addEventListener("nr:schedule", () => { heard = localStorage.getItem("nr.schedule.v1"); });
                const result = JSON.parse(\(script.dropLast()));
                console.log(JSON.stringify({ heard, events, result, read: localStorage.getItem("nr.schedule.v1") }));
                """)
        let result = JSONValue(data: Data(output.utf8))
        #expect(result?["events"] == .array([.string("nr:schedule")]))
        #expect(result?["result"]?["stored"] == .null && result?["result"]?["written"] == true)
        let stored = result?["read"]?.stringValue
        #expect(result?["heard"]?.stringValue == stored)
        #expect(stored == document.jsonText)
        guard case .document(let read) = ScheduleSync.interpret(stored) else {
            Issue.record("the stored document did not read back")
            return
        }
        #expect(read.semanticallyEquals(document.json))
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
