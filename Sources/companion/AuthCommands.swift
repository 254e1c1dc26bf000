import AllauthAdapter
import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation
import OmnigentCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `companion login`, `whoami`, `sessions` and `logout`: the kit's sign-in from a terminal.
///
/// Credentials go to the Linux file secret store in `<home>/secrets` (AES-GCM, 0600); which account is
/// signed in (address, server kind, account key; no secret) is kept in `<home>/account.json`.
enum AuthCommands {
    /// `login`, `whoami`, `sessions` and `logout`.
    static let family = CommandFamily(
        title: "Accounts",
        commands: [
            Command(
                name: "login", summary: "sign in and keep the credential in the secret store",
                parameters: [.init(syntax: "<address>", help: "the server")],
                options: [
                    .option("user", "NAME", "the user name (asked for when missing)"),
                    .flag(
                        "password-stdin",
                        "read the password (and then any code or new password) from standard input, one per line"),
                    .option("server", ServerKind.choices, "the server kind (detected when missing)"),
                    .option(
                        "proxy-user", "NAME",
                        "HTTP Basic at a proxy in front of the server: its user (its password is asked for first)"),
                    .option("internal", "URL", "the server's internal (home network) address, tried first"),
                    .httpsOnly,
                ],
                details: """
                    Stores the credential (never the password) in the secret store under the companion
                    home folder. Asks for the password, and a second-factor code or a new password when the
                    server wants one, without echoing them. With --proxy-user, the proxy's password is asked
                    for (or read from standard input) before anything else and kept beside the credential; it
                    goes only to this server's addresses. With --internal, requests go to that address while it
                    answers (a short connect timeout) and to <address> otherwise; one sign-in serves both.
                    """,
                exitCodes: "Exit codes: 0 signed in, 1 refused or failed, 2 usage error.",
                run: login),
            Command(
                name: "whoami", summary: "who is signed in, where",
                parameters: [.init(syntax: "[<address>]", help: "the server signed in to (checked when given)")],
                details: "Prints the signed-in account and asks the server who the stored credential belongs to.",
                exitCodes:
                    "Exit codes: 0 the server accepted it, 1 not signed in or refused (then you are signed out).",
                run: whoami),
            Command(
                name: "sessions", summary: "the account's sessions; end one (ending this device's signs out)",
                parameters: [.init(syntax: "[end <id>]", help: "end the session with this id")],
                details: "Lists the account's sessions (django-allauth servers), marking this device's with *.",
                run: sessions),
            Command(
                name: "logout", summary: "sign out and revoke the credential",
                details: "Ends the credential on the server where it can be ended and deletes it locally.",
                exitCodes: "Exit codes: 0 signed out (a failed server call is reported), 1 not signed in.",
                run: logout),
        ])

    /// What is signed in: no secret, just where to find the credential.
    struct Current: Codable {
        var address: ServerAddress
        var kind: ServerKind
        var account: AccountKey
        var httpsOnly: Bool
    }

    static func store() throws(CommandFailure) -> FileSecretStore {
        FileSecretStore(folder: try Terminal.stateFolder("secrets"))
    }
    static func currentFile() throws(CommandFailure) -> URL {
        try Terminal.home().appendingPathComponent("account.json")
    }

    /// A client for `address` from the terminal's one environment (`CommandEnvironment`): the server's own
    /// network settings apply; `middlewares` carry a stored credential.
    static func client(_ address: ServerAddress, httpsOnly: Bool, middlewares: [any Middleware] = [])
        throws(CommandFailure) -> Client
    {
        try CommandEnvironment.make(policy: .terminal(httpsOnly: httpsOnly), stores: .memory).client(
            for: address.url, profile: CommandEnvironment.terminalProfile(), middlewares: middlewares)
    }

