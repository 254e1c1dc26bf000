import CompanionCore
import CompanionHTTP
import Foundation
import Testing

/// Secure by default: a client made with the default configuration speaks https only.
@Suite("Secure defaults")
struct SecureDefaultTests {
    @Test func aDefaultClientRefusesPlainHTTP() async throws {
        let client = Client(baseURL: try #require(URL(string: "http://example.com")))
        #expect(client.configuration.transportPolicy == .httpsOnly)
        await #expect {
            _ = try await client.send(Request<JSONValue>.get("/api/version"))
        } throws: { error in
            guard case .insecureTransport = error as? HTTPError else { return false }
            return true
        }
    }

    @Test func loopbackHTTPNeedsTheExplicitOptIn() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:9"))
        await #expect {
            _ = try await Client(baseURL: url).send(Request<JSONValue>.get("/"))
        } throws: { error in
            guard case .insecureTransport = error as? HTTPError else { return false }
            return true
        }
    }
}
