import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A stand-in runner bound to sessions of a real Omnigent 0.19.1 server (`Servers/omnigent/stub_runner.py`): it
/// dials the server's runner tunnel, binds the sessions with `PATCH /v1/sessions/{id} {"runner_id"}`, and accepts
/// every request the server frames down to it, so a message sent to those sessions gets the server's own reply for
/// a session with a runner. It runs in the Omnigent venv (`$COMPANION_VENVS/omnigent`) and ends when `stop()`
/// closes its standard input (or after 300 s).
public final class OmnigentStubRunner: Sendable {
    /// The runner's id, as the sessions now name it.
    public let runnerID: String
    private let process: ChildProcess.Running

    private init(runnerID: String, process: ChildProcess.Running) {
        self.runnerID = runnerID
        self.process = process
    }

    /// Starts the stub and returns once every session of `sessions` is bound to it on `server`. Bounded by the
    /// stub's own bind attempts (about 5 s a session) and its lifetime.
    public static func bind(_ server: URL, sessions: [String]) async throws -> OmnigentStubRunner {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let venvs =
            ProcessInfo.processInfo.environment["COMPANION_VENVS"]
            ?? root.appendingPathComponent(".venvs").path
        let python = venvs + "/omnigent/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ChildProcess.Failure(
                description: "no Omnigent venv at \(venvs)/omnigent: start the omnigent server first")
        }
        let runnerID = "stub-\(UUID().uuidString.prefix(8).lowercased())"
        let script = root.appendingPathComponent("Servers/omnigent/stub_runner.py").path
        let process = try ChildProcess.spawn(
            python, [script, server.absoluteString] + sessions + ["--runner-id", runnerID, "--lifetime", "300"],
            input: true, errors: .output)
        let runner = OmnigentStubRunner(runnerID: runnerID, process: process)
        let bound = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: process.readOutput(through: "bound \(runnerID)")) }.start()
        }
        guard bound else {
            let said = runner.stop()
            throw ChildProcess.Failure(description: "the stub runner did not bind \(sessions): \(said)")
        }
        return runner
    }

    /// Closes the stub's standard input, waits for it to end, and returns what it printed after binding: one
    /// `request <METHOD> <path>` line for each request the server sent it.
    @discardableResult
    public func stop() -> String {
        if let input = process.input { close(input) }
        var text = Data()
        if let output = process.output {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                text.append(contentsOf: chunk[0..<count])
            }
        }
        process.wait()
        return String(decoding: text, as: UTF8.self)
    }
}
