import CompanionCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Headless Chromium driven through the DevTools protocol over a pipe (`--remote-debugging-pipe`: the browser
/// reads commands on descriptor 3 and writes answers and events on descriptor 4, each a JSON text ended by a
/// NUL byte). A pipe needs no WebSocket client (FoundationNetworking has none) and no port.
///
/// Rules: the browser runs in a process group of its own under `timeout -s KILL 240`, and `close()` kills the
/// whole group with SIGKILL; every command and every wait is bounded (15 s for a command, the caller's deadline
/// for a wait). A missing browser throws, so the test fails loudly.
public final class ChromiumDevTools: Sendable {
    /// Why a DevTools exchange failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, in a sentence.
        public let description: String

        /// Creates a failure with its sentence.
        public init(description: String) { self.description = description }
    }

    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var events: [JSONValue] = []
        var closed = false
    }

    private let state = Locked(State())
    /// Fires on every event the browser sends, and when it goes away: waits re-check their condition then.
    let arrivals = ChangeSignal()
    private let commandPipe: Int32
    private let group: pid_t
    private let profile: URL

    private init(commandPipe: Int32, eventPipe: Int32, group: pid_t, profile: URL) {
        self.commandPipe = commandPipe
        self.group = group
        self.profile = profile
        let reader = Thread { [self] in self.readLoop(eventPipe) }
        reader.start()
    }

    /// Starts a headless browser with a fresh profile and an empty first page.
    public static func launch() throws -> ChromiumDevTools {
        guard let browser = Chromium.executable() else { throw Failure(description: "chromium is not installed") }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("cdp-\(UUID().uuidString)")
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "could not make the DevTools pipes (errno \(errno))")
        }
        // The parent's ends must not leak into the browser; dup2 onto 3 and 4 clears the flag on the copies.
        for descriptor in toBrowser + fromBrowser { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let arguments = [
            "/usr/bin/timeout", "-s", "KILL", "240", browser.path, "--headless", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--window-size=1280,900", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "about:blank",
        ]
        // Nothing else of this process is inherited (see `ChildProcess`): the browser lives through many tests.
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                arguments[0], Array(arguments.dropFirst()), output: .discard, errors: .discard,
                descriptors: [3: toBrowser[0], 4: fromBrowser[1]]
            ).pid
        } catch {
            for descriptor in toBrowser + fromBrowser { closeDescriptor(descriptor) }
            throw Failure(description: "chromium could not be started: \(error)")
        }
        closeDescriptor(toBrowser[0])
        closeDescriptor(fromBrowser[1])
        return ChromiumDevTools(commandPipe: toBrowser[1], eventPipe: fromBrowser[0], group: pid, profile: profile)
    }

    /// Sends one command (to a page when `session` is given) and returns its `result`; a protocol error throws.
    @discardableResult
    public func send(_ method: String, _ params: JSONValue = .object([:]), session: String? = nil) async throws
        -> JSONValue
    {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [String: JSONValue] = ["id": .integer(Int64(id)), "method": .string(method), "params": params]
        if let session { message["sessionId"] = .string(session) }
        let bytes = Array(JSONValue.object(message).jsonString().utf8) + [0]
        let answer = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<JSONValue, any Error>) in
            let closed = state.withLock { state -> Bool in
                if state.closed { return true }
                state.pending[id] = continuation
                return false
            }
            if closed {
                continuation.resume(throwing: Failure(description: "the browser is closed"))
                return
            }
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(commandPipe, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                written += count
            }
            // The bound on the answer: a one-shot timer that fails the command if it is still pending then.
            _ = Expiry(after: .seconds(15)) { [self] in
                self.fail(id, Failure(description: "DevTools command \(method) got no answer within 15 s"))
            }
        }
        if let error = answer["error"] {
            throw Failure(description: "DevTools \(method) failed: \(error["message"]?.stringValue ?? "?")")
        }
        return answer["result"] ?? .null
    }

    /// Opens a new page (a tab) attached with a session of its own, with the Page and Runtime domains on.
    public func newPage() async throws -> DevToolsPage {
        let target = try await send("Target.createTarget", .object(["url": .string("about:blank")]))
        guard let targetID = target["targetId"]?.stringValue else { throw Failure(description: "no target id") }
        let attached = try await send(
            "Target.attachToTarget", .object(["targetId": .string(targetID), "flatten": .bool(true)]))
        guard let session = attached["sessionId"]?.stringValue else { throw Failure(description: "no session id") }
        let page = DevToolsPage(browser: self, session: session)
        try await page.send("Page.enable")
        try await page.send("Runtime.enable")
        // The page reports its own changes as DevTools events, so a wait re-checks on them instead of polling:
        // a binding (each call is a `Runtime.bindingCalled` event) that a DOM observer calls at most once a task.
        try await page.send("Runtime.addBinding", .object(["name": .string(DevToolsPage.changedBinding)]))
        try await page.addScriptOnNewDocument(DevToolsPage.changeReporter)
        return page
    }

    /// The events received so far for `session` (all of them when `nil`), oldest first.
    public func events(session: String? = nil) -> [JSONValue] {
        state.withLock { state in
            session.map { wanted in state.events.filter { $0["sessionId"]?.stringValue == wanted } } ?? state.events
        }
    }

    /// Kills the browser's process group and removes its profile.
    public func close() {
        let waiting = state.withLock { state -> [CheckedContinuation<JSONValue, any Error>] in
            state.closed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume(throwing: Failure(description: "the browser was closed")) }
        kill(-group, SIGKILL)
        var status: Int32 = 0
        waitpid(group, &status, 0)
        closeDescriptor(commandPipe)
        try? FileManager.default.removeItem(at: profile)
    }

    private func fail(_ id: Int, _ error: Failure) {
        let continuation = state.withLock { $0.pending.removeValue(forKey: id) }
        continuation?.resume(throwing: error)
    }

    private func readLoop(_ descriptor: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
            while let end = buffer.firstIndex(of: 0) {
                let message = JSONValue(data: Data(buffer[0..<end]))
                buffer.removeSubrange(0...end)
                guard let message else { continue }
                if let id = message["id"]?.intValue {
                    let continuation = state.withLock { $0.pending.removeValue(forKey: Int(id)) }
                    continuation?.resume(returning: message)
                } else {
                    state.withLock { $0.events.append(message) }
                    arrivals.changed()
                }
            }
        }
        closeDescriptor(descriptor)
        let waiting = state.withLock { state -> [CheckedContinuation<JSONValue, any Error>] in
            state.closed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume(throwing: Failure(description: "the browser went away")) }
        arrivals.changed()
    }
}

