import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One sign-in across an access-token expiry: `companion login` on Omnigent in accounts mode whose login
/// tokens expire at once (`Servers/omnigent-expiring`), then every `companion omnigent …` command works
/// after the token expired, because the stored refresh token renews it (O-AUTH-5), and the watch client's
/// cookie is made from the renewed token. Drives the built binary with a temporary home.
@Suite(.serialized)
struct OmnigentTokenExpiryTests {
    let program: URL
    let home: URL
    let server: String
    let user: String
    let password: String

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-expiry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        server = try TestServers.url("OMNIGENT_EXPIRING_URL").absoluteString
        user = try TestServers.value("OMNIGENT_EXPIRING_USER")
        password = try String(
            contentsOfFile: try TestServers.value("OMNIGENT_EXPIRING_PASSWORD_FILE"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func run(_ arguments: [String], input: String = "") async throws -> ProgramRun.Result {
        let environment = [
            "HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
        return try await ProgramRun.run(program, arguments, environment: environment, input: input)
    }

    @discardableResult
    func succeeds(_ arguments: String..., input: String = "") async throws -> ProgramRun.Result {
        let result = try await run(arguments, input: input)
        #expect(
            result.status == 0,
            "companion \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        #expect(!(result.output + result.errors).contains(password))
        return result
    }

    /// A raw call with a bearer token; returns the status and the JSON body.
    func call(_ method: String, _ path: String, token: String?, body: [String: Any]? = nil) async throws -> (
        Int, [String: Any]
    ) {
        var request = URLRequest(url: try #require(URL(string: server + path)))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    @Test("login, the access token expires, every omnigent command still works (refreshed; O-AUTH-3/5)")
    func commandsWorkAcrossAnAccessTokenExpiry() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let login = try await succeeds("login", server, "--user", user, "--password-stdin", input: password + "\n")
        #expect(login.output.contains("Signed in"))

        // A token issued after the terminal's: once the server refuses it, the terminal's has expired too.
        let (_, issued) = try await call(
            "POST", "/auth/login", token: nil, body: ["username": user, "password": password, "issue_refresh": true])
        let probe = try #require(issued["token"] as? String)
        let deadline = Date().addingTimeInterval(10)
        var status = 200
        while status != 401, Date() < deadline {
            status = try await call("GET", "/v1/sessions?limit=1", token: probe).0
        }
        #expect(status == 401, "the login token of this server should expire within a second or two")

        // A session of this user, made with a renewed token of the test's own.
        let refresh = try #require(issued["refresh_token"] as? String)
        var form = URLRequest(url: try #require(URL(string: server + "/oauth/token")))
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.httpBody = Data("grant_type=refresh_token&refresh_token=\(refresh)&client_id=ai.omnigent.ios".utf8)
        let renewed = try JSONSerialization.jsonObject(with: try await URLSession.shared.data(for: form).0)
        let fresh = try #require((renewed as? [String: Any])?["access_token"] as? String)
        let (_, agents) = try await call("GET", "/v1/agents", token: fresh)
        let agent = try #require((agents["data"] as? [[String: Any]])?.first?["id"] as? String)
        let (_, created) = try await call(
            "POST", "/v1/sessions", token: fresh,
            body: ["agent_id": agent, "title": "expiry \(UUID().uuidString.prefix(6))"])
        let session = try #require(created["id"] as? String)

        // Every omnigent command, on the expired sign-in: each renews (or reuses the renewed) token.
        let listed = try await succeeds("omnigent", "sessions", "--server", server, "--json")
        #expect(listed.output.contains(session))
        try await succeeds("whoami", server)
        try await succeeds("omnigent", "rename", session, "Renamed after expiry")
        try await succeeds("omnigent", "archive", session)
        try await succeeds("omnigent", "archive", session, "--undo")
        let shown = try await succeeds("omnigent", "show", session, "--json")
        #expect(shown.output.contains("Renamed after expiry"))
        try await succeeds("omnigent", "watch", session, "--events", "1", "--all")
        let sent = try await run(["omnigent", "send", session, "Hello after expiry"])
        #expect(!sent.errors.contains("Authentication required"), "\(sent.errors)")
        // The watch client gets the cookie the phone would sync: the renewed token.
        let watch = try await succeeds("omnigent", "watch-client", "sessions", "--json")
        #expect(watch.output.contains(session))
        let report = try #require(JSONValue(data: Data(watch.output.utf8)))
        #expect(report["screen"] == "watch/sessions" && report["state"] == "content")
        try await succeeds("omnigent", "watch-client", "show", session, "--json")
    }
}
