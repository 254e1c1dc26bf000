import Dispatch
import Foundation

// P9's measured process: a new process that opens an app's offline store and produces its first screen's content
// with the network down, through the app core's own screen model, then prints the rows the screen shows, one per
// line, then `#` and the seconds it spent inside main, and exits.
//
//     FirstScreen read <app> <folder>          the cold read (certain, omnigent, promptugal; mainworthy: see below)
//     FirstScreen seed <app> <folder> [<url>]  fills the folder as the app would, from its server (before timing)
//     FirstScreen --start-only                 exits at once (this binary's floor)
//
// Mainworthy keeps its data in memory only (M-DRAFT-3, O-11, O-14), so a new process has nothing of the queue
// to show: `read mainworthy` shows what a person waits for then, the queue read from the server on loopback with
// the stored session (network up), and `read mainworthy-offline` the time to the screen that says the queue
// cannot be read (network down). docs/benchmarks.md says how each is compared.

/// Writes a sentence to standard error and exits with `code`.
func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--start-only" { exit(0) }
guard arguments.count >= 4, let app = FirstScreenApp(rawValue: arguments[2]) else {
    fail(
        "usage: FirstScreen read|seed <certain|mainworthy|mainworthy-offline|omnigent|promptugal> <folder> [<url>]"
            + " | --start-only",
        code: 2)
}
let folder = URL(fileURLWithPath: arguments[3], isDirectory: true)
let mode = arguments[1]
let server = arguments.count > 4 ? URL(string: arguments[4]) : nil
let started = ContinuousClock.now
// The screen models are main-actor objects: the main thread runs the main queue (no `async` top-level, whose
// `dispatch_main()` ends the main thread with an unwind), and `exit` ends the process once the screen is there.
Task { @MainActor in
    do {
        switch mode {
        case "seed":
            guard let server = server ?? app.defaultServer else {
                fail("seed \(app.rawValue) needs a server URL", code: 2)
            }
            try await app.seed(folder: folder, server: server)
            exit(0)
        case "read":
            let rows = try await app.read(folder: folder)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(rows.joined(separator: "\n") + "\n#\(seconds)")
            exit(0)
        default:
            fail("unknown mode \(mode) (read, seed)", code: 2)
        }
    } catch {
        fail("FirstScreen \(mode) \(app.rawValue): \(error)", code: 1)
    }
}
RunLoop.main.run()
