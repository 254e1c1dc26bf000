import CompanionCore
import CompanionHTTP
import Foundation

/// `companion`: CompanionKit's terminal client. Every flow of the kit runs here headless.
let usage = """
    usage: companion <command> [arguments] [--help]

    Commands:
      probe <address>          what a server answers: version, manifest
      get <address> <path>     GET a path and print the reply (JSON pretty-printed)
      journal                  the previous run's events, redacted
      login <address>          sign in (password, second factor, forced change); the credential goes to the secret store
      whoami                   who is signed in, where
      sessions [end <id>]      the account's sessions; end one (ending this device's signs out)
      logout                   sign out and revoke the credential
      cache ls|show|clear      the offline cache of a server
      outbox                   writes waiting to be sent
      link <url>               how a deep link would be handled (navigate, switch, or ask consent)
      managed-config validate <file>   check a managed app configuration (codes 100-103)
      omnigent sessions|show|watch|send|rename|archive   the Omnigent app, headless
      vault pull|ls|cat|log    read an encrypted sgit vault (PrompTugal's reader vault)
      promptugal schedule|team|destinations|debug   the PrompTugal app, headless
      help                     this text

    Run `companion <command> --help` for a command's options.
    Exit codes: 0 success, 1 the operation failed (one line says why), 2 usage error.
    """

let commands: [String: (help: String, run: @Sendable ([String]) async throws -> Int32)] = [
    "probe": (HTTPCommands.probeHelp, HTTPCommands.probe),
    "get": (HTTPCommands.getHelp, HTTPCommands.get),
    "journal": (JournalCommand.help, { try JournalCommand.run($0) }),
    "login": (AuthCommands.loginHelp, AuthCommands.login),
    "whoami": (AuthCommands.whoamiHelp, AuthCommands.whoami),
    "sessions": (AuthCommands.sessionsHelp, AuthCommands.sessions),
    "logout": (AuthCommands.logoutHelp, AuthCommands.logout),
    "cache": (StoreCommands.cacheHelp, StoreCommands.cache),
    "outbox": (StoreCommands.outboxHelp, StoreCommands.outbox),
    "link": (LinkCommand.help, LinkCommand.run),
    "managed-config": (ManagedConfigCommand.help, ManagedConfigCommand.run),
    "omnigent": (OmnigentCommands.help, OmnigentCommands.run),
    "vault": (VaultCommand.usage, { await VaultCommand.run($0) }),
    "promptugal": (PrompTugalCommands.help, PrompTugalCommands.run),
]

func runMain() async -> Int32 {
    let words = Array(CommandLine.arguments.dropFirst())
    guard let name = words.first, !["help", "--help", "-h"].contains(name) else {
        Terminal.out(usage)
        return words.isEmpty ? 2 : 0
    }
    guard let command = commands[name] else {
        Terminal.err("companion: unknown command \(name); run `companion help`")
        return 2
    }
    let rest = Array(words.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        Terminal.out(command.help)
        return 0
    }
    let code: Int32
    do {
        code = try await command.run(rest)
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
    } catch {
        Terminal.err("companion: \(Terminal.journal.scrub(String(describing: error)))")
        code = 1
    }
    if name != "journal" { Terminal.saveJournal() }
    return code
}

exit(await runMain())
