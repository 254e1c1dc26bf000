import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// Sending a message to a session with a runner, against the real Omnigent 0.19.1 server: the runner is the stand-in
/// of `Servers/omnigent/stub_runner.py`, bound through the server's own runner API, so the acknowledgement the core
/// reads is the server's own.
@Suite("Omnigent send with a runner bound", .serialized)
@MainActor
struct RunnerSendTests {
    /// A new session of the server's `debby` agent with `labels`; its id.
    static func createSession(_ client: Client, title: String, labels: [String: String] = [:]) async throws -> String {
        let agents = try await client.send(OmnigentAPI.agents())
        let agent = try #require(agents.data.first(where: { $0.name == "debby" }) ?? agents.data.first)
        var body: [String: JSONValue] = ["agent_id": .string(agent.id), "title": .string(title)]
        if !labels.isEmpty { body["labels"] = .object(labels.mapValues(JSONValue.string)) }
        let session = try await client.send(Request<JSONValue>.post("/v1/sessions", body: JSONValue.object(body)))
        return try #require(session["id"]?.stringValue)
    }

    /// The label 0.19.1 reads as a session on Claude Code's native terminal (`omnigent.wrapper`).
    static let nativeTerminal = ["omnigent.wrapper": "claude-code-native-ui"]

    @Test("O-WATCH-4: a message handed to a bound runner (0.19.1 answers queued: true, no pending_id) is sent")
    func handedToTheRunnerIsSent() async throws {
        let url = try TestServers.omnigent()
        let server = try await OmnigentFixture.server(url, environment: OmnigentFixture.environment())
        let id = try await Self.createSession(server.client, title: "runner bound")
        let runner = try await OmnigentStubRunner.bind(url, sessions: [id])
        let model = SessionDetailModel(server: server, sessionID: id)
        await model.updateDraft("Handed over")
        await model.send()
        let requests = runner.stop()
        #expect(model.sendProblem == nil, "\(model.sendProblem ?? "")")
        #expect(model.sent.map(\.status) == [.sent], "the server's queued: true is no wait")
        #expect(model.sent.first?.text == "Handed over" && model.draft.isEmpty)
        #expect(requests.contains("request POST /v1/sessions/\(id)/events"), "the runner got it: \(requests)")
    }

    @Test("O-WATCH-4: a message the server holds as a pending input (its ack carries pending_id) shows as pending")
    func heldWithAPendingIDIsPending() async throws {
        let url = try TestServers.omnigent()
        let server = try await OmnigentFixture.server(url, environment: OmnigentFixture.environment())
        let id = try await Self.createSession(server.client, title: "native runner", labels: Self.nativeTerminal)
        let runner = try await OmnigentStubRunner.bind(url, sessions: [id])
        defer { runner.stop() }
        let model = SessionDetailModel(server: server, sessionID: id)
        await model.updateDraft("Waits its turn")
        await model.send()
        #expect(model.sendProblem == nil, "\(model.sendProblem ?? "")")
        guard case .pending(let pendingID) = model.sent.first?.status else {
            Issue.record("expected pending, got \(model.sent.map(\.status))")
            return
        }
        // The id is the server's own: its session lists the message as that pending input until a turn takes it.
        await model.refresh()
        let held = model.state.value?.session.pendingInputs ?? []
        #expect(held.map(\.id) == [pendingID], "\(held)")
        #expect(held.first?.text == "Waits its turn")
    }
}
