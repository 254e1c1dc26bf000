import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// Shared helpers: clients for the loopback servers, control endpoints, and the secret scan.
enum Fixture {
    static let policy = TransportPolicy.allowingInsecureLoopback

    static func client(_ url: URL, journal: Journal, middlewares: [any Middleware] = []) -> Client {
        Client(
            baseURL: url,
            configuration: Client.Configuration(
                retryPolicy: .never, middlewares: middlewares, transportPolicy: policy, journal: journal))
    }

    static func address(_ url: URL) throws -> ServerAddress {
        try ServerAddress(parsing: url.absoluteString, policy: policy)
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("companion-auth-\(UUID().uuidString)")
    }
}

/// Fails if any of `secrets` appears in the journal's export or in any of `texts`.
func expectNoSecrets(
    _ secrets: [String], journal: Journal, texts: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
) {
    let exported = String(decoding: journal.exportJSONLines(), as: UTF8.self)
    for secret in secrets where secret.count >= 6 {
        #expect(!exported.contains(secret), "a secret reached the journal", sourceLocation: sourceLocation)
        for text in texts {
            #expect(!text.contains(secret), "a secret reached an error description", sourceLocation: sourceLocation)
        }
    }
}

/// The Certain stand-in's control endpoints.
struct CertainControl {
    let url: URL
    let client: Client

    init() async throws {
        url = try TestServers.url("CERTAIN_URL")
        client = Fixture.client(url, journal: Journal())
    }

    func reset() async throws {
        _ = try await client.send(Request<JSONValue>.post("/_control/reset", body: ["fixture": "default"]))
    }

    func password(_ user: String) async throws -> String {
        try #require(
            try await client.send(Request<JSONValue>.get("/_control/fixture"))["passwords"]?[user]?.stringValue)
    }

    func recoveryCodes(_ user: String) async throws -> [String] {
        let fixture = try await client.send(Request<JSONValue>.get("/_control/fixture"))
        return (fixture["recovery_codes"]?[user]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    func totp(_ user: String, offset: Int = 0) async throws -> String {
        try #require(
            try await client.send(Request<JSONValue>.get("/_control/totp/\(user)?offset=\(offset)"))["code"]?
                .stringValue)
    }

    func requests() async throws -> [JSONValue] {
        try await client.send(Request<JSONValue>.get("/_control/requests")).arrayValue ?? []
    }

    func counters() async throws -> JSONValue { try await client.send(Request<JSONValue>.get("/_control/counters")) }

    func post(_ path: String, _ body: [String: JSONValue]) async throws {
        _ = try await client.send(Request<JSONValue>.post(path, body: JSONValue.object(body)))
    }
}
