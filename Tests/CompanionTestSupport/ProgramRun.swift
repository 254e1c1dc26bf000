import Foundation

/// Runs a built program of this package (such as `companion`) as a child process, with a bounded wait.
public enum ProgramRun {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        /// The exit code (or the signal number when killed).
        public let status: Int32
        /// Standard output as text.
        public let output: String
        /// Standard error as text.
        public let errors: String
    }

    /// Why a program could not be run.
    public struct Failure: Error, CustomStringConvertible {
        /// A sentence saying what went wrong.
        public let description: String
    }

    /// The built executable `name`, next to the test bundle (`.build/<triple>/debug/`).
    public static func executable(_ name: String) throws -> URL {
        var folder = Bundle.main.bundleURL
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        for candidate in [folder, folder.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw Failure(
            description: "\(name) is not built next to the tests in \(folder.path): run `swift build --build-tests`.")
    }

    /// Runs `program` with `arguments` and exactly `environment`, feeding `input` to standard input, and
    /// kills it after `limit` (see `ChildProcess` for why no Foundation `Process`). The wait is on a thread of
    /// its own, never one of the shared pool the other tests run on.
    public static func run(
        _ program: URL, _ arguments: [String], environment: [String: String], input: String = "",
        limit: Duration = .seconds(60)
    ) async throws -> Result {
        var environment = environment
        // Under scripts/tsan the program is a ThreadSanitizer build too: it gets the same options, so its reports
        // go to the same folder and are counted, and the suppressions proven in scripts/tsan.supp apply to it.
        if environment["TSAN_OPTIONS"] == nil, let options = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] {
            environment["TSAN_OPTIONS"] = options
        }
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(
                program.path, arguments, environment: environment, input: Data(input.utf8), limit: limit)
        } catch let failure as ChildProcess.Failure {
            throw Failure(description: failure.description)
        }
        return Result(status: result.status.code, output: result.outputText, errors: result.errorText)
    }
}
