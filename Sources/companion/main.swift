import CompanionCore
import CompanionHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `companion`: CompanionKit's terminal client. Every flow of the kit runs here headless.
///
/// Every command family, one per file. An app adds its commands by adding one file
/// (`<App>Commands.swift` with a `static let family`) and one line here.
let families: [CommandFamily] = [
    HTTPCommands.family,
    TrustCommands.family,
    JournalCommands.family,
    AuthCommands.family,
    IdentityCommands.family,
    StoreCommands.family,
    LinkCommands.family,
    OmnigentCommands.family,
    CertainCommands.family,
    MainworthyCommands.family,
    VaultCommands.family,
    PrompTugalCommands.family,
    HomeAssistantCommands.family,
]

/// The whole client as one group: `companion <command> ...`.
let root = Command.group(
    "companion", summary: "CompanionKit's terminal client: every flow of the kit, headless",
    families.flatMap(\.commands))

/// The top-level help: the commands by family.
func topUsage() -> String {
    var text = "usage: companion <command> [arguments] [--help]\n"
    // Families with the same title (every app's is "Apps") share one heading, in list order.
    var titles: [String] = []
    for family in families where !titles.contains(family.title) { titles.append(family.title) }
    for title in titles {
        let commands = families.filter { $0.title == title }.flatMap(\.commands)
        text += "\n\(title):\n" + Command.table(commands.map { ($0.name, $0.summary) }) + "\n"
    }
    text += """

        Run `companion <command> --help` for a command's options.
        State: $COMPANION_HOME, else $HOME/.companion (folders 0700, files 0600).
        Exit codes: 0 success, 1 the operation failed (one line says why), 2 usage error.
        """
    return text
}

func runMain() async -> Int32 {
    // State files are private: whatever this process creates is 0600 (folders 0700).
    umask(0o077)
    Terminal.confineFoundationFolders()
    let words = Array(CommandLine.arguments.dropFirst())
    guard let name = words.first, !["help", "--help", "-h"].contains(name) else {
        Terminal.out(topUsage())
        return words.isEmpty ? 2 : 0
    }
    guard let command = root.subcommands.first(where: { $0.name == name }) else {
        Terminal.err("companion: unknown command \(name); run `companion help`")
        return 2
    }
    let code: Int32
    do {
        code = try await command.main(Array(words.dropFirst()), path: "companion")
    } catch let error as UsageError {
        Terminal.err("companion \(name): \(error.description)")
        Terminal.err("run `companion \(name) --help` for usage")
        return 2
    } catch let error as CommandFailure {
        Terminal.err("companion: \(Terminal.journal.scrub(error.description))")
        code = 1
    } catch let error as HTTPError {
        Terminal.err("companion: \(Terminal.journal.scrub(error.description))")
        code = 1
    } catch let error as any CustomStringConvertible & Error {
        Terminal.err("companion: \(Terminal.journal.scrub(error.description))")
        code = 1
    } catch {
        Terminal.err("companion: \(Terminal.journal.scrub(String(describing: error)))")
        code = 1
    }
    if name != "journal" { Terminal.saveJournal() }
    return code
}

exit(await runMain())
