import CompanionTestSupport
import Foundation
import Testing

/// `companion journal --html FILE`: after real commands against the fault server and a real sign-in, the page
/// is written 0600, opens in headless Chromium with one entry per journal line, and holds no secret of the run
/// (the sign-in password, the token the server minted).
@Suite(.serialized)
struct JournalHTMLTests {
    @Test("journal --html writes a private page that renders every event in Chromium, with no secret in its DOM")
    func pageRendersWithoutSecrets() async throws {
        let program = try ProgramRun.executable("companion")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "COMPANION_HOME": home.appendingPathComponent("state").path, "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        func companion(_ arguments: String..., input: String = "") async throws -> ProgramRun.Result {
            try await ProgramRun.run(program, arguments, environment: environment, input: input)
        }

        let accounts = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try String(
            contentsOfFile: try TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let login = try await companion(
            "login", accounts.absoluteString, "--server", "omnigent", "--user", user, "--password-stdin",
            input: password + "\n")
        #expect(login.status == 0, "\(login.errors)")
        let fault = try TestServers.fault()
        #expect(try await companion("get", fault.absoluteString, "/json", "--fresh").status == 0)
        _ = try await companion("get", fault.absoluteString, "/status/404", "--fresh")

        let lines = try await companion("journal", "--json").output.split(separator: "\n").count
        #expect(lines >= 2)
        let page = home.appendingPathComponent("journal.html")
        let wrote = try await companion("journal", "--html", page.path)
        #expect(wrote.status == 0, "\(wrote.errors)")
        #expect(wrote.output.contains("Wrote \(lines) events"))
        let mode = try FileManager.default.attributesOfItem(atPath: page.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let dom = try await Chromium.dumpDOM(page)
        #expect(dom.contains("data-shown=\"\(lines)\""))
        #expect(dom.matches(of: /<li [^>]*>/).count == lines)
        #expect(!dom.contains(password))
        #expect(dom.firstMatch(of: /eyJ[A-Za-z0-9_-]{8,}\.eyJ/) == nil, "a token reached the page")

        let usage = try await companion("journal", "--html", page.path, "--json")
        #expect(usage.status == 2)
    }
}
