import CompanionCore
import Foundation
import Testing

struct PolicyCase: Sendable, CustomTestStringConvertible {
    let url: String
    let insecureLoopback: Bool
    let error: TransportPolicyError?
    var testDescription: String {
        "\(url) insecure=\(insecureLoopback) → \(error.map(String.init(describing:)) ?? "ok")"
    }

    init(_ url: String, insecure: Bool = false, _ error: TransportPolicyError?) {
        self.url = url
        self.insecureLoopback = insecure
        self.error = error
    }
}

@Suite struct TransportPolicyTests {
    static let cases: [PolicyCase] = [
        PolicyCase("https://example.com/v1/sessions", nil),
        PolicyCase("https://example.com/v1/sessions", insecure: true, nil),
        PolicyCase("HTTPS://Example.com:8443/x", nil),
        PolicyCase("https://localhost:6767", nil),
        // Plain http to a remote host: never.
        PolicyCase("http://example.com/v1", .insecureHTTP(host: "example.com")),
        PolicyCase("http://example.com/v1", insecure: true, .insecureHTTP(host: "example.com")),
        PolicyCase("http://nas.home.example:8000", insecure: true, .insecureHTTP(host: "nas.home.example")),
        PolicyCase("http://localhost.example.com", insecure: true, .insecureHTTP(host: "localhost.example.com")),
        PolicyCase("http://127.0.0.1.nip.io", insecure: true, .insecureHTTP(host: "127.0.0.1.nip.io")),
        // Plain http to loopback: only when enabled.
        PolicyCase("http://localhost:6767/api", .insecureHTTP(host: "localhost")),
        PolicyCase("http://127.0.0.1:6767/api", .insecureHTTP(host: "127.0.0.1")),
        PolicyCase("http://[::1]:6767/api", .insecureHTTP(host: "[::1]")),
        PolicyCase("http://localhost:6767/api", insecure: true, nil),
        PolicyCase("http://127.0.0.1:6767/api", insecure: true, nil),
        PolicyCase("http://127.255.0.9/api", insecure: true, nil),
        PolicyCase("http://[::1]:6767/api", insecure: true, nil),
        PolicyCase("HTTP://LOCALHOST/api", insecure: true, nil),
        // Other schemes and broken hosts.
        PolicyCase("ftp://example.com", insecure: true, .unsupportedScheme("ftp")),
        PolicyCase("ws://localhost:6767", insecure: true, .unsupportedScheme("ws")),
        PolicyCase("file:///etc/hosts", insecure: true, .unsupportedScheme("file")),
        PolicyCase("https:///path", .invalidHost),
        PolicyCase("http://user:pw@localhost", insecure: true, .invalidHost),
    ]

    @Test(arguments: cases)
    func checks(_ row: PolicyCase) throws {
        let policy = TransportPolicy(allowsInsecureLoopback: row.insecureLoopback)
        let url = try #require(URL(string: row.url))
        if let error = row.error {
            #expect(throws: error) { try policy.check(url) }
            #expect(!policy.permits(url))
        } else {
            #expect(throws: Never.self) { try policy.check(url) }
            #expect(policy.permits(url))
        }
    }

    @Test func defaultIsHTTPSOnly() throws {
        #expect(TransportPolicy() == .httpsOnly)
        #expect(!TransportPolicy().allowsInsecureLoopback)
        #expect(TransportPolicy.allowingInsecureLoopback.allowsInsecureLoopback)
        let local = try #require(URL(string: "http://localhost"))
        #expect(!TransportPolicy().permits(local))
    }

    /// A development build's policy: plain http to loopback, and to any host whose `http://` was written out.
    @Test func developmentAllowsLoopbackAndWrittenOutHTTP() throws {
        let development = TransportPolicy.development
        #expect(development.allowsInsecureLoopback && development.allowsExplicitInsecureHTTP)
        #expect(development.permits(try #require(URL(string: "http://127.0.0.1:8080/omnigent"))))
        #expect(try ServerAddress(parsing: "http://127.0.0.1:8080", policy: development).url.scheme == "http")
        #expect(try ServerAddress(parsing: "http://intranet.example", policy: development).url.scheme == "http")
    }

    @Test func codable() throws {
        let data = try JSONEncoder().encode(TransportPolicy.allowingInsecureLoopback)
        #expect(try JSONDecoder().decode(TransportPolicy.self, from: data) == .allowingInsecureLoopback)
    }

    @Test func errorsReadAsSentences() {
        let errors: [TransportPolicyError] = [
            .unsupportedScheme(""), .unsupportedScheme("ftp"), .invalidHost, .insecureHTTP(host: "example.com"),
        ]
        for error in errors {
            #expect(error.description.hasSuffix("."))
            #expect(error.errorDescription == error.description)
        }
        #expect(TransportPolicyError.insecureHTTP(host: "example.com").description.contains("https"))
    }
}