    static func login(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let httpsOnly = arguments.flag("https-only")
        let address = try HTTPCommands.address(try arguments.positional(0, "the server address"), httpsOnly: httpsOnly)
        var kind: ServerKind?
        if let given = arguments.option("server") {
            guard let known = ServerKind(rawValue: given) else {
                throw UsageError("--server is one of \(ServerKind.choices)")
            }
            kind = known
        }
        let fromStdin = arguments.flag("password-stdin")
        try ServerNetworks.configure(address, arguments, fromStdin: fromStdin)
        // One environment for the whole sign-in, as the app has one: every client below comes from it.
        let environment = try CommandEnvironment.make(policy: .terminal(httpsOnly: httpsOnly), stores: .memory)
        let profile = CommandEnvironment.terminalProfile()
        if kind == nil {
            for candidate in ServerKind.allCases {
                let client = environment.client(for: address.url, profile: profile)
                if (try? await candidate.signIn(address: address, client: client).probe()) != nil {
                    kind = candidate
                    break
                }
            }
        }
        if kind == nil,
            let problem = await ServerNetworks.networkProblem(
                client: environment.client(for: address.url, profile: profile))
        {
            throw CommandFailure(problem.description)
        }
        guard let kind else {
            let names = ServerKind.allCases.map(\.displayName).joined(separator: ", ")
            throw CommandFailure("No supported sign-in (\(names)) answers at \(address).")
        }
        let model = await SignInModel(
            policy: .terminal(httpsOnly: httpsOnly), store: try store(), journal: Terminal.journal
        ) { kind.signIn(address: $0, client: environment.client(for: $0.url, profile: profile)) }
        await model.submitAddress(address.description)
        guard case .enteringPassword = await model.state else { throw failure(await model.state) }
        let user = try arguments.option("user") ?? prompt("User name: ")
        let password = try secret("Password: ", fromStdin: fromStdin)
        await model.submitPassword(username: user, password: password)
        while true {
            switch await model.state {
            case .signedIn(let account):
                try save(Current(address: address, kind: kind, account: account, httpsOnly: httpsOnly))
                // The name the person typed; the server's own id only when it differs (a numeric id alone
                // tells a person nothing).
                let who = account.userID == user ? user : "\(user) (user \(account.userID))"
                Terminal.out("Signed in as \(who) on \(address.serverKey).")
                return 0
            case .enteringCode(_, _, let kinds, let problem):
                if let problem { Terminal.err(problem.description) }
                let recovery = kinds == [.recoveryCode]
                let code = try secret(
                    recovery ? "Recovery code: " : "Code (or a recovery code): ", fromStdin: fromStdin)
                let isTOTP = code.count == 6 && code.allSatisfy(\.isNumber)
                await model.submitCode(code, kind: isTOTP ? .totp : .recoveryCode)
            case .changingPassword(_, _, let problem):
                if let problem { Terminal.err(problem.description) }
                Terminal.err("The server asks for a new password.")
                let new = try secret("New password: ", fromStdin: fromStdin)
                if !fromStdin, try secret("New password again: ", fromStdin: false) != new {
                    Terminal.err("The two entries differ; try again.")
                    continue
                }
                await model.submitNewPassword(current: password, new: new)
            default:
                throw failure(await model.state)
            }
        }
    }

    static func failure(_ state: SignInState) -> CommandFailure {
        switch state {
        case .needsWebSetup(_, let url):
            return CommandFailure(AuthError.needsWebSetup(url: url).description)
        default:
            return CommandFailure(state.problem?.description ?? "The sign-in stopped unexpectedly.")
        }
    }

    static func signedIn() throws -> (Current, CredentialSession, Client) {
        guard let data = try? Data(contentsOf: try currentFile()),
            let current = try? JSONDecoder().decode(Current.self, from: data)
        else { throw CommandFailure("You are not signed in. Run `companion login <address>` first.") }
        let session: CredentialSession
        let store = try store()
        let refresher = current.kind.refresher(
            address: current.address, client: try client(current.address, httpsOnly: current.httpsOnly))
        do {
            session = try CredentialSession(
                account: current.account, store: store, refresher: refresher, journal: Terminal.journal)
        } catch {
            throw CommandFailure(error.description)
        }
        let client = try client(
            current.address, httpsOnly: current.httpsOnly,
            middlewares: [AuthenticationMiddleware(session: session, rule: current.kind.revocationRule)])
        return (current, session, client)
    }

    /// The stored sign-in for `address` when the signed-in account belongs to that server (same origin),
    /// else `nil`. Its session refreshes the credential as the app would.
    static func storedSession(for address: ServerAddress) throws -> (Current, CredentialSession)? {
        guard let data = try? Data(contentsOf: try currentFile()),
            let current = try? JSONDecoder().decode(Current.self, from: data),
            current.address.origin == address.origin
        else { return nil }
        let (_, session, _) = try signedIn()
        return (current, session)
    }

