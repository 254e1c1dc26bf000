import CertainCore
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

extension CertainServer {
    /// `companion certain …` end to end: the built binary against the reference server, with a fresh home.
    @Suite struct CommandLineTests {
        let server: ReferenceServer
        let program: URL
        let home: URL

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
            program = try ProgramRun.executable("companion")
            home = FileManager.default.temporaryDirectory.appendingPathComponent("certain-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        }

        func companion(_ arguments: [String], input: String = "") async throws -> ProgramRun.Result {
            let environment = [
                "COMPANION_HOME": home.path, "HOME": home.path, "LANG": "C.UTF-8",
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            ]
            return try await ProgramRun.run(program, arguments, environment: environment, input: input)
        }

        func json(_ result: ProgramRun.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        @Test("C-TOK-4 C-TEXT-3 C-TOK-3: certain login, overview, budget, transactions; no password anywhere")
        func theTerminalClientRunsTheScreens() async throws {
            defer { try? FileManager.default.removeItem(at: home) }
            let password = try await server.password("plain")
            let login = try await companion(
                ["certain", "login", server.url.absoluteString, "--user", "plain", "--password-stdin"],
                input: password + "\n")
            #expect(login.status == 0, "\(login.errors)")
            #expect(login.output.hasPrefix("Signed in as plain"), "\(login.output)")  // the name typed, not an id
            // LANG=C: neither German nor English → German texts.
            let overview = try await companion(["certain", "overview"])
            #expect(overview.status == 0, "\(overview.errors)")
            #expect(overview.output.contains("Dieser Monat"))
            let report = try json(try await companion(["certain", "overview", "--json", "--lang", "en"]))
            #expect(report["screen"] as? String == "overview")
            #expect(report["state"] as? String == "content")
            #expect((report["value"] as? [String: Any])?["latest"] as? [Any] != nil)
            let budget = try await companion(["certain", "budget", "--month", "2026-10", "--prev", "--lang", "en"])
            #expect(budget.output.hasPrefix("August 2026"), "\(budget.output)")
            // The footer names the neighbouring months, not the raw links.
            #expect(!budget.output.contains("/api/budget"), "\(budget.output)")
            let search = try json(try await companion(["certain", "transactions", "--search", "Sparen", "--json"]))
            let rows = try #require((search["value"] as? [String: Any])?["rows"] as? [[String: Any]])
            #expect(rows.contains { $0["kind"] as? String == "transfer" && $0["complete"] as? Bool == true })
            let usage = try await companion(["certain", "transactions", "--limit", "999"])
            #expect(usage.status == 2)
            // C-TOK-3: after the mint only the token travels (the one cookie logout aside).
            let log = try await server.requests()
            let mint = try #require(log.lastIndex { $0.path == "/api/inbox/tokens" })
            #expect(log[(mint + 1)...].filter(\.cookie).map(\.path) == ["/api/auth/logout"])
            // C-TOK-4: the password is in no file of the home folder and in no output.
            let files = FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil)
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
    }
}
