import Foundation
import Testing

/// An Omnigent server this test owns: started with `Servers/omnigent/start.sh` in a temporary
/// state folder, killed (SIGKILL to its process group) to simulate the server going away, and
/// restarted on the same data. The restart listens on a new port: the URL changes, the data stays.
final class OwnOmnigent: Sendable {
    let stateDirectory: URL

    init() throws {
        stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "own-omnigent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
    }

    /// Starts the server (bounded by the script's own 90 s health wait) and returns its URL.
    func start() throws -> URL {
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("Servers/omnigent/start.sh")
        process.arguments = [stateDirectory.path, "header"]
        var environment = ProcessInfo.processInfo.environment
        environment["COMPANION_VENVS"] =
            environment["COMPANION_VENVS"] ?? packageRoot.appendingPathComponent(".venvs").path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard process.terminationStatus == 0, let last = lines.last, let url = URL(string: String(last)),
            last.hasPrefix("http://127.0.0.1:")
        else {
            throw OwnServerError(description: "Servers/omnigent/start.sh failed (status \(process.terminationStatus))")
        }
        return url
    }

    /// Kills the server's whole process group with SIGKILL (no clean shutdown).
    func kill() {
        guard let text = try? String(contentsOf: stateDirectory.appendingPathComponent("pgid"), encoding: .utf8),
            let group = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), group > 1
        else { return }
        _ = Foundation.kill(-group, SIGKILL)
        for _ in 0..<100 where Foundation.kill(-group, 0) == 0 { usleep(20_000) }
        try? FileManager.default.removeItem(at: stateDirectory.appendingPathComponent("pid"))
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: stateDirectory)
    }
}

struct OwnServerError: Error, CustomStringConvertible {
    let description: String
}
