import Foundation

/// CompanionKit's benchmarks, run in release mode by `scripts/bench`. Each prints a table of
/// medians and ratios against a baseline measured side by side in the same run.
let usage = """
    usage: Benchmarks p1 <url-of-small-json>
           Benchmarks p3|p4|p7|store      (store benchmarks; no server needed)
           Benchmarks p5 [options]   (see VaultBenchmark.swift; scripts/bench p5 sets it up)
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
