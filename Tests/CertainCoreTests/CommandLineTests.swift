import CertainCore
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

extension CertainStandIn {
    /// `companion certain …` end to end: the built binary against the reference server, with a fresh home.
    @Suite struct CommandLineTests {
        let server: ReferenceServer
        let program: URL
        let home: TemporaryFolder

        init() async throws {
            server = try ReferenceServer()
            program = try ProgramRun.executable("companion")
            home = try TemporaryFolder(prefix: "certain-cli")
        }

        func companion(_ arguments: [String], input: String = "") async throws -> ProgramRun.Result {
            let environment = [
                "COMPANION_HOME": home.url.path, "HOME": home.url.path, "LANG": "C.UTF-8",
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            ]
            return try await ProgramRun.run(program, arguments, environment: environment, input: input)
        }

        func json(_ result: ProgramRun.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        func login(_ user: String = "plain") async throws -> (ProgramRun.Result, String) {
            let password = try await server.password(user)
            let login = try await companion(
                ["certain", "login", server.url.absoluteString, "--user", user, "--password-stdin"],
                input: password + "\n")
            #expect(login.status == 0, "\(login.errors)")
            return (login, password)
        }

        @Test(
            "C-TOK-4 C-TEXT-3 C-TOK-3 C-OVER-1 C-BUD-3: certain login, overview, budget, transactions; red marks in --json; no password anywhere"
        )
        func theTerminalClientRunsTheScreens() async throws {
            try await server.reset()
            let (login, password) = try await login()
            #expect(login.output.hasPrefix("Signed in as plain"), "\(login.output)")  // the name typed, not an id
            // LANG=C: neither German nor English → German texts; the four sections in their one order.
            let overview = try await companion(["certain", "overview"])
            #expect(overview.status == 0, "\(overview.errors)")
            let headings = ["Dieser Monat", "Budget je Gruppe", "Kontostände", "Letzte Buchungen"]
            let places = headings.compactMap { overview.output.range(of: $0)?.lowerBound }
            #expect(places.count == 4 && places == places.sorted(), "\(overview.output)")
            #expect(overview.output.contains("! Wohnen"), "\(overview.output)")  // this month's red group
            let report = try json(try await companion(["certain", "overview", "--json", "--lang", "en"]))
            #expect(report["screen"] as? String == "overview")
            #expect(report["state"] as? String == "content")
            let value = try #require(report["value"] as? [String: Any])
            // The latest five as rows with their names: each transaction in exactly one row (a pair is one).
            let latest = try #require(value["latest"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            let rows = try #require(value["rows"] as? [[String: Any]])
            #expect(latest.count == 5)
            #expect(rows.flatMap { $0["transaction_ids"] as? [Int] ?? [] }.sorted() == latest.sorted())
            #expect(rows.allSatisfy { $0["title"] is String })
            let groups = try #require((value["budget"] as? [String: Any])?["groups"] as? [[String: Any]])
            let red = try #require(value["red_group_ids"] as? [Int])
            #expect(
                groups.first { $0["name"] as? String == "Wohnen" }.map { red.contains($0["id"] as? Int ?? -1) } == true)
            #expect(
                groups.first { $0["name"] as? String == "Lebenshaltung" }.map { red.contains($0["id"] as? Int ?? -1) }
                    == false)
            // The budget's red marks, names and notices are in --json as in the text.
            let budget = try await companion(["certain", "budget", "--month", "2026-10", "--prev", "--lang", "en"])
            #expect(budget.output.hasPrefix("August 2026"), "\(budget.output)")
            // The footer names the neighbouring months, not the raw links.
            #expect(!budget.output.contains("/api/budget"), "\(budget.output)")
            let october = try json(
                try await companion(["certain", "budget", "--month", "2026-10", "--json", "--lang", "en"]))
            let month = try #require(october["value"] as? [String: Any])
            #expect(month["incomplete"] as? Bool == true)
            #expect(month["prev_month"] as? String == "2026-08")
            #expect((month["notices"] as? [String])?.contains { $0.contains("Fitnessstudio") } == true)
            let names = try #require(month["category_names"] as? [String: String])
            let redCategories = try #require(month["red_category_ids"] as? [Int]).map { names[String($0)] }
            #expect(redCategories.contains("Bücher") && redCategories.contains("Lebensmittel"))
            #expect(!redCategories.contains("ETF-Sparplan") && !redCategories.contains("Gehalt"))
            let octoberGroups = try #require(month["groups"] as? [[String: Any]])
            let octoberRed = try #require(month["red_group_ids"] as? [Int])
            func groupID(_ name: String) -> Int? {
                octoberGroups.first { $0["name"] as? String == name }?["id"] as? Int
            }
            #expect(groupID("Wohnen").map(octoberRed.contains) == true)
            #expect(groupID("Lebenshaltung").map(octoberRed.contains) == false)
            #expect(october["prev"] as? String == "/api/budget?month=2026-08")
            let search = try json(try await companion(["certain", "transactions", "--search", "Sparen", "--json"]))
            let found = try #require((search["value"] as? [String: Any])?["rows"] as? [[String: Any]])
            #expect(found.contains { $0["kind"] as? String == "transfer" && $0["complete"] as? Bool == true })
            let usage = try await companion(["certain", "transactions", "--limit", "999"])
            #expect(usage.status == 2)
            // C-TOK-3: after the mint only the token travels (the one cookie logout aside).
            let log = try await server.requests()
            let mint = try #require(log.lastIndex { $0.path == "/api/inbox/tokens" })
            #expect(log[(mint + 1)...].filter(\.cookie).map(\.path) == ["/api/auth/logout"])
            // C-TOK-4: the password is in no file of the home folder and in no output.
            let files = FileManager.default.enumerator(at: home.url, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard let data = try? Data(contentsOf: file) else { continue }
                #expect(!String(decoding: data, as: UTF8.self).contains(password), "\(file.lastPathComponent)")
            }
            for result in [login, overview, budget, usage] {
                #expect(!result.output.contains(password) && !result.errors.contains(password))
            }
            let logout = try await companion(["certain", "logout"])
            #expect(logout.status == 0, "\(logout.errors)")
            #expect(try await companion(["certain", "accounts"]).status == 1)
        }

