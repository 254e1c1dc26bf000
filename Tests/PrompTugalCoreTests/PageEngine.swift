import CompanionCore
import CompanionTestSupport
import Foundation
import Synchronization
import Testing

@testable import PrompTugalCore

/// A web page simulated in Node.js (the real JavaScript engine on Linux): a `window` with events and a
/// `localStorage` that persists between scripts, and the website's own listener, which only reads the key when
/// `nr:schedule` fires. A missing `node` fails loudly.
final class NodePage: PageScripting {
    struct State: Sendable {
        var storage: [String: String] = [:]
        var seenByPage: [String?] = []
        var scripts = 0
    }

    let state = Mutex(State())

    init(stored: String? = nil) {
        if let stored { state.withLock { $0.storage["nr.schedule.v1"] = stored } }
    }

    var stored: String? { state.withLock { $0.storage["nr.schedule.v1"] } }
    var seenByPage: [String?] { state.withLock { $0.seenByPage } }
    var scriptCount: Int { state.withLock { $0.scripts } }

    func evaluate(_ script: String) async throws -> String? {
        let storage = JSONValue.object(state.withLock { $0.storage }.mapValues(JSONValue.string)).jsonString()
        let program = """
            const storage = new Map(Object.entries(\(storage)));
            globalThis.window = globalThis;
            const dom = new EventTarget();
            window.addEventListener = dom.addEventListener.bind(dom);
            window.dispatchEvent = dom.dispatchEvent.bind(dom);
            window.localStorage = {
              getItem: (k) => storage.has(k) ? storage.get(k) : null,
              setItem: (k, v) => storage.set(k, String(v)),
            };
            const seen = [];
            window.addEventListener("nr:schedule", () => seen.push(localStorage.getItem("nr.schedule.v1")));
            const result = (0, eval)(\(JavaScriptLiteralText.quote(script)));
            console.log(JSON.stringify({ result: result === undefined ? null : result,
              storage: Object.fromEntries(storage), seen }));
            """
        let output = try NodeRunner.output(program)
        guard let value = JSONValue(data: Data(output.utf8)) else {
            throw StandIn.Failure(description: "node printed no JSON: \(output)")
        }
        state.withLock { state in
            state.scripts += 1
            state.storage = (value["storage"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
            state.seenByPage += (value["seen"]?.arrayValue ?? []).map(\.stringValue)
        }
        return value["result"]?.stringValue
    }
}

/// A JSON string literal, which is also a JavaScript string literal once U+2028/U+2029 are escaped.
enum JavaScriptLiteralText {
    static func quote(_ text: String) -> String {
        JSONValue.string(text).jsonString().replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}
