import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every child process the tests start (the built `companion`, servers, `sgit`, Node.js, Chromium, curl, Python):
/// `posix_spawn` with nothing inherited but the descriptors asked for, waited on without Foundation's `Process`.
///
/// Why not `Process`: on Linux it spawns with `posix_spawn` and closes the parent's descriptors in the child
/// one by one, from a list made before the spawn. Tests start children from many threads at once, so a
/// descriptor opened by one test in that window (a `Pipe`, or the socket `Process` watches for its child's
/// exit) leaks into another test's child. When that child lives long (a server a test owns, a browser), the
/// first child's exit goes unseen and its pipes never end until the long one dies: a `companion` run that
/// finished in milliseconds "ran longer than 60 s". Here every pipe is close-on-exec, the child closes all
/// descriptors from 3 up (`posix_spawn_file_actions_addclosefrom_np`) before it runs, and the exit is
/// read with `waitpid` on the caller's thread, never through a shared manager thread or queue.
public enum ChildProcess {
    /// Where a child's standard output or error goes.
    public enum Sink: Sendable {
        /// Into a pipe the caller reads (`run` collects it).
        case capture
        /// Into `/dev/null`.
        case discard
        /// Standard error only: into the same pipe as standard output.
        case output
    }

    /// How a child ended.
    public enum Status: Sendable, Equatable {
        /// It exited with this code.
        case exited(Int32)
        /// A signal (this number) ended it.
        case signaled(Int32)