        @Test(
            "C-LOOK-4 C-MONEY-1: transactions show tags (the placeholder for an unknown one); a yen amount has no decimals"
        )
        func transactionsShowTagsAndMinorUnits() async throws {
            try await server.reset("edge")
            _ = try await login()
            let text = try await companion(["certain", "transactions", "--search", "Ramen", "--lang", "en"])
            #expect(text.status == 0, "\(text.errors)")
            #expect(
                text.output.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "9 Oct 2026  Ramen Ichiran  -¥1,850  #Urlaub #Unknown")
            let german = try await companion(["certain", "transactions", "--search", "Ramen", "--lang", "de"])
            #expect(german.output.contains("-1.850\u{00A0}¥  #Urlaub #Unbekannt"), "\(german.output)")
            let report = try json(
                try await companion(["certain", "transactions", "--search", "Ramen", "--json", "--lang", "en"]))
            let row = try #require(((report["value"] as? [String: Any])?["rows"] as? [[String: Any]])?.first)
            #expect(row["tag_names"] as? [String] == ["Urlaub", "Unknown"])
            #expect((row["tag_ids"] as? [Any])?.count == 2)
            #expect(row["amount"] as? String == "-1850.00" && row["currency"] as? String == "JPY")
            #expect(row["title"] as? String == "Ramen Ichiran")
            let empty = try await companion(["certain", "transactions", "--search", "nothing matches", "--lang", "en"])
            #expect(empty.status == 0 && empty.output.contains("No transactions found."), "\(empty.output)")
            let emptyJSON = try json(
                try await companion(["certain", "transactions", "--search", "nothing matches", "--json"]))
            #expect(emptyJSON["state"] as? String == "empty")
        }

        @Test(
            "Issue 37 items 1 and 2, C-CON-1, C-BUD-9, C-ERR-1, C-TOK-6, C-ADDR-4: what is left out is shown; a CHF contract in CHF; an empty month exits 0; signing in again needs no address"
        )
        func theTerminalShowsWhatAPersonNeeds() async throws {
            try await server.reset()
            let (_, password) = try await login()
            // Item 1: this month's budget names the gym contract (no category): the overview says the month's
            // figures are incomplete and names it, in the text and in --json.
            let overview = try await companion(["certain", "overview", "--json", "--lang", "en"])
            #expect(overview.status == 0, "\(overview.errors)")
            expectDocumentedShape(overview.output, "certain overview")
            let value = try #require(try json(overview)["value"] as? [String: Any])
            #expect(value["incomplete"] as? Bool == true)
            #expect((value["notices"] as? [String])?.contains { $0.contains("Fitnessstudio") } == true, "\(value)")
            let text = try await companion(["certain", "overview", "--lang", "en"])
            #expect(text.output.contains("This month's totals are incomplete."), "\(text.output)")
            #expect(text.output.contains("Fitnessstudio"), "\(text.output)")
            // C-CON-1: the CHF contract shows its own amount in its own currency, not euros.
            let contracts = try await companion(["certain", "contracts", "--lang", "en"])
            let skiing = try #require(contracts.output.split(separator: "\n").first { $0.hasPrefix("Skipass-Abo") })
            let francs = Money(try #require(Amount(exactly: "120.00")), "CHF").formatted(.english)
            #expect(skiing.contains(francs) && !skiing.contains("€"), "\(skiing)")
            let contractsJSON = try await companion(["certain", "contracts", "--json"])
            expectDocumentedShape(contractsJSON.output, "certain contracts")
            // C-ERR-1: a month without a budget is empty, exit 0, its sentence once; in --json too.
            let empty = try await companion(["certain", "budget", "--month", "2026-09", "--lang", "en"])
            #expect(empty.status == 0, "\(empty.errors)")
            #expect(empty.output.components(separatedBy: "There is no budget for this month.").count == 2)
            #expect(empty.output.components(separatedBy: "September 2026").count == 2, "\(empty.output)")
            let emptyJSON = try await companion(["certain", "budget", "--month", "2026-09", "--json"])
            #expect(emptyJSON.status == 0)
            #expect(try json(emptyJSON)["state"] as? String == "empty")
            expectDocumentedShape(emptyJSON.output, "certain budget")
            let october = try await companion(["certain", "budget", "--month", "2026-10", "--json"])
            expectDocumentedShape(october.output, "certain budget")
            let accounts = try await companion(["certain", "accounts", "--json"])
            expectDocumentedShape(accounts.output, "certain accounts")
            let transactions = try await companion(["certain", "transactions", "--limit", "5", "--json"])
            expectDocumentedShape(transactions.output, "certain transactions")
            let tokens = try await companion(["certain", "tokens", "--json"])
            expectDocumentedShape(tokens.output, "certain tokens")
            // Item 2: revoked from the web; the address is kept, and signing in again needs none.
            try await server.revokeFromTheWeb(id: try #require(try json(tokens)["id"] as? String))
            let refused = try await companion(["certain", "accounts", "--lang", "en"])
            #expect(refused.status == 1)
            #expect(refused.errors.contains("`companion certain login`"), "\(refused.errors)")
            let again = try await companion(
                ["certain", "login", "--user", "plain", "--password-stdin"], input: password + "\n")
            #expect(again.status == 0, "\(again.errors)")
            #expect(again.errors.contains("Signing in again at http://127.0.0.1"), "\(again.errors)")
            #expect(try await companion(["certain", "accounts"]).status == 0)
        }

        @Test("C-TOK-6 C-OFF-5: a reverse proxy's 403 page keeps the user signed in and the offline copy shown")
        func aProxyPageKeepsTheSignIn() async throws {
            try await server.reset()
            _ = try await login()
            #expect(try await companion(["certain", "accounts"]).status == 0)
            try await server.post(
                "/_control/fail",
                [
                    "path": "/api/accounts", "status": 403, "times": 1,
                    "body": .string(RevocationTests.proxyPage), "content_type": "text/html",
                ])
            let refused = try await companion(["certain", "accounts", "--lang", "en"])
            #expect(refused.status == 0, "\(refused.errors)")
            #expect(
                refused.errors.contains("Not up to date") && refused.errors.contains("403 Forbidden"),
                "\(refused.errors)")
            #expect(refused.output.contains("Girokonto"), "\(refused.output)")
            // Still signed in: the next run is answered by the server.
            let again = try json(try await companion(["certain", "accounts", "--json"]))
            #expect(again["state"] as? String == "content")
        }
    }
}
