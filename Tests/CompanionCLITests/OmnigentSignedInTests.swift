import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// "Signed in, then refused": after `companion login` on Omnigent in accounts mode, every
/// `companion omnigent …` command sends the credential stored for that server, and `whoami` accepts the
/// address it was signed in to. Drives the built binary with a temporary home.
@Suite(.serialized)
struct OmnigentSignedInTests {
    let program: URL
    let home: URL

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-omnigent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], input: String = "") async throws -> ProgramRun.Result {
        var environment = ["HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        environment["LANG"] = "C.UTF-8"
        return try await ProgramRun.run(program, arguments, environment: environment, input: input)
    }

    func succeeds(_ arguments: String..., input: String = "") async throws -> ProgramRun.Result {
        let result = try await run(arguments, input: input)
        #expect(
            result.status == 0,
            "companion \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        return result
    }

    @Test("login, then every omnigent command on that server uses the stored credential (O-AUTH-3/5)")
    func omnigentCommandsUseTheStoredSignIn() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try TestServers.url("OMNIGENT_ACCOUNTS_URL").absoluteString
        let user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let password = try String(
            contentsOfFile: try TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)

        // Before signing in, the server refuses: the commands really talk to an accounts-mode server.
        let refused = try await run(["omnigent", "sessions", "--server", server])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("Authentication required"), "\(refused.errors)")
        // Issue 34 (one screen printer): the refusal is the failed screen report, which says to sign in again.
        let refusedJSON = try await run(["omnigent", "sessions", "--server", server, "--json"])
        #expect(refusedJSON.status == 1)
        expectDocumentedShape(refusedJSON.output, "omnigent screen failed")
        let report = try #require(JSONValue(data: Data(refusedJSON.output.utf8)))
        #expect(report["sign_in_required"] == true, "\(refusedJSON.output)")
        #expect(refused.errors.contains("`companion login \(server)`"), "\(refused.errors)")

        let login = try await succeeds(
            "login", server, "--user", user, "--password-stdin", input: password + "\n")
        #expect(login.output.contains("Signed in"))
        let whoami = try await succeeds("whoami", server)
        #expect(whoami.output.contains(user))
        let elsewhere = try await run(["whoami", try TestServers.omnigent().absoluteString])
        #expect(elsewhere.status == 1)
        #expect(elsewhere.errors.contains("not signed in to"), "\(elsewhere.errors)")

        // Every omnigent command: list, then (remembered server) rename, archive, show, watch, send.
        _ = try await succeeds("omnigent", "sessions", "--server", server, "--json")
        let session = try await createSession(server: server, user: user, password: password)
        let listed = try await succeeds("omnigent", "sessions", "--json", "--archived")
        #expect(listed.output.contains(session))
        _ = try await succeeds("omnigent", "rename", session, "Renamed from the terminal")
        _ = try await succeeds("omnigent", "archive", session, "--undo")
        let shown = try await succeeds("omnigent", "show", session, "--json")
        #expect(shown.output.contains("Renamed from the terminal"))
        _ = try await succeeds("omnigent", "watch", session, "--events", "1", "--all")
        // A session without a runner refuses a message with the server's sentence, not a 401.
        let sent = try await run(["omnigent", "send", session, "Hello"])
        #expect(!sent.errors.contains("Authentication required"), "\(sent.errors)")
        #expect(!(sent.output + sent.errors).contains(password))
    }

    /// A session owned by `user`, made straight on the wire (the terminal client has no "create"): the
    /// test's own sign-in, so the one under test stays untouched.
    func createSession(server: String, user: String, password: String) async throws -> String {
        func call(_ method: String, _ path: String, token: String?, body: [String: Any]?) async throws -> [String: Any]
        {
            var request = URLRequest(url: try #require(URL(string: server + path)))
            request.httpMethod = method
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            if let body {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
            }
            let (data, _) = try await URLSession.shared.data(for: request)
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let login = try await call("POST", "/auth/login", token: nil, body: ["username": user, "password": password])
        let token = try #require(login["token"] as? String)
        let agents = try await call("GET", "/v1/agents", token: token, body: nil)
        let agent = try #require((agents["data"] as? [[String: Any]])?.first?["id"] as? String)
        let session = try await call(
            "POST", "/v1/sessions", token: token,
            body: ["agent_id": agent, "title": "terminal \(UUID().uuidString.prefix(6))"])
        return try #require(session["id"] as? String)
    }
}
