import CertainCore
import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import Foundation

/// `companion certain …`: the Certain app's core, headless. Every screen is the app's own model on the kit's
/// road (`CertainServer`); the terminal only prints it (text, or `--json` as documented in docs/cli-json.md,
/// carrying what the text shows).
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
                        parameters: [
                            .init(
                                syntax: "[<address>]",
                                help: "the server (default: the address kept from the last sign-in)")
                        ],
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
                        options: [lang, .httpsOnly], run: logout),
                ])
        ])

    private static let lang = Command.Option.option(
        "lang", "de|en", "texts and server messages in this language (default: from $LANG, else German)")
    private static let common: [Command.Option] = [lang, .json, .httpsOnly]
    private static let exitCodes =
        "Exit codes: 0 shown (live, empty or an offline copy), 1 failed or not signed in, 2 usage error."

    static func login(_ arguments: Arguments) async throws -> Int32 {
        var certain = arguments
        certain.options["server"] = ["certain"]
        if certain.positionals.isEmpty {
            // The address is kept when the sign-in ends (C-TOK-6, C-ADDR-4): signing in again needs none.
            guard let kept = keptAddress() else {
                throw UsageError("missing the server address (no address is kept from an earlier sign-in)")
            }
            Terminal.err("Signing in again at \(kept) (the address kept from the last sign-in).")
            certain.positionals = [kept.description]
        }
        let code = try await AuthCommands.login(certain)
        if code == 0 { await loadLookups(https: arguments.flag("https-only")) }
        return code
    }

    // MARK: Arguments and the signed-in account

    /// The address of the last sign-in, kept when the sign-in ended (a revoked token), if it was a Certain one.
    static func keptAddress() -> ServerAddress? {
        guard let file = try? AuthCommands.currentFile(), let data = try? Data(contentsOf: file),
            let current = try? JSONDecoder().decode(AuthCommands.Current.self, from: data),
            current.kind == .certain
        else { return nil }
        return current.address
    }

    static func language(_ arguments: Arguments) throws(UsageError) -> Language {
        if let given = arguments.option("lang") {
            guard let language = Language(rawValue: given) else { throw UsageError("--lang is de or en") }
            return language
        }
        let environment = ProcessInfo.processInfo.environment
        let tag = environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"] ?? ""
        return Language.resolve(preferred: [tag])
    }

    /// The signed-in Certain account on the kit's road, with offline data in the home folder's `store/`.
    static func open(_ arguments: Arguments) async throws -> CertainServer {
        try arguments.expectAtMost(0)
        return try await open(language: try language(arguments), https: arguments.flag("https-only"))
    }

    /// The signed-in Certain account in `language`; `https` refuses plain http even where the sign-in
    /// allowed it.
    static func open(language: Language, https: Bool) async throws -> CertainServer {
        let (current, _, _) = try AuthCommands.signedIn()
        guard current.kind == .certain else {
            throw CommandFailure(
                "The signed-in server (\(current.address.serverKey)) is not a Certain server. "
                    + "Run `companion certain login <address>` first.")
        }
        let environment = try CommandEnvironment.make(
            policy: .terminal(httpsOnly: current.httpsOnly || https), stores: .folder("store"))
        guard let stored = try? environment.secrets.load(current.account) else {
            throw CommandFailure(
                "You are signed out. Run `companion certain login` again (the address \(current.address) is kept).")
        }
        let server = try await CertainServer.open(stored, language: language, environment: environment)
        // Cached finance data is private: the folder 0700, the database 0600.
        if let file = server.bundle.store.fileURL {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        }
        return server
    }

    // MARK: Subcommands

    /// Right after sign-in: the lookups, loaded once and kept offline (C-LOOK-1). A failure here is not the
    /// sign-in's: the screens load them when they first meet an id.
    static func loadLookups(https: Bool) async {
        guard let server = try? await open(language: .german, https: https) else { return }
        _ = try? await server.lookups.reload()
    }

    static func overview(_ arguments: Arguments) async throws -> Int32 {
        let server = try await open(arguments)
        let model = await OverviewModel(server: server)
        await model.refresh()
        let lookups = await model.lookups
        let texts = server.texts
        let state = await model.state.map { overview in
            CertainShown(
                value: overview,
                extra: CertainOverviewExtra(
                    rows: TransactionLine.lines(overview.latestRows, lookups: lookups, texts: texts),
                    categoryNames: categoryNames(overview.budget, lookups, texts),
                    redGroupIDs: overview.budget.redGroupIDs, incomplete: overview.isIncomplete,
                    notices: overview.notices.map { $0.text(texts) }))
        }
        return try show("overview", state, server, arguments, emptyLines: [texts["overview.empty"]]) { shown in
            let overview = shown.value
            guard !overview.isEmpty else { return [] }
            let language = texts.language
            let month = overview.month
            var lines = [
                "\(texts["overview.month"]) (\(month.month.formatted(language))): "
                    + "\(texts["overview.income"]) \(Money(month.income, month.currency).formatted(language))"
                    + "  \(texts["overview.expenses"]) \(Money(month.expenses, month.currency).formatted(language))"
            ]
            // Sums with something left out are marked, and what was left out is named (C-BUD-9).
            if overview.isIncomplete { lines.append("  " + texts["budget.incomplete"]) }
            lines += shown.extra.notices.map { "  - " + $0 }
            lines += ["", texts["overview.budget"] + " (\(overview.budget.month.formatted(language)))"]
            lines +=
                overview.budget.groups.isEmpty
                ? ["  " + texts["budget.empty"]]
                : overview.budget.groups.map { "  " + groupLine($0, currency: overview.budget.currency, texts) }
            lines += ["", texts["overview.accounts"]]
            lines += overview.accounts.map { "  \($0.name)  \($0.money.formatted(language))" }
            lines += ["", texts["overview.latest"]]
            lines += shown.extra.rows.map { "  " + $0.text(texts) }
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
        let server = try await open(arguments)
        let model = await BudgetModel(server: server)
        await model.load(month)
        if arguments.flag("prev") { await model.previous() }
        if arguments.flag("next") { await model.next() }
        let lookups = await model.lookups
        let texts = server.texts
        let shownMonth = await model.reply
        let state = await model.state.map { reply in
            CertainShown(
                value: reply,
                extra: CertainBudgetExtra(
                    incomplete: reply.isIncomplete, previousMonth: reply.previousMonth, nextMonth: reply.nextMonth,
                    categoryNames: categoryNames(reply, lookups, texts), notices: reply.warnings.map { $0.text(texts) },
                    redGroupIDs: reply.redGroupIDs, redCategoryIDs: reply.redCategoryIDs))
        }
        let language = texts.language
        // A neighbour shows as the month its link names; a link naming none shows as sent; none: "-".
        func label(_ month: BudgetMonth?, _ link: String?) -> String { month?.formatted(language) ?? link ?? "-" }
        let footer = shownMonth.map {
            "\(texts["budget.prev"]): \(label($0.previousMonth, $0.prev))   "
                + "\(texts["budget.next"]): \(label($0.nextMonth, $0.next))"
        }
        let emptyLines = [shownMonth?.month.formatted(language), texts["budget.empty"], footer].compactMap { $0 }
        return try show(
            "budget", state, server, arguments, extra: CertainLinks(prev: shownMonth?.prev, next: shownMonth?.next),
            emptyLines: emptyLines
        ) { shown in
            let reply = shown.value
            guard !reply.isEmpty else { return [] }  // an empty month prints its empty lines alone
            var lines = [reply.month.formatted(language)]
            for group in reply.groups {
                lines.append(groupLine(group, currency: reply.currency, texts))
                for line in group.categories {
                    let name = lookups.categoryName(line.categoryID, texts)
                    lines.append(
                        "    \(line.isRed ? "!" : " ") \(name)  \(Money(line.planned, reply.currency).formatted(language))"
                            + " / \(Money(line.actual, reply.currency).formatted(language))")
                }
            }
            let notices = shown.extra.notices
            if !notices.isEmpty { lines += ["", texts["budget.notices"]] + notices.map { "  - " + $0 } }
            if reply.isIncomplete { lines.append(texts["budget.incomplete"]) }
            if let footer { lines.append(footer) }
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
        let server = try await open(arguments)
        let model = await TransactionsModel(server: server, pageSize: limit)
        await model.apply(query)
        if arguments.flag("all") { await model.feed?.loadAll() }
        let lookups = await model.lookups
        let texts = server.texts
        let state = await model.state.map { list in
            CertainShown(
                value: list,
                extra: CertainRowsExtra(rows: TransactionLine.lines(list.rows, lookups: lookups, texts: texts)))
        }
        return try show("transactions", state, server, arguments, emptyLines: [texts["transactions.empty"]]) { shown in
            var lines = shown.extra.rows.map { $0.text(texts) }
            if shown.value.nextCursor != nil { lines.append("… \(texts["transactions.more"]): --all") }
            return lines
        }
    }

    static func contracts(_ arguments: Arguments) async throws -> Int32 {
        let server = try await open(arguments)
        let model = await ContractsModel(server: server)
        await model.load()
        let texts = server.texts
        let state = await model.state.map { list in
            CertainShown(value: list, extra: CertainNoticesExtra(notices: list.warnings.map { $0.text(texts) }))
        }
        return try show("contracts", state, server, arguments, emptyLines: [texts["contracts.empty"]]) { shown in
            let list = shown.value
            guard !list.items.isEmpty else { return [] }
            let language = texts.language
            var lines = list.items.map { contract in
                "\(contract.name)  \(contract.money.formatted(language))  \(texts[contract.rhythm.textKey])"
                    + "  \(texts["contracts.next_due"]) \(contract.nextDue.formatted(language))"
            }
            lines.append(
                "\(texts["contracts.monthly_total"]): \(Money(list.monthlyTotal, list.currency).formatted(language))"
                    + "   \(texts["contracts.yearly_total"]): \(Money(list.yearlyTotal, list.currency).formatted(language))"
            )
            lines += shown.extra.notices.map { "  - " + $0 }
            return lines
        }
    }

    static func accounts(_ arguments: Arguments) async throws -> Int32 {
        let server = try await open(arguments)
        let model = await AccountsModel(server: server)
        await model.load()
        let texts = server.texts
        return try show("accounts", await model.state, server, arguments, emptyLines: [texts["accounts.empty"]]) {
            accounts in
            accounts.map { "\($0.id)  \($0.name)  \($0.money.formatted(texts.language))" }
        }
    }

    static func tokens(_ arguments: Arguments) async throws -> Int32 {
        let server = try await open(arguments)
        guard let stored = await server.session?.credential else {
            throw CommandFailure(
                "You are signed out. Run `companion certain login` again (the address \(server.bundle.baseURL) is kept)."
            )
        }
        let user = await UserModel(server: server)
        await user.load()
        let reply = TokenReply(
            id: stored.serverID, account: stored.account.userID, server: stored.address.serverKey,
            username: await user.state.value?.username, user: await user.state.value)
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
        let server = try await open(arguments)
        let problem = await server.signOut()
        if let file = try? AuthCommands.currentFile() { try? FileManager.default.removeItem(at: file) }
        if let problem { Terminal.err("The server did not confirm the sign-out: \(problem.description)") }
        Terminal.out("Signed out; this device's token is revoked and its offline data deleted.")
        return 0
    }

    // MARK: Printing

    /// Prints `state` of `screen` through the terminal's one screen printer, in the server's language, and
    /// returns the exit code: 0 when something is shown (an empty answer included), 1 when failed.
    static func show<Value: Encodable & Sendable & Equatable>(
        _ screen: String, _ state: ScreenState<Value>, _ server: CertainServer, _ arguments: Arguments,
        extra: (any Encodable & Sendable)? = nil, emptyLines: [String], lines: (Value) -> [String]
    ) throws -> Int32 {
        let texts = server.texts
        let words = ScreenWords(
            loading: texts["state.loading"], stale: texts["state.stale"], offline: texts["state.offline"],
            failed: texts["state.failed"], signIn: texts["state.sign_in"],
            asOf: { texts.format("state.as_of", $0) })
        return try ScreenOutput.show(
            screen: screen, state, now: server.bundle.clock.now(), json: arguments.flag("json"), words: words,
            signIn: "companion certain login", extra: extra, emptyLines: emptyLines, lines: lines)
    }

    /// A group's line, `!` marking a red group (C-BUD-6).
    static func groupLine(_ group: BudgetGroup, currency: String, _ texts: Texts) -> String {
        let language = texts.language
        return "\(group.isRed ? "!" : " ") \(group.name)  \(Money(group.planned, currency).formatted(language))"
            + " / \(Money(group.actual, currency).formatted(language))"
    }

    /// The name of every category a budget month names, by id (the placeholder for one the lookups lack).
    static func categoryNames(_ reply: BudgetMonthReply, _ lookups: Lookups, _ texts: Texts) -> [String: String] {
        var names: [String: String] = [:]
        for line in reply.groups.flatMap(\.categories) {
            names[String(line.categoryID)] = lookups.categoryName(line.categoryID, texts)
        }
        return names
    }
}

// MARK: What `--json` prints beside the core's values (docs/cli-json.md)

/// `certain tokens --json`.
struct TokenReply: Encodable {
    let id: String?
    let account: String
    let server: String
    let username: String?
    let user: CertainUser?
}

/// A screen's value with what its text shows beside it, as more members of the same JSON object: names from
/// the lookups, sentences, rows as lines.
struct CertainShown<Value: Encodable & Sendable & Equatable, Extra: Encodable & Sendable & Equatable>: Encodable,
    Sendable, Equatable
{
    let value: Value
    let extra: Extra

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        try extra.encode(to: encoder)
    }
}