    static func whoami(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(1)
        let (current, session, client) = try signedIn()
        if let text = arguments.positionals.first {
            let asked = try HTTPCommands.address(text, httpsOnly: current.httpsOnly)
            guard asked.origin == current.address.origin else {
                throw CommandFailure(
                    "You are not signed in to \(asked.serverKey) (signed in: \(current.address.serverKey)).")
            }
        }
        guard await session.credential != nil else {
            throw CommandFailure("You are signed out of \(current.address.serverKey). Run `companion login` again.")
        }
        do {
            let me = try await client.send(Request<JSONValue>.get(current.kind.whoamiPath))
            let name =
                me["username"]?.stringValue ?? me["data"]?["user"]?["username"]?.stringValue
                ?? me["id"]?.stringValue ?? current.account.userID
            Terminal.out("\(name) on \(current.address.serverKey) (account \(current.account.userID))")
            return 0
        } catch {
            if case .signedOut = await session.status { try? FileManager.default.removeItem(at: try currentFile()) }
            throw CommandFailure(error.description)
        }
    }

    static func sessions(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(2)
        let (current, session, client) = try signedIn()
        guard current.kind.listsSessions else {
            throw CommandFailure("This server (\(current.kind.displayName)) offers no sessions list to the app.")
        }
        let account = AllauthAccount(client: client, credentials: session)
        let list: [SessionInfo]
        do {
            list = try await account.sessions()
        } catch {
            throw CommandFailure(error.description)
        }
        if arguments.positionals.first == "end" {
            let id = try arguments.positional(1, "the session id")
            guard let target = list.first(where: { $0.id == id }) else {
                throw CommandFailure("No session \(id) in this account; run `companion sessions` to list them.")
            }
            do {
                try await SessionEnding.end(target, in: account, credentials: session)
            } catch {
                throw CommandFailure(error.description)
            }
            if target.isCurrent {
                try? FileManager.default.removeItem(at: try currentFile())
                Terminal.out("Ended this device's session; you are signed out.")
            } else {
                Terminal.out("Ended session \(id).")
            }
            return 0
        }
        guard arguments.positionals.isEmpty else { throw UsageError("expected nothing or `end <id>`") }
        let format = Date.ISO8601FormatStyle()
        for item in list {
            let mark = item.isCurrent ? "*" : " "
            let opened = item.openedAt.map { format.format($0) } ?? "-"
            let used = item.lastUsedAt.map { format.format($0) } ?? "-"
            Terminal.out(
                "\(mark) \(item.id)  \(item.client ?? "-")  opened \(opened) from \(item.openedFrom ?? "-")  last used \(used)"
            )
        }
        return 0
    }

    static func logout(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectAtMost(0)
        let (current, session, client) = try signedIn()
        let problem = await current.kind.signOut(session: session, client: client)
        try? FileManager.default.removeItem(at: try currentFile())
        if let problem { Terminal.err("The server did not confirm the sign-out: \(problem.description)") }
        Terminal.out("Signed out of \(current.address.serverKey).")
        return 0
    }

    static func save(_ current: Current) throws {
        let file = try Terminal.stateFolder().appendingPathComponent("account.json")
        do {
            try Terminal.writePrivateFile(try JSONOutput.data(current), to: file)
        } catch {
            throw CommandFailure("Could not save the signed-in account to \(file.path).")
        }
    }

    static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw UsageError("no input") }
        return line
    }

    /// Reads a secret line: from a terminal with echo turned off (termios), or from standard input.
    static func secret(_ text: String, fromStdin: Bool) throws -> String {
        let interactive = isatty(STDIN_FILENO) != 0 && !fromStdin
        if interactive { FileHandle.standardError.write(Data(text.utf8)) }
        var saved = termios()
        if interactive, tcgetattr(STDIN_FILENO, &saved) == 0 {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if interactive {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw UsageError(
                "no \(text.lowercased().trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))) given")
        }
        Terminal.journal.register(secret: line)
        return line
    }
}