/// One page of a `ChromiumDevTools` browser.
public struct DevToolsPage: Sendable {
    /// The browser the page belongs to.
    public let browser: ChromiumDevTools
    /// The DevTools session of the page.
    public let session: String

    /// Sends a command to this page.
    @discardableResult
    public func send(_ method: String, _ params: JSONValue = .object([:])) async throws -> JSONValue {
        try await browser.send(method, params, session: session)
    }

    /// Runs `source` at document start in every later document of this page, before the page's own scripts:
    /// in the page's world, or in the isolated world `worldName` (a content world of its own, like WebKit's).
    public func addScriptOnNewDocument(_ source: String, worldName: String? = nil) async throws {
        var params: [String: JSONValue] = ["source": .string(source)]
        if let worldName { params["worldName"] = .string(worldName) }
        try await send("Page.addScriptToEvaluateOnNewDocument", .object(params))
    }

    /// The execution context of the isolated world `worldName` in the current document (the newest one).
    public func contextID(ofWorld worldName: String) throws -> Int64 {
        let contexts = browser.events(session: session).filter {
            $0["method"]?.stringValue == "Runtime.executionContextCreated"
                && $0["params"]?["context"]?["name"]?.stringValue == worldName
        }
        guard let id = contexts.last?["params"]?["context"]?["id"]?.intValue else {
            throw ChromiumDevTools.Failure(description: "no execution context for world \(worldName)")
        }
        return id
    }

