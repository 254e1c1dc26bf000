import CompanionCore
import Foundation
import Testing

struct AcceptedAddress: Sendable, CustomTestStringConvertible {
    let input: String
    let insecureLoopback: Bool
    let expected: String
    var testDescription: String { "\(input.debugDescription) insecure=\(insecureLoopback) → \(expected)" }

    init(_ input: String, insecure: Bool = false, _ expected: String) {
        self.input = input
        self.insecureLoopback = insecure
        self.expected = expected
    }

    var policy: TransportPolicy { TransportPolicy(allowsInsecureLoopback: insecureLoopback) }
}

struct RejectedAddress: Sendable, CustomTestStringConvertible {
    let input: String
    let insecureLoopback: Bool
    let error: ServerAddressError
    var testDescription: String { "\(input.debugDescription) insecure=\(insecureLoopback) → \(error)" }

    init(_ input: String, insecure: Bool = false, _ error: ServerAddressError) {
        self.input = input
        self.insecureLoopback = insecure
        self.error = error
    }
}

@Suite struct ServerAddressTests {
    static let accepted: [AcceptedAddress] = [
        // Omnigent's test vectors.
        AcceptedAddress("example.com", "https://example.com"),
        AcceptedAddress("localhost:6767", insecure: true, "http://localhost:6767"),
        AcceptedAddress("127.0.0.1:6767", insecure: true, "http://127.0.0.1:6767"),
        AcceptedAddress("dbc-123.cloud.databricks.com", insecure: true, "https://dbc-123.cloud.databricks.com"),
        // Loopback without the allowance infers https.
        AcceptedAddress("localhost:6767", "https://localhost:6767"),
        AcceptedAddress("127.0.0.1:6767", "https://127.0.0.1:6767"),
        AcceptedAddress("::1", "https://[::1]"),
        // The whole 127/8 and the IPv6 loopback forms.
        AcceptedAddress("127.8.9.10", insecure: true, "http://127.8.9.10"),
        AcceptedAddress("[::1]:8080", insecure: true, "http://[::1]:8080"),
        AcceptedAddress("[::1]:8080", "https://[::1]:8080"),
        AcceptedAddress("::1", insecure: true, "http://[::1]"),
        AcceptedAddress("[0:0:0:0:0:0:0:1]", insecure: true, "http://[::1]"),
        AcceptedAddress("http://[::ffff:127.0.0.1]:9000", insecure: true, "http://[::ffff:7f00:1]:9000"),
        AcceptedAddress("http://127.0.0.1:6767", insecure: true, "http://127.0.0.1:6767"),
        AcceptedAddress("http://LOCALHOST:6767/", insecure: true, "http://localhost:6767"),
        // A remote IP literal is not loopback.
        AcceptedAddress("nas.home.example:8000", insecure: true, "https://nas.home.example:8000"),
        AcceptedAddress("[2001:DB8:0:0:0:0:0:1]:8443", "https://[2001:db8::1]:8443"),
        // Whitespace, case, default ports.
        AcceptedAddress("  example.com \n", "https://example.com"),
        AcceptedAddress("HTTPS://Example.COM/Omnigent", "https://example.com/Omnigent"),
        AcceptedAddress("https://example.com:443", "https://example.com"),
        AcceptedAddress("example.com:443", "https://example.com"),
        AcceptedAddress("http://localhost:80", insecure: true, "http://localhost"),
        AcceptedAddress("https://example.com:80", "https://example.com:80"),
        AcceptedAddress("https://example.com:08443", "https://example.com:8443"),
        AcceptedAddress("https://example.com:", "https://example.com"),
        AcceptedAddress("https://my_service.internal:8443", "https://my_service.internal:8443"),
        // Paths, queries, fragments.
        AcceptedAddress("https://host.example/omnigent", "https://host.example/omnigent"),
        AcceptedAddress("https://host.example/omnigent/", "https://host.example/omnigent"),
        AcceptedAddress("https://host.example/omnigent///", "https://host.example/omnigent"),
        AcceptedAddress("https://host.example/", "https://host.example"),
        AcceptedAddress("https://host.example/?o=123", "https://host.example?o=123"),
        AcceptedAddress("https://host.example/omnigent?o=123#frag", "https://host.example/omnigent?o=123"),
        AcceptedAddress("https://host.example/#/c/1", "https://host.example"),
        AcceptedAddress("https://host.example/?", "https://host.example"),
        AcceptedAddress("https://host.example/a b?q=x y", "https://host.example/a%20b?q=x%20y"),
        AcceptedAddress("https://host.example/a%2fb", "https://host.example/a%2Fb"),
        AcceptedAddress("https://host.example/100%", "https://host.example/100%25"),
        // A `%` is an escape only before two hex digits: `%G1` and `%4G` are text, their `%` encoded.
        AcceptedAddress("https://host.example/a%G1b%4Gc%e9", "https://host.example/a%25G1b%254Gc%E9"),
        AcceptedAddress("https://host.example/a/./b/../c", "https://host.example/a/c"),
        AcceptedAddress("https://host.example/caf\u{E9}", "https://host.example/caf%C3%A9"),
        AcceptedAddress(
            "host.example/go?next=https://other.example", "https://host.example/go?next=https://other.example"),
        AcceptedAddress("https://host.example/go?next=ftp://x", "https://host.example/go?next=ftp://x"),
        // A `://` after `?` or `#` is in the query or the fragment, not the end of a scheme.
        AcceptedAddress("host.example?next=https://other.example", "https://host.example?next=https://other.example"),
        AcceptedAddress("host.example#https://other.example", "https://host.example"),
    ]

