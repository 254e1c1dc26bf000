import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation

/// `companion certain …`: the Certain app's core, headless. Every screen is the app's own model; the
/// terminal only prints it (text, or `--json` as documented in docs/cli-json.md).
///
/// The sign-in is the one of `companion login` (one sign-in per server): `certain login` runs that flow for a
/// Certain server, and every other subcommand uses (and keeps) what it stored. Offline data lives in the
/// companion home folder's `store/`, one file per server and user; when the server cannot be reached, each
/// screen shows its last copy and says how old it is.
enum CertainCommands {
    /// `certain login|overview|budget|transactions|contracts|accounts|tokens|logout`.
    static let family = CommandFamily(
        title: "Apps",
        commands: [
            .group(
                "certain", summary: "the Certain app, headless",
                details: """
                    The sign-in is the one of `companion login` (one sign-in per server). When the server cannot
                    be reached, overview, budget, contracts and accounts print their last copy and its age.
                    """,
                [
                    Command(
                        name: "login", summary: "sign in to a Certain server (the same flow as `companion login`)",
                        parameters: [.init(syntax: "<address>", help: "the server")],
                        options: [
                            .option("user", "NAME", "the user name (asked for when missing)"),
                            .flag(
                                "password-stdin",
                                "read the password (and then any code or new password) from standard input"),
                            .httpsOnly,
                        ],
                        exitCodes: "Exit codes: 0 signed in, 1 refused or failed, 2 usage error.",
                        run: login),
                    Command(
                        name: "overview",
                        summary: "the month's income and expenses, budget per group, balances, latest transactions",
                        options: common, exitCodes: exitCodes, run: overview),
                    Command(
                        name: "budget", summary: "plan against actual; --prev/--next follow the month's own links",
                        options: common + [
                            .option("month", "YYYY-MM", "this month (default: the current one)"),
                            .flag("prev", "the month the reply names as previous"),
                            .flag("next", "the month the reply names as next"),
                        ],
                        exitCodes: exitCodes, run: budget),
                    Command(
                        name: "transactions", summary: "one page, or every page with --all; transfers paired",
                        options: common + [
                            .option("search", "TEXT", "search on the server"),
                            .option("account", "ID", "only this account (either side of a transfer)"),
                            .option("category", "ID", "only this category"),
                            .option("tag", "ID", "only this tag"),
                            .option("from", "YYYY-MM-DD", "from this day"),
                            .option("to", "YYYY-MM-DD", "up to this day"),
                            .option("limit", "N", "rows per page (1-200, default 50)"),
                            .flag("all", "every page"),
                        ],
                        exitCodes: exitCodes, run: transactions),
                    Command(
                        name: "contracts", summary: "contracts with rhythm, next due day, monthly and yearly totals",
                        options: common, exitCodes: exitCodes, run: contracts),
                    Command(
                        name: "accounts", summary: "every account with its balance", options: common,
                        exitCodes: exitCodes, run: accounts),
                    Command(
                        name: "tokens", summary: "this device's token (the full list is in the web's settings)",
                        options: common, run: tokens),
                    Command(
                        name: "logout", summary: "revoke this device's token, forget it and wipe the offline data",
                        options: [lang], run: logout),
                ])
        ])

    private static let lang = Command.Option.option(
        "lang", "de|en", "texts and server messages in this language (default: from $LANG, else German)")
    private static let common: [Command.Option] = [lang, .json]
    private static let exitCodes =
        "Exit codes: 0 shown (live or an offline copy), 1 failed or not signed in, 2 usage error."

    static func login(_ arguments: Arguments) async throws -> Int32 {
        var certain = arguments
        certain.options["server"] = ["certain"]
        let code = try await AuthCommands.login(certain)
        if code == 0 { await loadLookups() }
        return code
    }

    // MARK: Arguments and the signed-in account

    static func language(_ arguments: Arguments) throws(UsageError) -> Language {
        if let given = arguments.option("lang") {
            guard let language = Language(rawValue: given) else { throw UsageError("--lang is de or en") }
            return language
        }
        let environment = ProcessInfo.processInfo.environment
        let tag = environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"] ?? ""
        return Language.resolve(preferred: [tag])
    }

