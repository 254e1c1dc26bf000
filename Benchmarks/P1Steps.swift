import CompanionCore
import CompanionHTTP
import Foundation

/// P1's per-request cost taken apart, without a network: the `Client` and each of its parts over an in-memory
/// transport that answers at once with what the fault server's `/small` answers (the same head, `{}`).
///
/// `Benchmarks p1-step <step> <count>` runs one step `count` times after one warm-up run. Under callgrind at two
/// counts, the difference in instructions divided by the difference in counts is that step's cost per request,
/// the same whatever else the machine is doing (`scripts/bench p1-instructions` prints the table).
enum P1Steps {
    /// The steps, in the order the table shows them, with what each one measures.
    static let steps: [(name: String, summary: String)] = [
        ("transport", "the in-memory transport alone, body collected (the floor of this table)"),
        ("client", "the Client over it: a JSON GET decoded as JSONValue (everything below together)"),
        ("client-raw", "the same, the body returned as Data (no JSON decoding)"),
        ("client-no-journal", "the same JSON GET with recordsExchanges off"),
        ("client-no-retry", "the same JSON GET with retryPolicy .never"),
        ("build", "Client.httpRequest(for:): URL, policy check, headers"),
        ("journal", "JournalMiddleware over the transport: one exchange recorded"),
        ("journal-read", "the same, then every recorded exchange read back once (Journal.events at the end)"),
        ("retry", "RetryMiddleware over the transport: the body read whole inside the retry loop"),
        ("decode", "JSONDecoding.decode of {} as JSONValue"),
    ]

    /// An in-memory transport answering every request like the fault server's `/small`.
    struct Canned: Transport {
        static let headers: HTTPHeaders = [
            "Server": "FaultServer/1.0 Python/3.12.1", "Date": "Tue, 01 Dec 2026 19:26:58 GMT",
            "Content-Type": "application/json", "Content-Length": "2",
        ]
        static let body = Data("{}".utf8)

        func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
            // A stream fed as a transport feeds it, not a buffered body.
            let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
            continuation.yield(Self.body)
            continuation.finish()
            return (HTTPResponse(status: 200, headers: Self.headers, url: request.url), HTTPBody(stream: stream))
        }
    }

    static func run(step: String, count: Int) async throws {
        guard let base = URL(string: "http://127.0.0.1:45545/") else { return }
        let url = base.appendingPathComponent("small")
        // Large enough to keep every exchange of a run, so `journal-read` redacts each one once.
        let journal = Journal(capacity: max(4_096, count + 2))
        func client(recordsExchanges: Bool = true, retry: RetryPolicy = RetryPolicy()) -> Client {
            Client(
                baseURL: base,
                configuration: Client.Configuration(
                    retryPolicy: retry, transportPolicy: .allowingInsecureLoopback, journal: journal,
                    recordsExchanges: recordsExchanges),
                transport: Canned())
        }
        let transport = Canned()
        let request = HTTPRequest(url: url, bufferLimit: 1 << 20)
        var body: () async throws -> Void
        switch step {
        case "transport":
            body = {
                let (_, reply) = try await transport.send(request)
                _ = try await reply.collect(upTo: 1 << 20)
            }
        case "client", "client-raw", "client-no-journal", "client-no-retry":
            let kit = client(
                recordsExchanges: step != "client-no-journal", retry: step == "client-no-retry" ? .never : RetryPolicy()
            )
            body =
                step == "client-raw"
                ? { _ = try await kit.send(Request<Data>.raw(.get, "/small")) }
                : { _ = try await kit.send(Request<JSONValue>.get("/small")) }
        case "build":
            let kit = client()
            body = { _ = try kit.httpRequest(for: Request<JSONValue>.get("/small")) }
        case "journal", "journal-read":
            let middleware = JournalMiddleware(journal: journal)
            let next: HTTPNext = { request async throws(HTTPError) in try await transport.send(request) }
            body = {
                let (_, reply) = try await middleware.intercept(request, next: next)
                _ = try await reply.collect(upTo: 1 << 20)
            }
        case "retry":
            let middleware = RetryMiddleware(journal: journal)
            let next: HTTPNext = { request async throws(HTTPError) in try await transport.send(request) }
            body = {
                let (_, reply) = try await middleware.intercept(request, next: next)
                _ = try await reply.collect(upTo: 1 << 20)
            }
        case "decode":
            let decoder = Client.makeDecoder()
            let response = HTTPResponse(status: 200, headers: Canned.headers, url: url)
            body = {
                _ = try JSONDecoding.decode(JSONValue.self, from: Canned.body, response: response, decoder: decoder)
            }
        default:
            throw BenchmarkError("unknown step \(step): \(steps.map(\.name).joined(separator: ", "))")
        }
        try await body()
        for _ in 0..<count { try await body() }
        if step == "journal-read", journal.events.count < count { throw BenchmarkError("the journal lost events") }
    }
}

/// `Benchmarks p1-instructions <url>`: P1 in instructions, under callgrind, which counts the same whatever else
/// the machine is doing. Each contender runs at two request counts; the difference over the difference in
/// requests is its instructions per request, start-up and warm-up excluded. The `Client` over libcurl and
/// `CurlTransport` alone go against the fault server (`p1-one`); each part of the `Client` runs without a network
/// (`p1-step`).
enum P1Instructions {
    static let counts = (low: 100, high: 600)

    static func run(url: URL) throws {
        let kit = try perRequest(["p1-one", "kit-curl", url.absoluteString])
        let transport = try perRequest(["p1-one", "curl-transport", url.absoluteString])
        let title = "P1 in instructions (callgrind): per request, the Client over libcurl against CurlTransport alone"
        Report.table(
            id: "p1i", title: title,
            rows: [
                ("Client over libcurl (decoded JSON), instructions", kit, 1),
                ("CurlTransport alone, instructions", transport, 1),
            ], baseline: transport, baselineName: "CurlTransport", unit: "instructions")
        var rows: [(String, Double, Int)] = []
        var floor = 1.0
        for (name, summary) in P1Steps.steps {
            let count = try perRequest(["p1-step", name])
            if name == "transport" { floor = count }
            rows.append(("\(name): \(summary)", count, 1))
        }
        Report.table(
            id: "p1s", title: "P1 taken apart without a network (callgrind): instructions per request of each part",
            rows: rows, baseline: floor, baselineName: "in-memory transport", unit: "instructions")
    }

    /// Instructions per request of `arguments` (a `p1-one` or `p1-step` run), from two runs under callgrind.
    static func perRequest(_ arguments: [String]) throws -> Double {
        let low = try instructions(arguments + ["\(counts.low)"])
        let high = try instructions(arguments + ["\(counts.high)"])
        return Double(high - low) / Double(counts.high - counts.low)
    }

    /// The instructions callgrind counted for one run of this binary with `arguments`.
    static func instructions(_ arguments: [String]) throws -> Int {
        try instructions(of: CommandLine.arguments[0], arguments)
    }

    /// The instructions callgrind counted for one run of `executable` with `arguments`, every thread included.
    static func instructions(of executable: String, _ arguments: [String]) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FirstScreens.executable("valgrind"))
        process.arguments = ["--tool=callgrind", "--callgrind-out-file=/dev/null", executable] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }),
            let count = Int(line.split(separator: " ").last ?? "")
        else { throw BenchmarkError("callgrind of \(arguments.joined(separator: " ")) failed: \(text.suffix(300))") }
        return count
    }
}
