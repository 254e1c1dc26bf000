import CompanionTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The spawner every test child goes through. The case it exists for: a long-lived child started while
/// another test's pipe is open must not hold that pipe, or the other test never sees its child's output end.
@Suite("Child processes of the tests")
struct ChildProcessTests {
    @Test("a long-lived child inherits no descriptor of ours: another test's pipe still ends when closed")
    func aLongLivedChildHoldsNoOtherPipe() throws {
        // A pipe as another test would have open (not close-on-exec, like Foundation's).
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        // A child that lives until its input ends.
        let cat = try ChildProcess.spawn("/bin/cat", [], input: true, output: .discard, errors: .discard)
        close(ends[1])
        // Another test's child being spawned right now holds a copy for the microseconds before its own
        // close-from step runs, so the end is waited for, bounded at 5 s; a child that kept the copy would hold
        // it until it ended (here: never, until its input is closed below).
        var entry = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        let ended = poll(&entry, 1, 5_000) == 1
        #expect(ended, "the pipe's end is seen: the long-lived child holds no copy of it")
        if ended {
            var byte: UInt8 = 0
            #expect(read(ends[0], &byte, 1) == 0)
        }
        if let input = cat.input { close(input) }
        #expect(cat.wait() == .exited(0))
    }

    @Test("input goes in, output and errors come back apart, the exit code is kept")
    func runCollectsBothStreams() async throws {
        let result = try await ChildProcess.run(
            "/bin/sh", ["-c", "read line; echo \"out:$line\"; echo err >&2; exit 3"], input: Data("hello\n".utf8))
        #expect(result.status == .exited(3))
        #expect(result.outputText == "out:hello\n")
        #expect(result.errorText == "err\n")
    }

    @Test("more output than a pipe holds is read while the child runs")
    func largeOutputDoesNotBlockTheChild() throws {
        let result = try ChildProcess.runBlocking("/usr/bin/head", ["-c", "1000000", "/dev/zero"])
        #expect(result.status == .exited(0))
        #expect(result.output.count == 1_000_000)
    }

    @Test("a child past its limit is killed, with its group, and the run says so")
    func aChildPastItsLimitIsKilled() throws {
        #expect {
            _ = try ChildProcess.runBlocking("/usr/bin/tail", ["-f", "/dev/null"], limit: .milliseconds(200))
        } throws: { error in
            (error as? ChildProcess.Failure)?.description == "tail -f /dev/null ran longer than 0.2 seconds."
        }
    }

    @Test("a program that is not there is a clear error")
    func aMissingProgramIsAnError() throws {
        #expect {
            _ = try ChildProcess.runBlocking("/nonexistent/program", [])
        } throws: { error in
            (error as? ChildProcess.Failure)?.description.contains("could not be started") == true
        }
    }
}
