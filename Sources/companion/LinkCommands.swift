import CompanionCore
import CompanionLinks
import Foundation
import OmnigentCore

/// `link` and `managed-config`.
enum LinkCommands {
    /// The family.
    static let family = CommandFamily(title: "Links", commands: [LinkCommand.command, ManagedConfigCommand.command])
}

/// `companion link`: what the app would do with a deep link, decided without any network request.
enum LinkCommand {
    static let command = Command(
        name: "link", summary: "how a deep link would be handled (navigate, switch, or ask consent)",
        parameters: [.init(syntax: "<url>", help: "the link, e.g. omnigent://host[:port]/c/<id>")],
        options: [
            .option(
                "known", "SERVER", "a saved or recent server (the first is the saved one, then newest first)",
                repeats: true),
            .option("current", "SERVER", "the server on screen; its page counts as loaded unless --loading"),
            .flag("loading", "the current page is still loading"),
            .flag("https-only", "release-build rules: no plain http, not even to loopback"),
            .json,
        ],
        details: """
            Parses a deep link and prints the decision: navigate in place (the current server), defer until
            loaded (--loading), switch to a known server without a prompt, or ask consent first (an unknown
            server). Nothing is contacted.
            """,
        exitCodes: "Exit codes: 0 a decision was made, 1 the link was refused (one line says why), 2 usage error.",
        run: run)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let text = try arguments.positional(0, "the link")
        let httpsOnly = arguments.flag("https-only")
        let link: DeepLink
        do {
            link = try LinkParser.parse(
                text, grammar: .omnigent, policy: .terminal(httpsOnly: httpsOnly))
        } catch {
            Terminal.journal.record(.link, "deep link refused", fields: ["reason": error.description])
            throw CommandFailure(error.description)
        }
        let known = try (arguments.options["known"] ?? []).map { try HTTPCommands.address($0, httpsOnly: httpsOnly) }
        let current = try arguments.option("current").map { try HTTPCommands.address($0, httpsOnly: httpsOnly) }
        let context = LinkContext(
            current: current, pageLoaded: !arguments.flag("loading"), saved: known.first,
            recents: Array(known.dropFirst()))
        let decision = LinkRouter.decide(link, in: context, journal: Terminal.journal)
        var report: [String: JSONValue] = [
            "server": .string(link.server.description), "path": .string(link.path),
            "decision": .string(decision.summary),
        ]
        var lines = ["server:   \(link.server.description)", "path:     \(link.path)"]
        switch decision {
        case .navigateInPlace(let path):
            lines.append("decision: navigate in place to \(path) (OpenPath, no reload)")
        case .deferUntilLoaded(let path):
            lines.append("decision: hold \(path) and open it once the page finishes loading")
        case .switchToKnownServer(let server, let url):
            report["switchTo"] = .string(server.description)
            report["loadURL"] = .string(url.absoluteString)
            lines.append("decision: switch to known server \(server.description), no prompt")
            lines.append("load:     \(url.absoluteString)")
        case .askConsent(let request):
            report["consent"] = .object([
                "title": .string(request.title), "message": .string(request.message),
                "buttons": .array([.string(request.cancelTitle), .string(request.openTitle)]),
            ])
            lines.append("decision: ask consent first; no request is made before the answer")
            lines.append(
                "prompt:   \(request.title) \(request.message) [\(request.cancelTitle)] [\(request.openTitle)]")
            lines.append("on Open:  probe the workspace mount, then load \(request.open().loadURL(on: link.server))")
        }
        Terminal.out(arguments.flag("json") ? JSONValue.object(report).outputLine : lines.joined(separator: "\n"))
        return 0
    }
}

/// `companion managed-config validate`: checks a managed app configuration payload as the app would.
enum ManagedConfigCommand {
    static let command = Command.group(
        "managed-config", summary: "check a managed app configuration (codes 100-103)",
        [
            Command(
                name: "validate", summary: "validate a managed app configuration as the app would",
                parameters: [.init(syntax: "<file.plist|file.json>", help: "a property list (XML or binary) or JSON")],
                options: [.json],
                details: """
                    Validates its serverUrls by the app's rules: https only, at most 10 entries, an array of strings.
                    Prints the preset servers, or the error code an administrator would see:
                      100 not a valid URL, 101 not https, 102 more than 10 entries, 103 not an array of strings.
                    A rejected configuration is rejected whole: no preset would be applied.
                    """,
                exitCodes: "Exit codes: 0 accepted, 1 rejected or unreadable, 2 usage error.",
                run: run)
        ])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let path = try arguments.positional(0, "the configuration file")
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("Cannot read \(path): check that the file exists and is readable.")
        }
        let format: ManagedPayload.Format? =
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "json": .json
            case "plist", "xml": .propertyList
            default: nil
            }
        let payload: [String: ManagedValue]
        do {
            payload = try ManagedPayload.decode(data, format: format)
        } catch {
            throw CommandFailure("\(path): \(error.description)")
        }
        let json = arguments.flag("json")
        do {
            let configuration = try ManagedConfiguration(validating: payload)
            Terminal.journal.record(
                .link, "managed configuration accepted", fields: ["servers": String(configuration.servers.count)])
            let servers = configuration.servers.map(\.description)
            if json {
                Terminal.out(
                    JSONValue.object(["accepted": .bool(true), "servers": .array(servers.map(JSONValue.string))])
                        .outputLine)
            } else {
                Terminal.out("accepted: \(servers.count) preset server(s)")
                for server in servers { Terminal.out("  \(server)") }
            }
            return 0
        } catch {
            Terminal.journal.record(.link, "managed configuration rejected", fields: ["code": String(error.code)])
            if json {
                Terminal.out(
                    JSONValue.object([
                        "accepted": .bool(false), "code": .integer(Int64(error.code)),
                        "message": .string(error.description),
                    ]).outputLine)
            } else {
                Terminal.out("rejected: code \(error.code): \(error.description)")
                Terminal.out("No preset is applied when a configuration is rejected.")
            }
            return 1
        }
    }
}
