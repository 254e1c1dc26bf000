import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@Suite("Request values: factories, bodies encoded at send, replies of any status, secure defaults")
struct RequestTests {
    private struct Note: Codable, Sendable, Equatable {
        let text: String
        let at: Date
    }

    private func client(_ transport: ScriptedTransport, policy: TransportPolicy = .httpsOnly) throws -> Client {
        let url = try #require(URL(string: "https://api.example.com/mount"))
        return Client(
            baseURL: url,
            configuration: Client.Configuration(
                retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1)), transportPolicy: policy,
                sleeper: RecordingSleeper(), random: SeededRandomSource(seed: 3)),
            transport: transport)
    }

    @Test func aDefaultClientRefusesPlainHTTP() async throws {
        let url = try #require(URL(string: "http://example.com"))
        let client = Client(baseURL: url)
        await #expect {
            _ = try await client.send(Request<JSONValue>.get("/"))
        } throws: { error in
            guard case .insecureTransport = error as? HTTPError else { return false }
            return true
        }
    }

    @Test func loopbackHTTPOnlyWhenTheCallerOptsIn() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:9"))
        let strict = Client(baseURL: url)
        #expect(throws: HTTPError.self) { try strict.httpRequest(for: Request<JSONValue>.get("/x")) }
        let opted = Client(
            baseURL: url, configuration: Client.Configuration(transportPolicy: .allowingInsecureLoopback))
        #expect(try opted.httpRequest(for: Request<JSONValue>.get("/x")).url.absoluteString == "http://127.0.0.1:9/x")
    }

    @Test func anEncodableBodyIsEncodedAtSendWithTheKitsDateRules() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"text":"ok","at":"2026-10-01T08:00:00Z"}"#)])
        let note = Note(text: "hi/there", at: Date(timeIntervalSince1970: 1_790_000_000.25))
        let reply = try await client(transport).send(Request<Note>.post("/notes", body: note))
        #expect(reply.text == "ok")
        let sent = try #require(transport.requests.first)
        #expect(sent.method == .post)
        #expect(sent.headers["Content-Type"] == "application/json")
        let body = String(decoding: try #require(sent.body), as: UTF8.self)
        #expect(body == #"{"at":"2026-09-21T14:13:20.250Z","text":"hi/there"}"#)
    }

    @Test func formBodiesAreURLEncodedInNameOrder() throws {
        let request = Request<JSONValue>.post("/login", form: ["user": "ada lovelace", "code": "a&b=c/é"])
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: try #require(request.body), as: UTF8.self) == "code=a%26b%3Dc%2F%C3%A9&user=ada+lovelace")
    }

    @Test func factoriesSetMethodPathAndQuery() throws {
        let get = Request<JSONValue>.get("/items", query: ["q": "a b", "skip": nil])
        #expect(get.method == .get && get.query == [URLQueryItem(name: "q", value: "a b")])
        #expect(Request<JSONValue>.delete("/items/1").method == .delete)
        #expect(Request<JSONValue>.put("/items/1", body: ["a": 1]).method == .put)
        #expect(Request<JSONValue>.patch("/items/1", body: ["a": 1]).jsonBody != nil)
    }

    @Test func replyReturnsAnyStatusWithTheServersSentence() async throws {
        let transport = ScriptedTransport([
            .respond(
                status: 401, headers: ["Content-Type": "application/json"],
                body: #"{"detail":"Falscher Code."}"#)
        ])
        let reply = try await client(transport).reply(Request<JSONValue>.post("/login", body: ["code": "1"]))
        #expect(reply.status == 401)
        #expect(reply.failure?.description.contains("Falscher Code.") == true)
        #expect(throws: HTTPError.self) { try reply.value() }
        #expect(try reply.decode(JSONValue.self)["detail"]?.stringValue == "Falscher Code.")
    }

    @Test func aRequestsOwnRetryPolicyReplacesTheClients() async throws {
        let transport = ScriptedTransport([.respond(status: 503), .respond(status: 200, body: "{}")])
        let once = Request<JSONValue>.get("/flaky").retrying(.never)
        await #expect(throws: HTTPError.self) { try await client(transport).send(once) }
        #expect(transport.requests.count == 1)
        let retried = try await client(transport).send(Request<JSONValue>.get("/flaky"))
        #expect(retried == .object([:]))
    }
}
