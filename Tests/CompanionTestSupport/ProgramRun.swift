import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// kills it after `limit`.
    public static func run(
        _ program: URL, _ arguments: [String], environment: [String: String], input: String = "",
        limit: Duration = .seconds(60)
    ) throws -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        var environment = environment
        // Under scripts/tsan the program is a ThreadSanitizer build too: it gets the same options, so its reports
        // go to the same folder and are counted, and the suppressions proven in scripts/tsan.supp apply to it.
        if environment["TSAN_OPTIONS"] == nil, let options = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] {
            environment["TSAN_OPTIONS"] = options
        }
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Read both pipes while the program runs, so a full pipe never blocks it.
        let collected = OutputBox()
        let readers = DispatchGroup()
        for (pipe, isOutput) in [(stdout, true), (stderr, false)] {
            DispatchQueue.global().async(group: readers) {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOutput: isOutput)
            }
        }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        if finished.wait(timeout: .now() + seconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            throw Failure(
                description:
                    "\(program.lastPathComponent) \(arguments.joined(separator: " ")) ran longer than \(limit).")
        }
        readers.wait()
        let (output, errors) = collected.value
        return Result(
            status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self))
    }

    /// The two collected outputs. `@unchecked Sendable`: both fields are read and written only under `lock`.
    private final class OutputBox: @unchecked Sendable {
        private let lock = NSLock()
        private var output = Data()
        private var errors = Data()

        func set(_ data: Data, isOutput: Bool) {
            lock.withLock {
                if isOutput { output = data } else { errors = data }
            }
        }

        var value: (Data, Data) { lock.withLock { (output, errors) } }
    }
}