    /// The signed-in Certain account's connection, with offline data in the home folder's `store/`.
    static func connect(_ arguments: Arguments) throws -> (CertainConnection, CredentialSession) {
        try arguments.expectAtMost(0)
        let (current, session, _) = try AuthCommands.signedIn()
        guard String(describing: current.kind) == "certain" else {
            throw CommandFailure(
                "The signed-in server (\(current.address.serverKey)) is not a Certain server. "
                    + "Run `companion certain login <address>` first.")
        }
        let language = try language(arguments)
        let client = CertainAccount.client(
            address: current.address.url, session: session, language: language,
            transportPolicy: .terminal(httpsOnly: current.httpsOnly), journal: Terminal.journal)
        // Cached finance data is private: the folder 0700, the database 0600.
        let folder = try Terminal.stateFolder("store")
        let store = try CertainAccount.offlineStore(for: current.account, in: folder)
        if let file = store.fileURL {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        }
        return (CertainConnection(client: client, store: store, language: language), session)
    }

    // MARK: Subcommands

    /// Right after sign-in: the lookups, loaded once and kept offline (C-LOOK-1). A failure here is not the
    /// sign-in's: the screens load them when they first meet an id.
    static func loadLookups() async {
        guard let arguments = try? Arguments([], flags: [], options: []),
            let (connection, _) = try? connect(arguments)
        else { return }
        _ = try? await connection.reloadLookups()
    }

    static func overview(_ arguments: Arguments) async throws -> Int32 {
        let (connection, _) = try connect(arguments)
        let model = await OverviewModel(connection: connection)
        await model.refresh()
        let state = await model.state
        let lookups = await model.lookups
        return try show(ScreenReport(screen: "overview", state, now: Date()), arguments, texts: connection.texts) {
            overview, texts in
            let language = texts.language
            var lines = [
                "\(texts["overview.month"]) (\(overview.month.month.formatted(language))): "
                    + "\(texts["overview.income"]) \(Money(overview.month.income, overview.month.currency).formatted(language))"
                    + "  \(texts["overview.expenses"]) \(Money(overview.month.expenses, overview.month.currency).formatted(language))",
                "", texts["overview.budget"] + " (\(overview.budget.month.formatted(language)))",
            ]
            lines +=
                overview.budget.groups.isEmpty ? ["  " + texts["budget.empty"]] : groupLines(overview.budget, texts)
            lines += ["", texts["overview.accounts"]]
            lines += overview.accounts.map { "  \($0.name)  \($0.money.formatted(language))" }
            lines += ["", texts["overview.latest"]]
            lines += overview.latestRows.map { "  " + rowLine($0, lookups, texts) }
            return lines
        }
    }

    static func budget(_ arguments: Arguments) async throws -> Int32 {
        var month: BudgetMonth?
        if let text = arguments.option("month") {
            guard let parsed = BudgetMonth(text) else { throw UsageError("--month is YYYY-MM") }
            month = parsed
        }
        if arguments.flag("prev") && arguments.flag("next") { throw UsageError("--prev or --next, not both") }
        let (connection, _) = try connect(arguments)
        let model = await BudgetModel(connection: connection)
        await model.load(month)
        if arguments.flag("prev") { await model.previous() }
        if arguments.flag("next") { await model.next() }
        let state = await model.state
        let lookups = await model.lookups
        return try show(ScreenReport(screen: "budget", state, now: Date()), arguments, texts: connection.texts) {
            reply, texts in
            let language = texts.language
            // A neighbour shows as the month its link names; a link naming none shows as sent; none: "-".
            func label(_ month: BudgetMonth?, _ link: String?) -> String {
                month?.formatted(language) ?? link ?? "-"
            }
            var lines = [reply.month.formatted(language)]
            if reply.groups.isEmpty { lines.append(texts["budget.empty"]) }
            for group in reply.groups {
                lines.append(groupLine(group, currency: reply.currency, texts))
                for line in group.categories {
                    let name = lookups.categoryName(line.categoryID, texts)
                    lines.append(
                        "    \(line.isRed ? "!" : " ") \(name)  \(Money(line.planned, reply.currency).formatted(language))"
                            + " / \(Money(line.actual, reply.currency).formatted(language))")
                }
            }
            if !reply.warnings.isEmpty {
                lines += ["", texts["budget.notices"]] + reply.warnings.map { "  - " + $0.text(texts) }
            }
            if reply.isIncomplete { lines.append(texts["budget.incomplete"]) }
            lines.append(
                "\(texts["budget.prev"]): \(label(reply.previousMonth, reply.prev))   "
                    + "\(texts["budget.next"]): \(label(reply.nextMonth, reply.next))")
            return lines
        }
    }

