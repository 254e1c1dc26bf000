import CompanionCore
import CompanionHTTP
import Foundation
import Testing

/// Helpers for sign-in tests: clients for the loopback servers, control endpoints, and the secret scan.
public enum SignInFixture {
    /// The policy the loopback servers need.
    public static let policy = TransportPolicy.allowingInsecureLoopback

    /// A client for `url` that never retries and allows loopback http.
    public static func client(_ url: URL, journal: Journal, middlewares: [any Middleware] = []) -> Client {
        Client(
            baseURL: url,
            configuration: Client.Configuration(
                retryPolicy: .never, middlewares: middlewares, transportPolicy: policy, journal: journal))
    }

    /// The server address of `url`.
    public static func address(_ url: URL) throws -> ServerAddress {
        try ServerAddress(parsing: url.absoluteString, policy: policy)
    }

    /// A fresh folder path under the temporary directory (not created).
    public static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("companion-auth-\(UUID().uuidString)")
    }
}

/// Fails if any of `secrets` appears in the journal's export or in any of `texts`.
public func expectNoSecrets(
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
public struct CertainControl: Sendable {
    /// The server.
    public let url: URL
    /// A client without credentials.
    public let client: Client

    /// Finds the server (`CERTAIN_URL`).
    public init() async throws {
        url = try TestServers.url("CERTAIN_URL")
        client = SignInFixture.client(url, journal: Journal())
    }

    /// Restores the default fixture.
    public func reset() async throws {
        _ = try await client.send(Request<JSONValue>.post("/_control/reset", body: ["fixture": "default"]))
    }

    /// The fixture password of `user`.
    public func password(_ user: String) async throws -> String {
        try #require(
            try await client.send(Request<JSONValue>.get("/_control/fixture"))["passwords"]?[user]?.stringValue)
    }

    /// The fixture recovery codes of `user`.
    public func recoveryCodes(_ user: String) async throws -> [String] {
        let fixture = try await client.send(Request<JSONValue>.get("/_control/fixture"))
        return (fixture["recovery_codes"]?[user]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// The TOTP code of `user` now (or `offset` steps away).
    public func totp(_ user: String, offset: Int = 0) async throws -> String {
        try #require(
            try await client.send(Request<JSONValue>.get("/_control/totp/\(user)?offset=\(offset)"))["code"]?
                .stringValue)
    }

    /// The requests the server saw.
    public func requests() async throws -> [JSONValue] {
        try await client.send(Request<JSONValue>.get("/_control/requests"))["items"]?.arrayValue ?? []
    }

    /// The server's counters.
    public func counters() async throws -> JSONValue {
        try await client.send(Request<JSONValue>.get("/_control/counters"))
    }

    /// Posts `body` to a control path.
    public func post(_ path: String, _ body: [String: JSONValue]) async throws {
        _ = try await client.send(Request<JSONValue>.post(path, body: JSONValue.object(body)))
    }
}
