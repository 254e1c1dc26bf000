import Foundation

/// CompanionKit's benchmarks, run in release mode by `scripts/bench`. Each prints a table of
/// medians and ratios against a baseline measured side by side in the same run.
let usage = """
    usage: Benchmarks p1 <url-of-small-json>
           Benchmarks p1-step <step> <count>   (one part of the Client's per-request cost, no network; P1Steps.swift)
           Benchmarks p1-one kit-curl|curl-transport|kit-urlsession <url> <requests>   (one contender, for callgrind)
           Benchmarks p2 <omnigent-url>   (CPU against the Python omnigent-client; BENCH_OMNIGENT_PYTHON)
           Benchmarks p3|p4|p7|store      (store benchmarks; no server needed)
           Benchmarks p3cold              (a new process per read, against the sqlite3 CLI; 1k to 1M items)
           Benchmarks p9                  (first screens from a cold process; BENCH_FIRST_SCREEN, app servers)
           Benchmarks p1-instructions <url-of-small-json>   (P1 under callgrind: instructions per request)
           Benchmarks p9                  (first screens from a cold process; BENCH_FIRST_SCREEN, app servers)
           Benchmarks p10 [--minutes M] [--warmup S]   (RSS of a long session; MAINWORTHY_URL, OMNIGENT_URL)
           Benchmarks p5 [options]        (see VaultBenchmark.swift; scripts/bench p5 sets it up)
           Benchmarks p6 [<omnigent-url>] (SSE parse rate; with a URL also the live stream's latency)
           Benchmarks mw <mainworthy-reference-server-url>   (report → stream event; scripts/bench mw)
           Benchmarks p11 <wsbench-ws-url>   (WebSocket against the Python client and the C floor; BENCH_WS_FLOOR)
           Benchmarks p11-one a|b|c <wsbench-ws-url> <count>   (one case of the kit's channel, for callgrind)
           Benchmarks p11-instructions <wsbench-ws-url>   (P11 under callgrind: instructions per operation)
           Benchmarks autobahn9 <autobahn-ws-url> <reports-index.json>   (section 9 per case, kit and Python)
           Benchmarks p12 <home-assistant-url> <token-file>   (first screen against hass-client; BENCH_PYTHON)
           Benchmarks p13 <home-assistant-url> <token-file> [--minutes M] [--warmup S]   (RSS of a live follower)
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
    case "p1-step":
        guard arguments.count == 3, let count = Int(arguments[2]) else {
            print(usage)
            exit(2)
        }
        try await P1Steps.run(step: arguments[1], count: count)
    case "p1-one":
        guard arguments.count == 4, let url = URL(string: arguments[2]), let requests = Int(arguments[3]) else {
            print(usage)
            exit(2)
        }
        try await P1.one(contender: arguments[1], url: url, requests: requests)
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
    case "p9":
        try await FirstScreens.run()
    case "p10":
        try await LongSession.run(arguments: Array(arguments.dropFirst()))
    case "p10-child":
        try await LongSession.child(Array(arguments.dropFirst()))
    case "p1-instructions":
        guard arguments.count == 2, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try P1Instructions.run(url: url)
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
    case "p11":
        guard arguments.count == 2, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try await LiveBenchmarks.p11(url: url)
    case "p11-one":
        guard arguments.count == 4, let url = URL(string: arguments[2]), let count = Int(arguments[3]) else {
            print(usage)
            exit(2)
        }
        try await P11Instructions.one(letter: arguments[1], url: url, count: count)
    case "p11-instructions":
        guard arguments.count == 2, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try P11Instructions.run(url: url)
    case "autobahn9":
        guard arguments.count == 3, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        try await AutobahnSection9.run(base: url, index: arguments[2])
    case "p12-child":
        try await HomeAssistantScreens.firstScreenChild(Array(arguments.dropFirst()))
    case "p13-child":
        try await HomeAssistantScreens.followerChild(Array(arguments.dropFirst()))
    case "p12", "p13":
        guard arguments.count >= 3, let url = URL(string: arguments[1]) else {
            print(usage)
            exit(2)
        }
        if arguments[0] == "p12" {
            try await LiveBenchmarks.p12(url: url, tokenFile: arguments[2])
        } else {
            try await LiveBenchmarks.p13(url: url, tokenFile: arguments[2], arguments: Array(arguments.dropFirst(3)))
        }
    default:
        print(usage)
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
