import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The HTTP layer against the real Omnigent 0.19.1 server (header mode, single user).
@Suite("HTTP against a real Omnigent server", .serialized)
struct OmnigentHTTPTests {
    typealias Page = TestListPage

    struct Session: Decodable, Sendable {
        var id: String
        var title: String?
        var status: String?
        var createdAt: Date

        enum CodingKeys: String, CodingKey {
            case id, title, status
            case createdAt = "created_at"
        }
    }

    struct Agent: Decodable, Sendable {
        var id: String
        var name: String
    }

    private func client(_ journal: Journal = Journal()) throws -> Client {
        TestClients.loopback(try TestServers.omnigent(), retry: RetryPolicy(), journal: journal)
    }

    private func agentID(_ client: Client) async throws -> String {
        let agents = try await client.send(Request<Page<Agent>>.get("/v1/agents"))
        return try #require(agents.data.first(where: { $0.name == "debby" }) ?? agents.data.first).id
    }

    private func createSession(_ client: Client, title: String) async throws -> Session {
        struct Create: Encodable, Sendable {
            var agentID: String
            var title: String
            enum CodingKeys: String, CodingKey {
                case agentID = "agent_id"
                case title
            }
        }
        return try await client.send(
            Request<Session>.post("/v1/sessions", body: Create(agentID: try await agentID(client), title: title)))
    }

    @Test func probeReportsVersionAndManifest() async throws {
        let report = try await client().probe(manifestName: "omnigent")
        #expect(report.version == "0.19.1")
        #expect(report.manifest?["auth"]?["mode"]?.stringValue == "header")
        #expect(report.isReachable)
        #expect(report.summary.contains("0.19.1"))
    }

    @Test func probeOfANonServerSaysWhy() async throws {
        let client = TestClients.loopback(try #require(URL(string: "http://127.0.0.1:1")))
        let report = await client.probe(manifestName: "omnigent")
        #expect(!report.isReachable)
        #expect(report.steps.count == 1)
        #expect(report.summary.contains("Could not reach"))
    }

    @Test func sessionsListPagesWithCursors() async throws {
        let client = try client()
        let prefix = "paging-\(UUID().uuidString.prefix(6))"
        for index in 0..<5 { _ = try await createSession(client, title: "\(prefix) \(index)") }
        var seen: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let page = try await client.send(
                Request<Page<Session>>.get(
                    "/v1/sessions", query: ["limit": "2", "after": after, "search_query": prefix, "order": "asc"]))
            seen += page.data.map(\.id)
            after = page.hasMore ? page.lastID : nil
            pages += 1
        } while after != nil && pages < 10
        #expect(seen.count == 5)
        #expect(Set(seen).count == 5)
        #expect(pages == 3)
    }

    @Test func aPostedEventArrivesOverTheStream() async throws {
        let client = try client()
        let session = try await createSession(client, title: "sse \(UUID().uuidString.prefix(6))")
        #expect(session.createdAt.timeIntervalSince1970 > 1_700_000_000)
        let events = client.events(
            .empty(.get, "/v1/sessions/\(session.id)/stream"),
            configuration: EventSourceConfiguration(reconnects: false))
        let text = "Echo \(UUID().uuidString)"
        let received = Task {
            for try await event in events {
                if event.event == "session.presence" {
                    // The stream is open: post the event now.
                    let body = try JSONSerialization.data(withJSONObject: [
                        "type": "external_assistant_message", "data": ["agent": "debby", "text": text],
                    ])
                    let ack = try await client.send(
                        Request<JSONValue>(method: .post, path: "/v1/sessions/\(session.id)/events", body: body))
                    #expect(ack["item_id"]?.stringValue?.isEmpty == false)
                }
                if event.event == "response.output_item.done", event.data.contains(text) { return true }
            }
            return false
        }
        #expect(try await received.value)
    }

    @Test func notFoundCarriesOmnigentsEnvelope() async throws {
        await #expect {
            _ = try await client().send(Request<Session>.get("/v1/sessions/00000000000000000000000000000000"))
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.statusCode == 404 && error.envelope?.code == "not_found"
                && error.description.contains("The server said")
        }
    }

    @Test func validationErrorCarriesFastAPIFields() async throws {
        await #expect {
            _ = try await client().send(Request<Page<Session>>.get("/v1/sessions", query: ["limit": "0"]))
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.statusCode == 422 && error.envelope?.fieldProblems.first?.field == "query.limit"
        }
    }

    @Test func aRunnerlessTurnSurfacesTheServersSentence() async throws {
        let client = try client()
        let session = try await createSession(client, title: "runnerless")
        let body = Data(
            #"{"type":"message","data":{"role":"user","content":[{"type":"input_text","text":"hi"}]}}"#.utf8)
        await #expect {
            _ = try await client.send(
                Request<JSONValue>(method: .post, path: "/v1/sessions/\(session.id)/events", body: body))
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.statusCode == 503 && error.envelope?.code == "runner_unavailable"
                && error.envelope?.message == "No runner bound for session"
        }
    }

    @Test func groupFetchIsAllOrNothingWithOneTimestamp() async throws {
        let client = try client()
        let group = try await client.fetchGroup([
            "version": Request<JSONValue>.get("/api/version"),
            "sessions": Request<JSONValue>.get("/v1/sessions", query: ["limit": "1"]),
            "me": Request<JSONValue>.get("/v1/me"),
        ])
        #expect(group.members.count == 3)
        #expect(try group.decode(JSONValue.self, "version")["version"]?.stringValue == "0.19.1")
        await #expect {
            _ = try await client.fetchGroup([
                "version": Request<JSONValue>.get("/api/version"),
                "missing": Request<JSONValue>.get("/v1/sessions/nope"),
            ])
        } throws: { error in
            (error as? HTTPError)?.statusCode == 404
        }
    }
}
