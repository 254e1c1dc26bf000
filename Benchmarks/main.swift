import Foundation

/// CompanionKit's benchmarks, run in release mode by `scripts/bench`. Each prints a table of
/// medians and ratios against a baseline measured side by side in the same run.
let usage = """
    usage: Benchmarks p1 <url-of-small-json>
           Benchmarks p2 <omnigent-url>   (CPU against the Python omnigent-client; BENCH_OMNIGENT_PYTHON)
           Benchmarks p3|p4|p7|store      (store benchmarks; no server needed)
           Benchmarks p3cold              (a new process per read, against the sqlite3 CLI; 1k to 1M items)
           Benchmarks p5 [options]        (see VaultBenchmark.swift; scripts/bench p5 sets it up)
           Benchmarks p6 [<omnigent-url>] (SSE parse rate; with a URL also the live stream's latency)
           Benchmarks mw <mainworthy-reference-server-url>   (report → stream event; scripts/bench mw)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "p1":
        guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try await P1.run(url: url)
    case "p2":
        guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try await OmnigentBenchmarks.p2(url: url)
    case "p2-child":
        try await OmnigentBenchmarks.p2Child(Array(arguments.dropFirst()))
    case "p3cold":
        try await ColdStart.run()
    case "p3cold-child":
        guard arguments.count == 2 else { exit(2) }
        try await ColdStart.child(arguments[1])
    case "noop":
        break
    case "p6":
        try SSEParseRate.run()
        if arguments.count >= 2, let url = URL(string: arguments[1]) {
            try await OmnigentBenchmarks.p6Latency(url: url)
        }
    case "p3", "p4", "p7", "store":
        try await StoreBenchmarks.run(arguments[0])
    case "journal":
        try JournalCost.run()
    case "mw":
        guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try await MainworthyEvents.run(url: url)
    case "p5":
        try await VaultBenchmark.run(arguments: Array(arguments.dropFirst()))
    default:
        print(usage)
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
