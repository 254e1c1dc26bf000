import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

@testable import OmnigentCore

/// The connector's manifest read and the sessions request's defaults, as values on a scripted transport: no
/// server here drops a manifest read once, so the transport plays the dropped connection.
@Suite("Omnigent connector and request defaults")
struct ConnectorRequestTests {
    @Test("The manifest read meets a dropped connection once, is tried again, and the server is connected")
    func manifestReadIsTriedAgainAfterADrop() async throws {
        let manifest = try String(decoding: ModelTests.fixture("well-known-omnigent"), as: UTF8.self)
        let transport = ScriptedTransport([
            .fail(.connectionLost(url: "http://127.0.0.1:9/.well-known/omnigent", receivedBytes: 0)),
            .respond(status: 200, headers: ["Content-Type": "application/json"], body: manifest),
        ])
        let environment = TestEnvironments.loopback(sleeper: RecordingSleeper(), transport: transport)
        let address = try environment.address("http://127.0.0.1:9")
        let connection = try await OmnigentConnector.connect(address, environment: environment)
        #expect(connection.manifest != nil)
        #expect(transport.requests.count == 2, "one drop, one more attempt")
    }

    @Test("O-WATCH-1: the sessions list asks for 20 a page unless told otherwise")
    func sessionsAskForTwentyByDefault() throws {
        let client = TestClients.loopback(try #require(URL(string: "http://127.0.0.1:9")))
        let url = try client.httpRequest(for: OmnigentAPI.sessions()).url
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "limit" }?.value == "20")
    }
}
