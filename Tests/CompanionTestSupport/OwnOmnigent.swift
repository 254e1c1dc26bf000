import CompanionCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An Omnigent server this test owns: started with `Servers/omnigent/start.sh` in a temporary
/// state folder, killed (SIGKILL to its process group) to simulate the server going away, and
/// restarted on the same data. The restart listens on a new port: the URL changes, the data stays.
public final class OwnOmnigent: Sendable {
    /// The state folder (database, logs, pid and process group files).
    public let stateDirectory: URL
    /// The read end of the liveness pipe of the running server (see `start()`), or nil before a start.
    private let liveness = Locked<Int32?>(nil)

    /// Prepares a fresh state folder.
    public init() throws {
        stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "own-omnigent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
    }

    /// Starts the server (bounded by the script's own 90 s health wait, and 150 s here) and returns its URL.
    public func start() async throws -> URL {
        // The script runs through `ChildProcess` (nothing of this process inherited but the liveness pipe) and
        // its exit is read with waitpid. Output goes to /dev/null so no pipe is held open by the server, which
        // inherits the script's descriptors.
        let script = Self.packageRoot.appendingPathComponent("Servers/omnigent/start.sh").path
        var environment = ProcessInfo.processInfo.environment
        environment["COMPANION_VENVS"] =
            environment["COMPANION_VENVS"] ?? Self.packageRoot.appendingPathComponent(".venvs").path
        // The liveness pipe: its write end is the script's descriptor 7, inherited by the server it starts (it
        // only writes its pid files and logs elsewhere), so the read end sees end-of-file when the server is gone
        // and `kill()` waits for that event.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw OwnServerError(description: "no liveness pipe (errno \(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[1]) }
        let previous = liveness.withLock { held in
            defer { held = ends[0] }
            return held
        }
        if let previous { close(previous) }
        let child: ChildProcess.Running
        do {
            child = try ChildProcess.spawn(
                script, [stateDirectory.path, "header"], environment: environment, output: .discard,
                errors: .discard, descriptors: [7: ends[1]], ownGroup: false)
        } catch {
            throw OwnServerError(description: "start.sh could not be run: \(error)")
        }
        // The script bounds its own waits (install lock, 90 s health check), so a blocking wait on a
        // thread of its own is bounded too; the whole run is also under `timeout -s KILL`.
        let status = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: child.wait()) }.start()
        }
        let text = (try? String(contentsOf: stateDirectory.appendingPathComponent("url"), encoding: .utf8)) ?? ""
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == .exited(0), line.hasPrefix("http://127.0.0.1:"), let url = URL(string: line) else {
            throw OwnServerError(description: "Servers/omnigent/start.sh failed (\(status))")
        }
        return url
    }

    /// Kills the server's whole process group with SIGKILL (no clean shutdown).
    public func kill() {
        guard let text = try? String(contentsOf: stateDirectory.appendingPathComponent("pgid"), encoding: .utf8),
            let group = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), group > 1
        else { return }
        _ = Foundation.kill(-group, SIGKILL)
        // Wait for the server to be gone: the liveness pipe's end-of-file (every holder of its write end has
        // exited), bounded at 2 s.
        if let end = liveness.withLock({ held in
            defer { held = nil }
            return held
        }) {
            var descriptor = pollfd(fd: end, events: Int16(POLLIN), revents: 0)
            var scratch = [UInt8](repeating: 0, count: 64)
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline {
                let remaining = max(1, Int32((deadline - ContinuousClock.now) / .milliseconds(1)))
                guard poll(&descriptor, 1, remaining) > 0 else { break }
                if scratch.withUnsafeMutableBytes({ read(end, $0.baseAddress, $0.count) }) <= 0 { break }
            }
            close(end)
        }
        try? FileManager.default.removeItem(at: stateDirectory.appendingPathComponent("pid"))
    }

    /// The repository root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    deinit {
        kill()
        try? FileManager.default.removeItem(at: stateDirectory)
    }
}

/// Why a server a test owns could not be started.
public struct OwnServerError: Error, CustomStringConvertible {
    /// A sentence saying what failed.
    public let description: String

    /// Creates the failure.
    public init(description: String) { self.description = description }
}
