import CompanionCore
import CompanionHTTP
import Foundation

/// Commands that talk to a server over the kit's HTTP client: `probe` and `get`.
enum HTTPCommands {
    /// `probe` and `get`.
    static let family = CommandFamily(
        title: "Servers",
        commands: [
            Command(
                name: "probe", summary: "what a server answers: its version and, with --manifest, its manifest",
                parameters: [
                    .init(
                        syntax: "<address>",
                        help: "the server, typed as a person would: example.com, localhost:6767, https://host/mount")
                ],
                options: [
                    .option("manifest", "NAME", "also read /.well-known/NAME.json (e.g. omnigent)"), .httpsOnly, .json,
                ],
                details: """
                    Reads /api/version and prints what answered, or why nothing did.
                    Plain http is allowed only for loopback hosts, and not at all with --https-only.
                    """,
                exitCodes: "Exit codes: 0 the server answered with a version, 1 it did not, 2 usage error.",
                run: probe),
            Command(
                name: "get", summary: "GET a path and print the reply (JSON pretty-printed)",
                parameters: [
                    .init(syntax: "<address>", help: "the server"),
                    .init(syntax: "<path>", help: "the path, such as /v1/sessions"),
                ],
                options: [
                    .flag("json", "print a JSON reply as one compact line, as the server sent it"),
                    .flag("offline", "answer from the offline cache only (no request is made)"),
                    .flag("fresh", "ask the server, and keep the reply in the offline cache"),
                    .option(
                        "header", "'Name: value'", "an extra request header; credentials never reach the journal",
                        repeats: true),
                    .option("timeout", "SECONDS", "idle timeout in whole seconds (default 30)"),
                    .httpsOnly,
                ],
                details: """
                    Sends GET <path> and prints the reply: pretty JSON by default, text as is.
                    A failure prints one line saying what to do.
                    """,
                run: get),
        ])

    /// Parses an address the way the apps do; the terminal client allows http on loopback unless told not to.
    static func address(_ text: String, httpsOnly: Bool) throws(CommandFailure) -> ServerAddress {
        do {
            return try ServerAddress(parsing: text, policy: .terminal(httpsOnly: httpsOnly))
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// A client for `address` from the terminal's one environment (`CommandEnvironment`), the server's own
    /// network settings applied.
    static func client(for address: ServerAddress, httpsOnly: Bool, timeout: Duration = .seconds(30))
        throws(CommandFailure) -> Client
    {
        try CommandEnvironment.make(policy: .terminal(httpsOnly: httpsOnly), stores: .memory).client(
            for: address.url, profile: CommandEnvironment.terminalProfile(timeout: timeout))
    }

    static func probe(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let httpsOnly = arguments.flag("https-only")
        let address = try address(try arguments.positional(0, "the server address"), httpsOnly: httpsOnly)
        let report = try await client(for: address, httpsOnly: httpsOnly).probe(
            manifestName: arguments.option("manifest"))
        if arguments.flag("json") {
            var object: [String: JSONValue] = [
                "address": .string(address.description), "origin": .string(address.origin),
                "reachable": .bool(report.isReachable), "summary": .string(report.summary),
            ]
            object["version"] = report.version.map(JSONValue.string) ?? .null
            object["manifest"] = report.manifest ?? .null
            object["steps"] = .array(
                report.steps.map { step in
                    .object([
                        "path": .string(step.path), "status": step.status.map { .integer(Int64($0)) } ?? .null,
                        "error": step.error.map { .string($0.description) } ?? .null,
                    ])
                })
            Terminal.out(JSONValue.object(object).outputLine)
        } else {
            Terminal.out(report.summary)
            for step in report.steps {
                let outcome = step.status.map { "HTTP \($0)" } ?? "no answer"
                Terminal.out("  \(step.path): \(outcome)" + (step.error.map { " — \($0.description)" } ?? ""))
            }
            if let manifest = report.manifest { Terminal.out("manifest: " + manifest.outputLine) }
        }
        return report.version == nil ? 1 : 0
    }

    static func get(_ arguments: Arguments) async throws -> Int32 {
        if arguments.flag("offline"), arguments.flag("fresh") {
            throw UsageError("--offline and --fresh exclude each other")
        }
        try arguments.expectAtMost(2)
        let httpsOnly = arguments.flag("https-only")
        let address = try address(try arguments.positional(0, "the server address"), httpsOnly: httpsOnly)
        let path = try arguments.positional(1, "the path, such as /v1/sessions")
        var timeout = Duration.seconds(30)
        if let text = arguments.option("timeout") {
            guard let seconds = Int(text), seconds > 0 else { throw UsageError("--timeout takes whole seconds") }
            timeout = .seconds(seconds)
        }
        var headers = HTTPHeaders()
        for header in arguments.options["header"] ?? [] {
            guard let colon = header.firstIndex(of: ":") else { throw UsageError("--header takes 'Name: value'") }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            headers[name] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if Terminal.journal.redactor.isSecretHeader(name) { Terminal.journal.register(secret: headers[name] ?? "") }
        }
        let client = try client(for: address, httpsOnly: httpsOnly, timeout: timeout)
        if arguments.flag("offline") || arguments.flag("fresh") {
            let (data, note) = try await StoreCommands.get(
                address: address, path: path, policy: arguments.flag("offline") ? .offline : .fresh, client: client)
            Terminal.err(note)
            Terminal.out(
                JSONValue(data: data)?.output(pretty: !arguments.flag("json"))
                    ?? String(decoding: data, as: UTF8.self))
            return 0
        }
        let (data, response) = try await client.exchange(Request<Data>.raw(.get, path, headers: headers))
        if let value = JSONValue(data: data) {
            Terminal.out(value.output(pretty: !arguments.flag("json")))
        } else if response.mediaType?.hasPrefix("text/") == true || String(data: data, encoding: .utf8) != nil {
            Terminal.out(String(decoding: data, as: UTF8.self))
        } else {
            Terminal.out("(\(data.count) bytes of \(response.mediaType ?? "unknown type"))")
        }
        return 0
    }
}