    static func transactions(_ arguments: Arguments) async throws -> Int32 {
        func number(_ name: String) throws(UsageError) -> Int? {
            guard let text = arguments.option(name) else { return nil }
            guard let value = Int(text) else { throw UsageError("--\(name) is a number") }
            return value
        }
        func day(_ name: String) throws(UsageError) -> CalendarDate? {
            guard let text = arguments.option(name) else { return nil }
            guard let value = CalendarDate(text) else { throw UsageError("--\(name) is a date YYYY-MM-DD") }
            return value
        }
        let limit = try number("limit") ?? 50
        guard (1...200).contains(limit) else { throw UsageError("--limit is 1 to 200") }
        let query = TransactionQuery(
            search: arguments.option("search") ?? "", accountID: try number("account"),
            categoryID: try number("category"), tagID: try number("tag"), from: try day("from"), to: try day("to"))
        let (connection, _) = try connect(arguments)
        let model = await TransactionsModel(connection: connection, pageSize: limit)
        await model.apply(query)
        if arguments.flag("all") { await model.loadAll() }
        let state = await model.state
        let lookups = await model.lookups
        return try show(ScreenReport(screen: "transactions", state, now: Date()), arguments, texts: connection.texts) {
            list, texts in
            var lines = list.rows.map { rowLine($0, lookups, texts) }
            if lines.isEmpty { lines.append(texts["transactions.empty"]) }
            if list.nextCursor != nil { lines.append("… \(texts["transactions.more"]): --all") }
            return lines
        }
    }

    static func contracts(_ arguments: Arguments) async throws -> Int32 {
        let (connection, _) = try connect(arguments)
        let model = await ContractsModel(connection: connection)
        await model.load()
        let state = await model.state
        return try show(ScreenReport(screen: "contracts", state, now: Date()), arguments, texts: connection.texts) {
            list, texts in
            let language = texts.language
            var lines = list.items.map { contract in
                "\(contract.name)  \(contract.money.formatted(language))  \(texts[contract.rhythm.textKey])"
                    + "  \(texts["contracts.next_due"]) \(contract.nextDue.formatted(language))"
            }
            lines.append(
                "\(texts["contracts.monthly_total"]): \(Money(list.monthlyTotal, list.currency).formatted(language))"
                    + "   \(texts["contracts.yearly_total"]): \(Money(list.yearlyTotal, list.currency).formatted(language))"
            )
            lines += list.warnings.map { "  - " + $0.text(texts) }
            return lines
        }
    }

    static func accounts(_ arguments: Arguments) async throws -> Int32 {
        let (connection, _) = try connect(arguments)
        let model = await AccountsModel(connection: connection)
        await model.load()
        let state = await model.state
        return try show(ScreenReport(screen: "accounts", state, now: Date()), arguments, texts: connection.texts) {
            accounts, texts in
            accounts.map { "\($0.id)  \($0.name)  \($0.money.formatted(texts.language))" }
        }
    }

    static func tokens(_ arguments: Arguments) async throws -> Int32 {
        let (connection, session) = try connect(arguments)
        guard let stored = await session.credential else {
            throw CommandFailure("You are signed out. Run `companion certain login <address>` again.")
        }
        let me = try? await connection.fetch(Request<JSONValue>.get("/api/auth/me"))
        let reply = TokenReply(
            id: stored.serverID, account: stored.account.userID, server: stored.address.serverKey,
            username: me?["username"]?.stringValue)
        if arguments.flag("json") {
            Terminal.out(try JSONOutput.document(reply))
        } else {
            Terminal.out(
                "This device's token: id \(reply.id ?? "?") for \(reply.username ?? reply.account) on \(reply.server)."
                    + " Every device token is listed and revoked in the web's settings (a browser sign-in).")
        }
        return 0
    }

