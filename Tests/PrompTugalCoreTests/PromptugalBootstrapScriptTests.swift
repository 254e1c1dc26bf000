import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// PrompTugal's injected scripts, run in a real JavaScript engine (Node.js) with a minimal browser global.
struct PromptugalBootstrapScriptTests {
    @Test("P-BRIDGE-9/10/12: the write script stores the document intact and dispatches nr:schedule")
    func scheduleWrite() throws {
        let nastyID = "a\"b'c\\d</script>\u{2028}\u{2029}e"
        let document = JSONValue.object([
            "v": .integer(1),
            "picks": .array([.object(["id": .string(nastyID), "at": .string("2026-11-08T02:45:00.000Z")])]),
        ])
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: ["pt"]) + """
                window.location = { origin: "https://promptugal.news" };
                let heard = null;
                window.addEventListener("nr:schedule", () => { heard = localStorage.getItem("nr.schedule.v1"); });
                \(ScheduleSync.writeScript(document: document, allowed: ["https://promptugal.news"]))
                console.log(JSON.stringify({ heard, events,
                  read: \(ScheduleSync.readScript(allowed: ["https://promptugal.news"]).dropLast()) }));
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