    @Test(arguments: accepted)
    func accepts(_ row: AcceptedAddress) throws {
        let address = try ServerAddress(parsing: row.input, policy: row.policy)
        #expect(address.url.absoluteString == row.expected)
        #expect(address.description == row.expected)
        // Normalizing is idempotent: the normalized text parses to the same address.
        #expect(try ServerAddress(parsing: row.expected, policy: row.policy) == address)
    }

    static let rejected: [RejectedAddress] = [
        RejectedAddress("", .empty),
        RejectedAddress(" \n\t ", .empty),
        RejectedAddress("ftp://example.com", .unsupportedScheme("ftp")),
        RejectedAddress("FTP://example.com", .unsupportedScheme("ftp")),
        RejectedAddress("ws://localhost:8080", insecure: true, .unsupportedScheme("ws")),
        RejectedAddress("javascript://alert(1)", .unsupportedScheme("javascript")),
        RejectedAddress("http://example.com", insecure: true, .insecureHTTPNotAllowed(host: "example.com")),
        RejectedAddress("http://example.com", .insecureHTTPNotAllowed(host: "example.com")),
        RejectedAddress(
            "http://nas.home.example:8000", insecure: true, .insecureHTTPNotAllowed(host: "nas.home.example")),
        RejectedAddress("http://localhost:6767", .insecureHTTPNotAllowed(host: "localhost")),
        RejectedAddress("http://127.0.0.1", .insecureHTTPNotAllowed(host: "127.0.0.1")),
        RejectedAddress("http://[::1]:8080", .insecureHTTPNotAllowed(host: "[::1]")),
        RejectedAddress(
            "http://localhost.example.com", insecure: true, .insecureHTTPNotAllowed(host: "localhost.example.com")),
        RejectedAddress("https://user:hunter22@example.com", .userInfoNotAllowed),
        RejectedAddress("user:hunter22@example.com", .userInfoNotAllowed),
        RejectedAddress("https://user@example.com/x", .userInfoNotAllowed),
        RejectedAddress("https://", .missingHost),
        RejectedAddress("https:///omnigent", .missingHost),
        RejectedAddress("https://:8080", .missingHost),
        RejectedAddress("/omnigent", .missingHost),
        RejectedAddress("https://exa mple.com", .invalidHost("exa mple.com")),
        RejectedAddress("exa mple.com", .invalidHost("exa mple.com")),
        RejectedAddress("https://ex!ample.com", .invalidHost("ex!ample.com")),
        RejectedAddress("https://b\u{FC}cher.de", .invalidHost("b\u{FC}cher.de")),
        RejectedAddress("https://example..com", .invalidHost("example..com")),
        RejectedAddress("https://example\u{212A}.com", .invalidHost("example\u{212A}.com")),
        RejectedAddress("https://.example.com", .invalidHost(".example.com")),
        RejectedAddress("https://example.com.", .invalidHost("example.com.")),
        RejectedAddress("https://ex%41mple.com", .invalidHost("ex%41mple.com")),
        RejectedAddress("https://127.1", .invalidHost("127.1")),
        RejectedAddress("https://0127.0.0.1", .invalidHost("0127.0.0.1")),
        RejectedAddress("https://127.0.0.256", .invalidHost("127.0.0.256")),
        RejectedAddress("https://127.0.0.1.5", .invalidHost("127.0.0.1.5")),
        RejectedAddress("https://[::1", .invalidHost("[::1")),
        RejectedAddress("https://[::1]x", .invalidHost("[::1]x")),
        RejectedAddress("https://[1:2:3:4:5:6:7:8:9]", .invalidHost("[1:2:3:4:5:6:7:8:9]")),
        RejectedAddress("https://[1::2::3]", .invalidHost("[1::2::3]")),
        RejectedAddress("https://[fe80::1%25en0]", .invalidHost("[fe80::1%25en0]")),
        RejectedAddress("https://[example.com]", .invalidHost("[example.com]")),
        RejectedAddress("https://example.com:0", .portOutOfRange("0")),
        RejectedAddress("https://example.com:65536", .portOutOfRange("65536")),
        RejectedAddress("https://example.com:99999999999999999999", .portOutOfRange("99999999999999999999")),
        RejectedAddress("https://example.com:abc", .invalidPort),
        RejectedAddress("https://example.com:-1", .invalidPort),
        RejectedAddress("https:example.com", .malformed),
        RejectedAddress("http:/example.com", .malformed),
        RejectedAddress("1http://example.com", .malformed),
    ]

