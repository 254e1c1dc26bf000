import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// `companion omnigent` against the real 0.19.1 server in header mode: the list grouped by project as its summary
/// promises, every page to the end, and the watch's approvals answered from the terminal.
@Suite(.serialized)
struct OmnigentCLITests {
    let program: URL
    let home: URL

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-omni-cli-\(UUID().uuidString)")
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

    /// A new session of the server's first agent, titled `title`; its id.
    func createSession(_ client: Client, title: String) async throws -> String {
        let agents = try await client.send(Request<JSONValue>.get("/v1/agents"))
        let agent = try #require(agents["data"]?[0]?["id"]?.stringValue)
        let session = try await client.send(
            Request<JSONValue>.post(
                "/v1/sessions", body: JSONValue.object(["agent_id": .string(agent), "title": .string(title)])))
        return try #require(session["id"]?.stringValue)
    }

    @Test("Item 4: `omnigent sessions` groups by project (read from /v1/sessions/projects); --all reads every page")
    func sessionsAreGroupedByProject() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let tag = "cli-\(UUID().uuidString.prefix(6))"
        let project = try await client.send(
            Request<JSONValue>.post("/v1/projects", body: JSONValue.object(["name": .string("Project \(tag)")])))
        let projectID = try #require(project["id"]?.stringValue)
        let filed = try await createSession(client, title: "\(tag) filed")
        _ = try await client.send(
            Request<JSONValue>.patch(
                "/v1/sessions/\(filed)", body: JSONValue.object(["project_id": .string(projectID)])))
        let loose = try await createSession(client, title: "\(tag) loose")
        let listed = try await succeeds("omnigent", "sessions", "--server", url.absoluteString, "--search", tag)
        let lines = listed.output.split(separator: "\n").map(String.init)
        let heading = try #require(lines.firstIndex(of: "Project \(tag)"), "a heading of the project: \(lines)")
        #expect(lines.count > heading + 1 && lines[heading + 1].contains(filed), "the filed session under it")
        let recent = try #require(lines.firstIndex(of: "Recent"), "\(lines)")
        #expect(lines.count > recent + 1 && lines[recent + 1].contains(loose))
        // One session a page: --all reads the second page too.
        let paged = try await succeeds("omnigent", "sessions", "--search", tag, "--limit", "1", "--all", "--json")
        let report = try #require(JSONValue(data: Data(paged.output.utf8)))
        #expect(report["value"]?["has_more"] == false, "every page read")
        let sessions = try #require(report["value"]?["sessions"]?.arrayValue)
        #expect(Set(sessions.compactMap { $0["id"]?.stringValue }) == [filed, loose])
    }

    @Test("Item 9 (O-WATCH-5): `watch-client decline` and `approve` answer the approvals `show` offers")
    func theTerminalAnswersApprovals() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let id = try await createSession(client, title: "cli approvals")
        func ask(_ message: String) async throws -> String {
            let event: JSONValue = [
                "type": "mcp_elicitation",
                "data": ["message": .string(message), "requestedSchema": ["type": "object", "properties": [:]]],
            ]
            let ack = try await client.send(Request<JSONValue>.post("/v1/sessions/\(id)/events", body: event))
            return try #require(ack["elicitation_id"]?.stringValue)
        }
        let first = try await ask("Delete the branch?")
        let second = try await ask("Run the tests?")
        // The server publishes every resolution on the session's stream with the action it was given.
        let stream = client.events(
            Request<Void>.empty(.get, "/v1/sessions/\(id)/stream"), configuration: EventSourceConfiguration())
        let opened = Locked(false)
        let signal = ChangeSignal()
        let reading = Task { () -> [String: String] in
            var actions: [String: String] = [:]
            do {
                for try await event in stream {
                    if !opened.withLock({ $0 }) {
                        opened.withLock { $0 = true }
                        signal.changed()
                    }
                    let data = JSONValue(data: Data(event.data.utf8))
                    guard
                        event.event == "response.elicitation_resolved"
                            || data?["type"] == "response.elicitation_resolved",
                        let eid = data?["elicitation_id"]?.stringValue
                    else { continue }
                    actions[eid] = data?["action"]?.stringValue ?? "?"
                    if actions.count == 2 { break }
                }
            } catch {}
            return actions
        }
        let bound = Expiry(after: .seconds(30)) { reading.cancel() }
        #expect(await signal.wait(upTo: .seconds(20)) { opened.withLock { $0 } }, "the stream opened")
        let cookie = "ap_session=header-mode\n"
        let server = url.absoluteString
        let shown = try await succeeds(
            "omnigent", "watch-client", "show", id, "--server", server, "--cookie-stdin", input: cookie)
        #expect(shown.output.contains("approve? Delete the branch?"))
        let declined = try await succeeds(
            "omnigent", "watch-client", "decline", id, first, "--cookie-stdin", "--json", input: cookie)
        #expect(
            JSONValue(data: Data(declined.output.utf8))
                == ["state": "resolved", "approval": .string(first), "action": "decline"])
        let approved = try await succeeds(
            "omnigent", "watch-client", "approve", id, second, "--cookie-stdin", input: cookie)
        #expect(approved.output.contains("Approved."))
        let actions = await reading.value
        #expect(!bound.isExpired)
        #expect(actions == [first: "decline", second: "accept"], "the server's own record of each answer")
        let after = try await succeeds("omnigent", "watch-client", "show", id, "--cookie-stdin", input: cookie)
        #expect(!after.output.contains("approve?"), "both answered: \(after.output)")
        // An approval the watch does not offer is refused with a sentence, exit 1.
        let unknown = try await run(
            ["omnigent", "watch-client", "approve", id, "elicit_none", "--cookie-stdin"], input: cookie)
        #expect(unknown.status == 1 && unknown.errors.contains("offers no approval"))
    }

    @Test("CLI-JSON: every `companion omnigent` command prints what docs/cli-json.md documents")
    func jsonShapes() async throws {
        let url = try TestServers.omnigent()
        let client = TestClients.loopback(url)
        let server = url.absoluteString
        let id = try await createSession(client, title: "cli json")
        _ = try await client.send(
            Request<JSONValue>.post(
                "/v1/sessions/\(id)/events",
                body: JSONValue.object([
                    "type": "external_assistant_message", "data": ["agent": "debby", "text": "Shaped."],
                ])))
        let approval = try await client.send(
            Request<JSONValue>.post(
                "/v1/sessions/\(id)/events",
                body: JSONValue.object([
                    "type": "mcp_elicitation",
                    "data": ["message": "Go?", "requestedSchema": ["type": "object", "properties": [:]]],
                ])))
        let eid = try #require(approval["elicitation_id"]?.stringValue)
        let sessions = try await succeeds("omnigent", "sessions", "--server", server, "--json")
        expectDocumentedShape(sessions.output, "omnigent sessions")
        let show = try await succeeds("omnigent", "show", id, "--json")
        expectDocumentedShape(show.output, "omnigent show")
        let watch = try await succeeds("omnigent", "watch", id, "--events", "1", "--all", "--json")
        expectDocumentedShape(watch.output, "omnigent watch", lines: true)
        let cookie = "ap_session=header-mode\n"
        let watchSessions = try await succeeds(
            "omnigent", "watch-client", "sessions", "--cookie-stdin", "--json", input: cookie)
        expectDocumentedShape(watchSessions.output, "omnigent watch-client sessions")
        let watchShow = try await succeeds(
            "omnigent", "watch-client", "show", id, "--cookie-stdin", "--json", input: cookie)
        expectDocumentedShape(watchShow.output, "omnigent watch-client show")
        // A server without a runner refuses the message: `failed`, exit 1, the JSON still printed.
        let send = try await run(
            ["omnigent", "watch-client", "send", id, "Hello", "--cookie-stdin", "--json"], input: cookie)
        #expect(send.status == 1)
        expectDocumentedShape(send.output, "omnigent watch-client send")
        let approve = try await succeeds(
            "omnigent", "watch-client", "approve", id, eid, "--cookie-stdin", "--json", input: cookie)
        expectDocumentedShape(approve.output, "omnigent watch-client approve")
        // Without a cookie the watch's screens fail as screens (the sign-in sentence, `sign_in_required`), its
        // actions with their own object; every one exits 1.
        let signIn = try await run(["omnigent", "watch-client", "sessions", "--json"])
        #expect(signIn.status == 1)
        expectDocumentedShape(signIn.output, "omnigent screen failed")
        let refused = try #require(JSONValue(data: Data(signIn.output.utf8)))
        #expect(refused["screen"] == "watch/sessions" && refused["sign_in_required"] == true)
        #expect(refused["reason"] == "Reopen Omnigent on your iPhone and sign in.")
        let signInText = try await run(["omnigent", "watch-client", "show", id])
        #expect(signInText.status == 1 && signInText.output.isEmpty)
        #expect(signInText.errors == "companion: Reopen Omnigent on your iPhone and sign in.\n", "\(signInText.errors)")
        let sendSignIn = try await run(["omnigent", "watch-client", "send", id, "Hello", "--json"])
        #expect(sendSignIn.status == 1)
        expectDocumentedShape(sendSignIn.output, "omnigent watch-client sign-in")
    }

    @Test("Issue 34 (one screen printer): an Omnigent screen that shows nothing prints the failed report, exit 1")
    func failedScreenIsTheReport() async throws {
        let server = try TestServers.omnigent().absoluteString
        let missing = String(repeating: "0", count: 32)
        let json = try await run(["omnigent", "show", missing, "--server", server, "--json"])
        #expect(json.status == 1, "\(json.errors)")
        expectDocumentedShape(json.output, "omnigent screen failed")
        let report = try #require(JSONValue(data: Data(json.output.utf8)))
        #expect(report["screen"] == "session" && report["state"] == "failed" && report["value"] == .null)
        let reason = try #require(report["reason"]?.stringValue)
        // The text prints nothing on standard output and the same sentence on standard error.
        let text = try await run(["omnigent", "show", missing])
        #expect(text.status == 1 && text.output.isEmpty)
        #expect(text.errors.contains(reason), "\(text.errors)")
        // The watch's show of the same session: its own screen, the same report shape.
        let watch = try await run(
            ["omnigent", "watch-client", "show", missing, "--cookie-stdin", "--json"], input: "ap_session=header-mode\n"
        )
        #expect(watch.status == 1)
        expectDocumentedShape(watch.output, "omnigent screen failed")
    }

    @Test("O-WATCH-4: `omnigent send` with a runner bound: queued: true is sent, a pending_id is queued (text, JSON)")
    func sendWithARunnerBound() async throws {
        let url = try TestServers.omnigent()
        let server = url.absoluteString
        let client = TestClients.loopback(url)
        let idle = try await createSession(client, title: "runner bound")
        // 0.19.1 reads this label as a session on Claude Code's native terminal: it holds a message sent there as
        // a pending input until the terminal's transcript takes it, and answers its pending_id.
        let agents = try await client.send(Request<JSONValue>.get("/v1/agents"))
        let agent = try #require(agents["data"]?[0]?["id"]?.stringValue)
        let created = try await client.send(
            Request<JSONValue>.post(
                "/v1/sessions",
                body: JSONValue.object([
                    "agent_id": .string(agent), "title": "native runner",
                    "labels": ["omnigent.wrapper": "claude-code-native-ui"],
                ])))
        let native = try #require(created["id"]?.stringValue)
        let runner = try await OmnigentStubRunner.bind(url, sessions: [idle, native])
        defer { runner.stop() }
        let sent = try await succeeds("omnigent", "send", idle, "Handed over", "--server", server)
        #expect(sent.output == "Sent.\n", "\(sent.output)")
        let sentJSON = try await succeeds("omnigent", "send", idle, "Again", "--server", server, "--json")
        expectDocumentedShape(sentJSON.output, "omnigent send")
        #expect(JSONValue(data: Data(sentJSON.output.utf8)) == ["state": "sent"], "\(sentJSON.output)")
        let queued = try await succeeds("omnigent", "send", native, "Waits", "--server", server)
        #expect(queued.output == "Queued behind the running turn.\n", "\(queued.output)")
        let pending = try await succeeds("omnigent", "send", native, "Waits too", "--server", server, "--json")
        let pendingOutput = pending.output
        expectDocumentedShape(pendingOutput, "omnigent send")
        let ack = try #require(JSONValue(data: Data(pendingOutput.utf8)))
        #expect(ack["state"] == "pending" && ack["pending_id"]?.stringValue?.hasPrefix("pending_") == true, "\(ack)")
    }
}