/// What the overview's text shows beside its value: the latest five as lines, the budget's category names, its
/// red groups (the text's `!`), whether the month's figures are incomplete and the notices as sentences.
struct CertainOverviewExtra: Encodable, Sendable, Equatable {
    let rows: [TransactionLine]
    let categoryNames: [String: String]
    let redGroupIDs: [Int]
    let incomplete: Bool
    let notices: [String]

    enum CodingKeys: String, CodingKey {
        case rows, incomplete, notices
        case categoryNames = "category_names"
        case redGroupIDs = "red_group_ids"
    }
}

/// What a budget month's text shows beside the reply: whether its totals are incomplete, the months its links
/// name, its categories' names, its notices as sentences, and its red groups and categories (the text's `!`).
struct CertainBudgetExtra: Encodable, Sendable, Equatable {
    let incomplete: Bool
    let previousMonth: BudgetMonth?
    let nextMonth: BudgetMonth?
    let categoryNames: [String: String]
    let notices: [String]
    let redGroupIDs: [Int]
    let redCategoryIDs: [Int]

    enum CodingKeys: String, CodingKey {
        case incomplete, notices
        case redGroupIDs = "red_group_ids"
        case redCategoryIDs = "red_category_ids"
        case previousMonth = "prev_month"
        case nextMonth = "next_month"
        case categoryNames = "category_names"
    }
}

/// The transactions' rows as lines (names, tags, the placeholder for an unknown one).
struct CertainRowsExtra: Encodable, Sendable, Equatable {
    let rows: [TransactionLine]
}

/// Notices as sentences.
struct CertainNoticesExtra: Encodable, Sendable, Equatable {
    let notices: [String]
}

/// The `prev` and `next` links of the budget month shown.
struct CertainLinks: Encodable, Sendable {
    let prev: String?
    let next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(prev, forKey: .prev)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case prev, next }
}
