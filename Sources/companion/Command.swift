/// One command of the terminal client, declared as data: its arguments, options and flags, from which
/// the usage text (`--help`) is generated, and what it runs.
///
/// Rule: every command goes through `Command.main`, so `--help`, usage errors (exit 2) and failures
/// (exit 1, one sentence) behave the same everywhere. A command with `subcommands` is a group
/// (`companion cache ls`); its own `run` is never called.
struct Command: Sendable {
    /// A positional argument, for the usage text.
    struct Parameter: Sendable {
        /// How the usage line shows it, e.g. `<address>` or `[end <id>]`.
        let syntax: String
        /// What it is.
        let help: String
    }

    /// A `--name` flag or `--name VALUE` option.
    struct Option: Sendable {
        /// The name without dashes.
        let name: String
        /// The value's placeholder (`NAME`), or nil for a flag.
        let value: String?
        /// What it does.
        let help: String
        /// Whether the option may be given several times.
        var repeats = false

        /// A flag (no value).
        static func flag(_ name: String, _ help: String) -> Option { Option(name: name, value: nil, help: help) }

        /// An option with a value.
        static func option(_ name: String, _ value: String, _ help: String, repeats: Bool = false) -> Option {
            Option(name: name, value: value, help: help, repeats: repeats)
        }

        /// `--json`: the output as documented in docs/cli-json.md.
        static let json = flag("json", "print JSON (the shape is documented in docs/cli-json.md)")
        /// `--https-only`: release-build transport rules.
        static let httpsOnly = flag("https-only", "no plain http, not even to a loopback host")
    }

    /// The name typed after `companion` (or after the group's name).
    let name: String
    /// One line for the command list.
    let summary: String
    /// The positional arguments.
    var parameters: [Parameter] = []
    /// The options and flags.
    var options: [Option] = []
    /// Free text after the usage line: what the command does, in sentences.
    var details: String = ""
    /// The exit-code sentence.
    var exitCodes = "Exit codes: 0 success, 1 the operation failed (one line says why), 2 usage error."
    /// The subcommands of a group.
    var subcommands: [Command] = []
    /// Runs the command with its parsed arguments and returns the exit code.
    var run: @Sendable (Arguments) async throws -> Int32 = { _ in 0 }

    /// A group of subcommands under one name.
    static func group(_ name: String, summary: String, details: String = "", _ subcommands: [Command]) -> Command {
        Command(name: name, summary: summary, details: details, subcommands: subcommands)
    }

    /// The usage line(s) without the leading `usage: `, for the command reached by `path` (e.g. `companion cache`).
    func synopsis(_ path: String) -> [String] {
        if !subcommands.isEmpty { return subcommands.flatMap { $0.synopsis("\(path) \(name)") } }
        var parts = ["\(path) \(name)"] + parameters.map(\.syntax)
        for option in options {
            let text = "--\(option.name)" + (option.value.map { " \($0)" } ?? "")
            parts.append("[\(text)]" + (option.repeats ? "..." : ""))
        }
        return [parts.joined(separator: " ")]
    }

    /// The generated `--help` text of this command, reached by `path` (e.g. `companion` or `companion cache`).
    func usage(_ path: String) -> String {
        let lines = synopsis(path)
        var text = "usage: " + lines.joined(separator: "\n       ") + "\n"
        text += "\n" + summary.prefix(1).uppercased() + summary.dropFirst() + ".\n"
        if !details.isEmpty { text += details + "\n" }
        if subcommands.isEmpty {
            let rows =
                parameters.map { ($0.syntax, $0.help) }
                + options.map { ("--\($0.name)" + ($0.value.map { " \($0)" } ?? ""), $0.help) }
                + [("-h, --help", "this text")]
            text += "\n" + Self.table(rows) + "\n"
        } else {
            text += "\nCommands:\n" + Self.table(subcommands.map { ($0.name, $0.summary) }) + "\n"
            text += "Run `\(path) \(name) <command> --help` for a command's options.\n"
        }
        return text + exitCodes
    }

    /// Rows as two aligned columns, indented by two spaces.
    static func table(_ rows: [(String, String)]) -> String {
        let width = min(30, rows.map(\.0.count).max() ?? 0)
        return rows.map { left, right in
            let pad = left.count < width ? String(repeating: " ", count: width - left.count) : ""
            return "  \(left)\(pad)  \(right)"
        }.joined(separator: "\n")
    }

    /// Parses `words` for this command (descending into a subcommand) and runs it. `--help` or `-h`
    /// anywhere before `--` prints the usage of the deepest command named so far.
    func main(_ words: [String], path: String) async throws -> Int32 {
        if !subcommands.isEmpty {
            let here = "\(path) \(name)"
            guard let first = words.first, !Self.isHelp(first) else {
                Terminal.out(usage(path))
                return words.isEmpty ? 2 : 0
            }
            guard let sub = subcommands.first(where: { $0.name == first }) else {
                throw UsageError(
                    "unknown \(name) command \(first); one of \(subcommands.map(\.name).joined(separator: ", "))")
            }
            return try await sub.main(Array(words.dropFirst()), path: here)
        }
        if words.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            Terminal.out(usage(path))
            return 0
        }
        let arguments = try Arguments(
            words, flags: Set(options.filter { $0.value == nil }.map(\.name)),
            options: Set(options.filter { $0.value != nil }.map(\.name)))
        return try await run(arguments)
    }

    private static func isHelp(_ word: String) -> Bool { word == "--help" || word == "-h" || word == "help" }
}

/// The commands one file contributes (`Sources/companion/<Name>Commands.swift`); `main.swift` lists every
/// family once, so an app adds its commands with one file and one line.
struct CommandFamily: Sendable {
    /// The heading in `companion help`.
    let title: String
    /// The top-level commands.
    let commands: [Command]
}