    static func logout(_ arguments: Arguments) async throws -> Int32 {
        let (connection, session) = try connect(arguments)
        let problem = await CertainSignIn.signOut(session: session, client: connection.client)
        await connection.wipeOfflineData()
        if let file = try? AuthCommands.currentFile() { try? FileManager.default.removeItem(at: file) }
        if let problem { Terminal.err("The server did not confirm the sign-out: \(problem.description)") }
        Terminal.out("Signed out; this device's token is revoked and its offline data deleted.")
        return 0
    }

    // MARK: Printing

    /// Prints a screen's report (text or JSON) and returns the exit code: 0 when something is shown, 1 when
    /// failed.
    static func show<Value: Encodable & Sendable & Equatable>(
        _ report: ScreenReport<Value>, _ arguments: Arguments, texts: Texts, lines: (Value, Texts) -> [String]
    ) throws -> Int32 {
        if arguments.flag("json") {
            Terminal.out(try JSONOutput.document(report))
            return report.state == .failed ? 1 : 0
        }
        switch report.state {
        case .loading: Terminal.out(texts["state.loading"])
        case .content, .empty: break
        case .stale:
            Terminal.err("\(texts["state.stale"]) — \(asOf(report.age ?? 0, texts)): \(report.reason ?? "")")
        case .offline:
            Terminal.err("\(texts["state.offline"]) — \(asOf(report.age ?? 0, texts)): \(report.reason ?? "")")
        case .failed:
            let reason = report.reason ?? texts["state.failed"]
            throw CommandFailure(
                report.signInRequired
                    ? "\(reason) \(texts["state.sign_in"]): `companion certain login <address>`." : reason)
        }
        if let value = report.value { lines(value, texts).forEach(Terminal.out) }
        return 0
    }

    /// "As of 2026-11-30 15:39 UTC (8 s)": when the shown copy was fetched, and how old it is.
    static func asOf(_ age: TimeInterval, _ texts: Texts) -> String {
        let fetched = Date().addingTimeInterval(-age)
        let stamp = fetched.formatted(
            Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash).time(
                includingFractionalSeconds: false
            )
            .timeSeparator(.colon).dateTimeSeparator(.space))
        return texts.format("state.as_of", "\(stamp) UTC (\(ageText(age)))")
    }

    static func ageText(_ age: TimeInterval) -> String {
        let seconds = Int(age)
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7_200 { return "\(seconds / 60) min" }
        if seconds < 172_800 { return "\(seconds / 3_600) h" }
        return "\(seconds / 86_400) d"
    }

    static func groupLine(_ group: BudgetGroup, currency: String, _ texts: Texts) -> String {
        let language = texts.language
        return "\(group.isRed ? "!" : " ") \(group.name)  \(Money(group.planned, currency).formatted(language))"
            + " / \(Money(group.actual, currency).formatted(language))"
    }

    static func groupLines(_ reply: BudgetMonthReply, _ texts: Texts) -> [String] {
        reply.groups.map { "  " + groupLine($0, currency: reply.currency, texts) }
    }

    static func rowLine(_ row: TransactionRow, _ lookups: Lookups, _ texts: Texts) -> String {
        let language = texts.language
        switch row {
        case .booking(let item):
            let who = item.counterparty ?? item.purpose ?? "-"
            let category = item.categoryID.map { "  [\(lookups.categoryName($0, texts))]" } ?? ""
            return "\(item.bookedOn.formatted(language))  \(who)  \(item.money.formatted(language))\(category)"
        case .transfer(let transfer):
            let title = texts.format(
                "transfer.row", lookups.accountName(transfer.fromAccountID, texts),
                lookups.accountName(transfer.toAccountID, texts))
            let partial = transfer.isComplete ? "" : "  (\(texts["transfer.partial"]))"
            return "\(transfer.bookedOn.formatted(language))  \(title)  "
                + "\(transfer.amount.formatted(language, signed: false))\(partial)"
        }
    }

}

/// `certain tokens --json`.
struct TokenReply: Encodable {
    let id: String?
    let account: String
    let server: String
    let username: String?
}
