import Foundation
import Testing

/// Runs JavaScript in Node.js, the real engine the injected scripts are checked against on Linux.
/// A missing `node` fails the test loudly (`scripts/bootstrap` installs it); it never skips.
public enum NodeRunner {
    /// Runs `program` with `node -e` and returns its standard output, trimmed; a missing `node` or a non-zero
    /// exit fails the test (and gives "").
    public static func run(_ program: String) throws -> String {
        do {
            return try output(program)
        } catch let failure as ChildProcess.Failure {
            Issue.record("\(failure.description)")
            return ""
        }
    }

    /// Runs `program` with `node -e` and returns its standard output, trimmed; a missing `node` or a non-zero
    /// exit throws, with node's own error output.
    public static func output(_ program: String) throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/node" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            throw ChildProcess.Failure(
                description: "node (Node.js) is not on the PATH; run scripts/bootstrap to install it")
        }
        let result = try ChildProcess.runBlocking(path, ["-e", program])
        guard result.status == .exited(0) else {
            throw ChildProcess.Failure(description: "node failed: \(result.errorText)")
        }
        return result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A minimal browser-like global for the scripts: window, events, a message handler for each of
    /// `handlers` recording into `posted`, localStorage, and timers that record their delay instead of waiting.
    public static func prelude(handlers: [String]) -> String {
        let recording = handlers.map { "\($0): { postMessage: (m) => posted.push(m) }" }.joined(separator: ", ")
        return """
            const posted = []; const events = []; const timers = [];
            const storage = new Map();
            globalThis.window = globalThis;
            window.webkit = { messageHandlers: { \(recording) } };
            class Event { constructor(type) { this.type = type; } }
            class CustomEvent extends Event { constructor(type, init) { super(type); this.detail = init && init.detail; } }
            globalThis.Event = Event; globalThis.CustomEvent = CustomEvent;
            const listeners = {};
            window.addEventListener = (t, f) => { (listeners[t] = listeners[t] || []).push(f); };
            window.dispatchEvent = (e) => { events.push(e.type); (listeners[e.type] || []).forEach((f) => f(e)); };
            window.localStorage = { getItem: (k) => storage.has(k) ? storage.get(k) : null,
                                    setItem: (k, v) => storage.set(k, String(v)) };
            globalThis.setTimeout = (f, ms) => { timers.push({ f, ms }); return timers.length; };
            globalThis.clearTimeout = (id) => { if (timers[id - 1]) timers[id - 1].cleared = true; };

            """
    }
}
