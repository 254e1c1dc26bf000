import CompanionCore
import CompanionHTTP
import Foundation

/// Commands that talk to a server over the kit's HTTP client: `probe` and `get`.
enum HTTPCommands {
    static let probeHelp = """
        usage: companion probe <address> [--manifest NAME] [--https-only] [--json]

        Looks at a server: its version (/api/version) and, with --manifest, its manifest
        (/.well-known/NAME.json). Prints what answered, or why nothing did.
        The address is typed as a person would: `example.com`, `localhost:6767`, `https://host/mount`.
        Plain http is allowed only for loopback hosts, and not at all with --https-only.
          --manifest NAME   also read /.well-known/NAME.json (e.g. omnigent)
          --json            print the report as one JSON object
        Exit codes: 0 the server answered with a version, 1 it did not, 2 usage error.
        """

    static let getHelp = """
        usage: companion get <address> <path> [--json] [--offline | --fresh] [--header 'Name: value']... [--timeout SECONDS] [--https-only]

        Sends GET <path> to the server and prints the reply: pretty JSON by default, one compact
        line with --json (for scripts), text as is. A failure prints one line saying what to do.
          --header    an extra request header (repeatable); credentials never reach the journal
          --timeout   idle timeout in whole seconds (default 30)
          --offline   answer from the offline cache only (no request is made)
          --fresh     ask the server, and keep the reply in the offline cache
        Exit codes: 0 success, 1 the request failed, 2 usage error.
        """

    /// Parses an address the way the apps do; the terminal client allows http on loopback unless told not to.
    static func address(_ text: String, httpsOnly: Bool) throws(CommandFailure) -> ServerAddress {
        do {
            return try ServerAddress(parsing: text, policy: httpsOnly ? .httpsOnly : .allowingInsecureLoopback)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    static func client(for address: ServerAddress, httpsOnly: Bool, timeout: Duration = .seconds(30)) -> Client {
        let policy: TransportPolicy = httpsOnly ? .httpsOnly : .allowingInsecureLoopback
        return Client(
            baseURL: address.url,
            configuration: Client.Configuration(
                timeout: timeout, transportPolicy: policy, journal: Terminal.journal))
    }

    static func probe(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, flags: ["json", "https-only"], options: ["manifest"])
        try arguments.expectAtMost(1)
        let httpsOnly = arguments.flag("https-only")
        let address = try address(try arguments.positional(0, "the server address"), httpsOnly: httpsOnly)
        let report = await client(for: address, httpsOnly: httpsOnly).probe(manifestName: arguments.option("manifest"))
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
            Terminal.out(JSONValue.object(object).jsonString())
        } else {
            Terminal.out(report.summary)
            for step in report.steps {
                let outcome = step.status.map { "HTTP \($0)" } ?? "no answer"
                Terminal.out("  \(step.path): \(outcome)" + (step.error.map { " — \($0.description)" } ?? ""))
            }
            if let manifest = report.manifest { Terminal.out("manifest: " + manifest.jsonString()) }
        }
        return report.version == nil ? 1 : 0
    }

    static func get(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words, flags: ["json", "https-only", "offline", "fresh"], options: ["header", "timeout"])
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
        let client = client(for: address, httpsOnly: httpsOnly, timeout: timeout)
        if arguments.flag("offline") || arguments.flag("fresh") {
            let (data, note) = try await StoreCommands.get(
                address: address, path: path, policy: arguments.flag("offline") ? .offline : .fresh, client: client)
            Terminal.err(note)
            Terminal.out(
                JSONValue(data: data)?.jsonString(pretty: !arguments.flag("json"))
                    ?? String(decoding: data, as: UTF8.self))
            return 0
        }
        let (data, response) = try await client.exchange(Request<Data>.raw(.get, path, headers: headers))
        if let value = JSONValue(data: data) {
            Terminal.out(value.jsonString(pretty: !arguments.flag("json")))
        } else if response.mediaType?.hasPrefix("text/") == true || String(data: data, encoding: .utf8) != nil {
            Terminal.out(String(decoding: data, as: UTF8.self))
        } else {
            Terminal.out("(\(data.count) bytes of \(response.mediaType ?? "unknown type"))")
        }
        return 0
    }
}