        /// The exit code, or the signal number.
        public var code: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            }
        }

        init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
        }
    }

    /// What a finished child printed and how it ended.
    public struct Result: Sendable {
        /// How it ended.
        public let status: Status
        /// Standard output (with standard error too when that was sent to `.output`).
        public let output: Data
        /// Standard error, when captured on its own.
        public let errors: Data

        /// Standard output as text.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        /// Standard error as text.
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Why a child could not be started, or did not finish in time.
    public struct Failure: Error, CustomStringConvertible {
        /// A sentence saying what went wrong.
        public let description: String

        /// Creates the failure with its sentence.
        public init(description: String) { self.description = description }
    }

    /// A started child. Reading its output and waiting for it are the caller's; `wait()` must be called once.
    public final class Running: Sendable {
        /// The child's process id (also its process group, which `kill` signals).
        public let pid: pid_t
        /// The read end of its standard output pipe, when captured (close-on-exec).
        public let output: Int32?
        /// The read end of its standard error pipe, when captured on its own.
        public let errors: Int32?
        /// The write end of its standard input pipe, when input was asked for; the caller writes and closes it.
        public let input: Int32?

        init(pid: pid_t, output: Int32?, errors: Int32?, input: Int32?) {
            self.pid = pid
            self.output = output
            self.errors = errors
            self.input = input
        }

        /// Sends `signal` to the child's whole process group.
        public func kill(_ signal: Int32 = SIGKILL) {
            #if canImport(Glibc)
                _ = Glibc.kill(-pid, signal)
            #else
                _ = Darwin.kill(-pid, signal)
            #endif
        }

        /// Waits for the child to end and closes the read ends of its output pipes.
        @discardableResult
        public func wait() -> Status {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            for descriptor in [output, errors].compactMap({ $0 }) { close(descriptor) }
            return Status(waitStatus: status)
        }

        /// Reads standard output until a line equal to `line` has been read, or the output ends (false).
        public func readOutput(through line: String) -> Bool {
            guard let output else { return false }
            var buffer = Data()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                buffer.append(contentsOf: chunk[0..<count])
                let lines = String(decoding: buffer, as: UTF8.self).split(
                    separator: "\n", omittingEmptySubsequences: false)
                if lines.dropLast().contains(where: { $0 == line }) { return true }
            }
        }
    }

    /// Starts `executable` with `arguments`, in a process group of its own unless `ownGroup` is false.
    /// `environment` nil inherits this process's; `directory` is the child's working folder; `input` true gives
    /// it a standard input pipe (`Running.input`), false `/dev/null`; `descriptors` maps a child descriptor
    /// number to a descriptor of ours it gets a copy of. The child starts with SIGPIPE at its default action.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, input: Bool = false, output: Sink = .capture, errors: Sink = .capture,
        descriptors: [Int32: Int32] = [:], ownGroup: Bool = true
    ) throws -> Running {
        // A child that stops reading its input must not kill this process through a write to the pipe.
        guard brokenPipesIgnored else { throw Failure(description: "SIGPIPE could not be ignored in this process.") }
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t?  // Darwin: an opaque pointer the init allocates
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [Int32] = []  // read ends (and the input's write end) we keep
        var theirs: [Int32] = []  // ends only the child keeps: closed here after the spawn
        defer { for descriptor in theirs { close(descriptor) } }
        var keptInput: Int32?
        var keptOutput: Int32?
        var keptErrors: Int32?
        do {
            if input {
                let (read, write) = try pipeEnds()
                theirs.append(read)
                ours.append(write)
                keptInput = write
                posix_spawn_file_actions_adddup2(&actions, read, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            var outputWrite: Int32?
            switch output {
            case .capture, .output:
                let (read, write) = try pipeEnds()
                ours.append(read)
                theirs.append(write)
                keptOutput = read
                outputWrite = write
                posix_spawn_file_actions_adddup2(&actions, write, 1)
            case .discard:
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            }
            switch errors {
            case .capture:
                let (read, write) = try pipeEnds()
                ours.append(read)
                theirs.append(write)
                keptErrors = read
                posix_spawn_file_actions_adddup2(&actions, write, 2)
            case .output:
                if let outputWrite {
                    posix_spawn_file_actions_adddup2(&actions, outputWrite, 2)
                } else {
                    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                }
            case .discard:
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            }
            for (child, parent) in descriptors.sorted(by: { $0.key < $1.key }) {
                posix_spawn_file_actions_adddup2(&actions, parent, child)
            }
            #if canImport(Glibc)
                // Every descriptor from the first one not asked for up is closed in the child, before it runs.
                let lowest = max(3, (descriptors.keys.max() ?? 2) + 1)
                try glibcAction(
                    "posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self,
                    failure: "Could not ask the child to close inherited descriptors."
                ) { $0(&actions, lowest) }
                if let directory {
                    try glibcAction(
                        "posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self,
                        failure: "Could not ask the child to start in \(directory)."
                    ) { $0(&actions, directory) }
                }
            #else
                // Darwin: POSIX_SPAWN_CLOEXEC_DEFAULT would close the descriptors; the tests run on Linux.
                if directory != nil {
                    throw Failure(description: "Starting a child in another folder is done on Linux only.")
                }
            #endif
        } catch {
            for descriptor in ours { close(descriptor) }
            throw error
        }

        #if canImport(Glibc)
            var attributes = posix_spawnattr_t()
        #else
            var attributes: posix_spawnattr_t?  // Darwin: an opaque pointer the init allocates
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        posix_spawnattr_setpgroup(&attributes, 0)

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            for descriptor in ours { close(descriptor) }
            throw Failure(description: "\(executable) could not be started: \(String(cString: strerror(spawned))).")
        }
        return Running(pid: pid, output: keptOutput, errors: keptErrors, input: keptInput)
    }

    /// Runs `executable` to its end and collects what it printed; after `limit` its process group is killed
    /// and this throws. Blocks the calling thread; from async code use the `async` overload.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, input: Data? = nil, errors: Sink = .capture, limit: Duration = .seconds(60)
    ) throws -> Result {
        let child = try spawn(
            executable, arguments, environment: environment, directory: directory, input: true,
            output: .capture, errors: errors)
        let deadline = ContinuousClock.now + limit
        var collected: [Int32: Data] = [:]
        var open = [child.output, child.errors].compactMap { $0 }
        var pending = input ?? Data()
        var inputEnd = child.input
        if pending.isEmpty, let end = inputEnd {
            close(end)
            inputEnd = nil
        }
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty || inputEnd != nil {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                timedOut = true
                break
            }
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let inputEnd { polled.append(pollfd(fd: inputEnd, events: Int16(POLLOUT), revents: 0)) }
            let milliseconds = Int32(min(remaining / .milliseconds(1), 60_000)) + 1
            let ready = poll(&polled, nfds_t(polled.count), milliseconds)
            if ready < 0 && errno != EINTR { break }
            for entry in polled where entry.revents != 0 {
                if entry.fd == inputEnd {
                    let written = pending.withUnsafeBytes { write(entry.fd, $0.baseAddress, $0.count) }
                    if written > 0 { pending.removeFirst(written) }
                    if written < 0 && errno != EAGAIN && errno != EINTR || pending.isEmpty {
                        close(entry.fd)
                        inputEnd = nil
                    }
                    continue
                }
                let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[entry.fd, default: Data()].append(contentsOf: chunk[0..<count])
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if let inputEnd { close(inputEnd) }
        if timedOut { child.kill() }
        let status = child.wait()
        if timedOut {
            throw Failure(
                description:
                    "\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.joined(separator: " ")) ran longer than \(limit)."
            )
        }
        return Result(
            status: status, output: child.output.flatMap { collected[$0] } ?? Data(),
            errors: child.errors.flatMap { collected[$0] } ?? Data())
    }

    /// `runBlocking` on a thread of its own, so the caller's task does not hold a thread of the shared pool
    /// while the child runs.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, input: Data? = nil, errors: Sink = .capture, limit: Duration = .seconds(60)
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Swift.Result {
                        try runBlocking(
                            executable, arguments, environment: environment, directory: directory, input: input,
                            errors: errors, limit: limit)
                    })
            }.start()
        }
    }

    /// SIGPIPE ignored in this process, once: a write to a closed pipe then fails with EPIPE instead.
    private static let brokenPipesIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    /// A pipe whose two ends are close-on-exec (the child gets its copy through `dup2`, which clears the flag).
    private static func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw Failure(description: "No pipe for a child process: \(String(cString: strerror(errno))).")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    #if canImport(Glibc)
        private typealias CloseFrom =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) ->
            Int32
        private typealias ChangeDirectory =
            @convention(c) (
                UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?
            ) -> Int32

        /// Applies glibc's GNU extension `name` (2.34 and later; Swift's Glibc module does not import it) with
        /// `apply`; a missing symbol or a non-zero result throws, the latter with `failure`.
        private static func glibcAction<Function>(
            _ name: String, as type: Function.Type, failure: String, _ apply: (Function) -> Int32
        ) throws {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                throw Failure(description: "This C library has no \(name) (glibc 2.34 or later has).")
            }
            guard apply(unsafeBitCast(symbol, to: type)) == 0 else { throw Failure(description: failure) }
        }
    #endif
}