    /// Navigates to `url` and waits (up to `seconds`) until the document has loaded.
    public func navigate(_ url: String, seconds: Double = 30) async throws {
        let result = try await send("Page.navigate", .object(["url": .string(url)]))
        if let error = result["errorText"]?.stringValue {
            throw ChromiumDevTools.Failure(description: "navigation to \(url) failed: \(error)")
        }
        try await waitUntil("document.readyState === 'complete'", seconds: seconds)
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value; a thrown error throws.
    /// `contextID` picks another world of the page (see `contextID(ofWorld:)`).
    public func evaluate(_ expression: String, contextID: Int64? = nil) async throws -> JSONValue {
        var params: [String: JSONValue] = [
            "expression": .string(expression), "awaitPromise": .bool(true), "returnByValue": .bool(true),
        ]
        if let contextID { params["contextId"] = .integer(contextID) }
        let result = try await send("Runtime.evaluate", .object(params))
        if let details = result["exceptionDetails"] {
            let text =
                details["exception"]?["description"]?.stringValue ?? details["text"]?.stringValue ?? "exception"
            throw ChromiumDevTools.Failure(description: "the page threw: \(text)")
        }
        return result["result"]?["value"] ?? .null
    }

    /// The binding a page calls when it changed (see `changeReporter`); `reportChange()` is the call.
    public static let changedBinding = "__devtoolsChanged"

    /// JavaScript that reports a change of the page: call it after changing state that a wait may be checking.
    public static let reportChange = "if (typeof \(changedBinding) === 'function') \(changedBinding)('');"

    /// Installed at document start in every page: reports DOM changes, the load and in-document navigations
    /// through the binding, at most once per task.
    static let changeReporter = """
        (() => {
          let queued = false;
          const report = () => {
            if (queued) return;
            queued = true;
            setTimeout(() => { queued = false; \(reportChange) }, 0);
          };
          new MutationObserver(report).observe(document, {
            subtree: true, childList: true, attributes: true, characterData: true });
          for (const name of ['readystatechange', 'load', 'popstate', 'hashchange']) {
            (name === 'readystatechange' ? document : window).addEventListener(name, report);
          }
        })();
        """

    /// Waits until `expression` is `true`, for at most `seconds`; then throws. Event-driven: the expression is
    /// checked now and again after each DevTools event (the page's reported changes, loads, console output, new
    /// execution contexts), never on a timer.
    public func waitUntil(_ expression: String, seconds: Double = 20) async throws {
        try await waitUntil(seconds: seconds, "`\(expression)`") { (try? await evaluate(expression)) == .bool(true) }
    }

    /// Waits until `condition` holds, checking it now and after each DevTools event, for at most `seconds`;
    /// then throws a failure naming `what`.
    public func waitUntil(seconds: Double, _ what: String, _ condition: () async throws -> Bool) async throws {
        let held = try await browser.arrivals.wait(
            upTo: .milliseconds(Int(seconds * 1_000)), until: condition)
        guard held else { throw ChromiumDevTools.Failure(description: "\(what) did not hold within \(seconds) s") }
    }

    /// The console messages and uncaught exceptions the page reported so far, as text.
    public var consoleErrors: [String] {
        browser.events(session: session).compactMap { event -> String? in
            switch event["method"]?.stringValue {
            case "Runtime.exceptionThrown":
                return event["params"]?["exceptionDetails"]?["exception"]?["description"]?.stringValue
                    ?? event["params"]?["exceptionDetails"]?["text"]?.stringValue
            case "Runtime.consoleAPICalled" where event["params"]?["type"]?.stringValue == "error":
                return event["params"]?["args"]?[0]?["value"]?.stringValue ?? "console.error"
            default:
                return nil
            }
        }
    }
}

/// `close(2)`, named apart from the `close()` methods here (Glibc's on Linux, Darwin's in the macOS job's build).
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}
