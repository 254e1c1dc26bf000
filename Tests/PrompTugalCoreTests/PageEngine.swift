import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// A web page simulated in Node.js (the real JavaScript engine on Linux): a `window` with events, a
/// `location.origin`, and a `localStorage` that persists between scripts (one per origin, as a browser keeps it),
/// and the website's own listener, which only reads the key when `nr:schedule` fires. A script that throws fails
/// its evaluation, as `evaluateJavaScript` does. A missing `node` fails loudly.
final class NodePage: PageScripting {
    struct State: Sendable {
        var origin = "https://promptugal.news"
        var storages: [String: [String: String]] = [:]
        var seenByPage: [String?] = []
        var scripts = 0
        var storage: [String: String] {
            get { storages[origin] ?? [:] }
            set { storages[origin] = newValue }
        }
    }

    /// A script that threw.
    struct ScriptError: Error, CustomStringConvertible {
        let description: String
    }

    let state = Locked(State())

    init(stored: String? = nil) {
        if let stored { state.withLock { $0.storage["nr.schedule.v1"] = stored } }
    }

    /// The page navigates to another origin (its own storage there).
    func navigate(to origin: String, storing stored: String? = nil) {
        state.withLock { state in
            state.origin = origin
            if let stored { state.storage["nr.schedule.v1"] = stored }
        }
    }

    /// What the page of `origin` stores under the schedule key.
    func stored(at origin: String) -> String? { state.withLock { $0.storages[origin]?["nr.schedule.v1"] } }

    var stored: String? { state.withLock { $0.storage["nr.schedule.v1"] } }
    var seenByPage: [String?] { state.withLock { $0.seenByPage } }
    var scriptCount: Int { state.withLock { $0.scripts } }

    func evaluate(_ script: String) async throws -> String? {
        let (origin, stored) = state.withLock { ($0.origin, $0.storage) }
        let storage = JSONValue.object(stored.mapValues(JSONValue.string)).jsonString()
        let program = """
            const storage = new Map(Object.entries(\(storage)));
            globalThis.window = globalThis;
            window.location = { origin: \(JavaScriptLiteralText.quote(origin)) };
            const dom = new EventTarget();
            window.addEventListener = dom.addEventListener.bind(dom);
            window.dispatchEvent = dom.dispatchEvent.bind(dom);
            window.localStorage = {
              getItem: (k) => storage.has(k) ? storage.get(k) : null,
              setItem: (k, v) => storage.set(k, String(v)),
            };
            const seen = [];
            window.addEventListener("nr:schedule", () => seen.push(localStorage.getItem("nr.schedule.v1")));
            let result = null, thrown = null;
            try { result = (0, eval)(\(JavaScriptLiteralText.quote(script))); } catch (e) { thrown = String(e && e.message); }
            console.log(JSON.stringify({ result: result === undefined ? null : result, thrown,
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
        if let thrown = value["thrown"]?.stringValue { throw ScriptError(description: thrown) }
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