    @Test(arguments: rejected)
    func rejects(_ row: RejectedAddress) {
        let policy = TransportPolicy(allowsInsecureLoopback: row.insecureLoopback)
        #expect(throws: row.error) { try ServerAddress(parsing: row.input, policy: policy) }
        #expect(!row.error.description.isEmpty)
        #expect(row.error.errorDescription == row.error.description)
    }

    @Test func userInfoErrorDoesNotEchoThePassword() {
        do {
            _ = try ServerAddress(parsing: "https://admin:hunter22@example.com/omnigent", policy: .httpsOnly)
            Issue.record("expected an error")
        } catch {
            #expect(error == .userInfoNotAllowed)
            #expect(!error.description.contains("hunter22"))
            #expect(!error.description.contains("admin"))
        }
    }

    @Test func passwordWithSlashIsNotEchoedThroughThePort() {
        // The authority ends at the `/`, so the password lands where the port goes.
        #expect(throws: ServerAddressError.invalidPort) {
            try ServerAddress(parsing: "https://admin:hunter/22@example.com", policy: .httpsOnly)
        }
        #expect(!ServerAddressError.invalidPort.description.contains("hunter"))
    }

    @Test func longInputIsClippedInErrors() {
        let host = String(repeating: "a", count: 70) + " b"
        #expect(throws: ServerAddressError.invalidHost(String(repeating: "a", count: 64) + "…")) {
            try ServerAddress(parsing: host, policy: .httpsOnly)
        }
    }

    @Test func components() throws {
        let address = try ServerAddress(parsing: "HTTPS://Apps.Example.com:8443/first/?o=7#x", policy: .httpsOnly)
        #expect(address.scheme == "https")
        #expect(address.host == "apps.example.com")
        #expect(address.port == 8443)
        #expect(address.path == "/first")
        #expect(address.query == "o=7")
        #expect(address.origin == "https://apps.example.com:8443")
        #expect(address.serverKey == "https://apps.example.com:8443/first?o=7")
        #expect(!address.isLoopback)

        let root = try ServerAddress(parsing: "example.com", policy: .httpsOnly)
        #expect(root.port == nil)
        #expect(root.path.isEmpty)
        #expect(root.query == nil)
        #expect(root.origin == "https://example.com")
        #expect(root.serverKey == "https://example.com")

        let loopback = try ServerAddress(parsing: "[::1]:8080", policy: .allowingInsecureLoopback)
        #expect(loopback.host == "[::1]")
        #expect(loopback.port == 8080)
        #expect(loopback.isLoopback)
        #expect(loopback.origin == "http://[::1]:8080")
    }

    @Test(arguments: [
        ("https://a.example.com", "https://A.Example.com/"),
        ("https://apps.example.com:443/first/", "https://apps.example.com/first"),
        ("apps.example.com/first", "https://APPS.example.com:443/first//"),
        ("https://host.example/a%2fb", "https://host.example/a%2Fb"),
        ("https://host.example/x?o=1#one", "https://host.example/x/?o=1#two"),
    ])
    func sameServerKey(_ first: String, _ second: String) throws {
        let one = try ServerAddress(parsing: first, policy: .httpsOnly)
        let two = try ServerAddress(parsing: second, policy: .httpsOnly)
        #expect(one.serverKey == two.serverKey)
        #expect(one == two)
        #expect(one.hashValue == two.hashValue)
    }

    @Test(arguments: [
        ("https://apps.example.com/first", "https://apps.example.com/second"),
        ("https://apps.example.com/first", "https://apps.example.com"),
        ("https://apps.example.com", "https://apps.example.com:8443"),
        ("https://apps.example.com/First", "https://apps.example.com/first"),
        ("https://apps.example.com/x?o=1", "https://apps.example.com/x?o=2"),
        ("https://apps.example.com/x?o=1", "https://apps.example.com/x"),
        ("https://a.example.com", "https://b.example.com"),
    ])
    func differentServerKey(_ first: String, _ second: String) throws {
        let one = try ServerAddress(parsing: first, policy: .httpsOnly)
        let two = try ServerAddress(parsing: second, policy: .httpsOnly)
        #expect(one.serverKey != two.serverKey)
        #expect(one != two)
    }

    @Test func serverKeyOfLoopbackHTTP() throws {
        let one = try ServerAddress(parsing: "localhost:6767/", policy: .allowingInsecureLoopback)
        let two = try ServerAddress(parsing: "http://LOCALHOST:6767", policy: .allowingInsecureLoopback)
        #expect(one.serverKey == "http://localhost:6767")
        #expect(one.serverKey == two.serverKey)
        let https = try ServerAddress(parsing: "https://localhost:6767", policy: .allowingInsecureLoopback)
        #expect(https.serverKey != one.serverKey)
    }

    @Test(arguments: [
        ("https://host.example/omnigent", "/v1/sessions", "https://host.example/omnigent/v1/sessions"),
        ("https://host.example/omnigent", "v1/sessions", "https://host.example/omnigent/v1/sessions"),
        (
            "https://host.example/omnigent?o=1", "/v1/sessions?order=desc&limit=20",
            "https://host.example/omnigent/v1/sessions?order=desc&limit=20"
        ),
        ("https://host.example", "/v1/sessions", "https://host.example/v1/sessions"),
        ("https://host.example", "/api/items/", "https://host.example/api/items/"),
        ("https://host.example/omnigent", "", "https://host.example/omnigent"),
        ("https://host.example/omnigent", "/", "https://host.example/omnigent/"),
        ("https://host.example/omnigent", "/v1/../../admin", "https://host.example/omnigent/admin"),
        ("https://host.example/omnigent", "/v1/./sessions/.", "https://host.example/omnigent/v1/sessions/"),
        ("https://host.example/omnigent", "/v1/%2e%2e/x", "https://host.example/omnigent/x"),
        ("https://host.example/omnigent", "/v1/a b?q=x y#frag", "https://host.example/omnigent/v1/a%20b?q=x%20y"),
        ("https://host.example/omnigent", "/v1/a%2Fb", "https://host.example/omnigent/v1/a%2Fb"),
        ("localhost:6767", "/v1/sessions", "http://localhost:6767/v1/sessions"),
        ("[::1]:8080", "/api/version", "http://[::1]:8080/api/version"),
    ])
    func appendsAPIPath(_ base: String, _ path: String, _ expected: String) throws {
        let address = try ServerAddress(parsing: base, policy: .allowingInsecureLoopback)
        #expect(address.url(appending: path).absoluteString == expected)
    }

    @Test(arguments: [
        ("https://host.example/omnigent", "https://host.example/other/page?x=1", true),
        ("https://host.example/omnigent", "https://HOST.example:443/", true),
        ("https://host.example/omnigent", "https://host.example", true),
        ("https://host.example", "http://host.example", false),
        ("https://host.example", "https://host.example:8443", false),
        ("https://host.example", "https://evil.example", false),
        ("https://host.example", "https://host.example.evil.example", false),
        ("https://host.example", "https://user@host.example", false),
        ("https://host.example", "ftp://host.example", false),
        ("localhost:6767", "http://localhost:6767/c/1", true),
        ("localhost:6767", "http://127.0.0.1:6767/c/1", false),
        ("[::1]:8080", "http://[0:0::1]:8080/x", true),
        ("https://host.example", "file:///etc/passwd", false),
    ])
    func sameOrigin(_ base: String, _ other: String, _ expected: Bool) throws {
        let address = try ServerAddress(parsing: base, policy: .allowingInsecureLoopback)
        let url = try #require(URL(string: other))
        #expect(address.sameOrigin(as: url) == expected)
    }

    @Test func codableRoundTrip() throws {
        let addresses = [
            try ServerAddress(parsing: "https://apps.example.com:8443/first?o=1", policy: .httpsOnly),
            try ServerAddress(parsing: "localhost:6767", policy: .allowingInsecureLoopback),
        ]
        let data = try JSONEncoder().encode(addresses)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"["https:\/\/apps.example.com:8443\/first?o=1","http:\/\/localhost:6767"]"#)
        #expect(try JSONDecoder().decode([ServerAddress].self, from: data) == addresses)
    }

    @Test func decodingRefusesAnInvalidAddress() {
        for json in [#"["ftp://example.com"]"#, #"["http://example.com"]"#, #"[""]"#, "[42]"] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode([ServerAddress].self, from: Data(json.utf8))
            }
        }
    }
}
