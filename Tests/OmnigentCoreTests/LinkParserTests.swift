import CompanionCore
import Testing

@testable import CompanionLinks
@testable import OmnigentCore

/// The deep-link grammar rules of Omnigent (O-LINK-*), one table row per case, every rejection included.
struct LinkParserTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        let link: String
        let server: String
        let path: String
        let id: String
        var testDescription: String { link }
    }

    static let accepted: [Accepted] = [
        // O-LINK-1: scheme in any case.
        Accepted(link: "omnigent://h.example.com/c/x", server: "https://h.example.com", path: "/c/x", id: "x"),
        Accepted(link: "OMNIGENT://h.example.com/c/x", server: "https://h.example.com", path: "/c/x", id: "x"),
        // O-LINK-3: one trailing slash tolerated.
        Accepted(link: "omnigent://h.example.com/c/x/", server: "https://h.example.com", path: "/c/x", id: "x"),
        // O-LINK-6: no id format check, case kept.
        Accepted(
            link: "omnigent://h.example.com/c/conv_abc", server: "https://h.example.com", path: "/c/conv_abc",
            id: "conv_abc"),
        Accepted(link: "omnigent://h.example.com/c/ABC", server: "https://h.example.com", path: "/c/ABC", id: "ABC"),
        Accepted(
            link: "omnigent://h.example.com/c/123e4567-e89b-12d3-a456-426614174000", server: "https://h.example.com",
            path: "/c/123e4567-e89b-12d3-a456-426614174000", id: "123e4567-e89b-12d3-a456-426614174000"),
        // Escapes of allowed characters decode, and are re-encoded only where needed.
        Accepted(link: "omnigent://h.example.com/c/a%5Fb", server: "https://h.example.com", path: "/c/a_b", id: "a_b"),
        Accepted(
            link: "omnigent://h.example.com/c/a%20b", server: "https://h.example.com", path: "/c/a%20b",
            id: "a b"),
        // O-LINK-7: loopback → http (debug policy), port kept, IPv6 bracketed, remote → https.
        Accepted(
            link: "omnigent://localhost:8000/c/conv_abc", server: "http://localhost:8000", path: "/c/conv_abc",
            id: "conv_abc"),
        Accepted(link: "omnigent://[::1]:6767/c/x", server: "http://[::1]:6767", path: "/c/x", id: "x"),
        Accepted(link: "omnigent://127.0.0.1:6767/c/x", server: "http://127.0.0.1:6767", path: "/c/x", id: "x"),
        Accepted(
            link: "omnigent://my-workspace.cloud.databricks.com/c/x",
            server: "https://my-workspace.cloud.databricks.com", path: "/c/x", id: "x"),
        Accepted(link: "omnigent://H.Example.COM:443/c/x", server: "https://h.example.com", path: "/c/x", id: "x"),
        Accepted(
            link: "omnigent://nas.home.example:6767/c/x", server: "https://nas.home.example:6767", path: "/c/x", id: "x"
        ),
        // O-OPEN-3 as the real app does it: a query or a fragment is ignored; the link opens its path alone.
        Accepted(link: "omnigent://h.example.com/c/x?y=1", server: "https://h.example.com", path: "/c/x", id: "x"),
        Accepted(link: "omnigent://h.example.com/c/x#top", server: "https://h.example.com", path: "/c/x", id: "x"),
        Accepted(link: "omnigent://h.example.com/c/x/?o=4#f", server: "https://h.example.com", path: "/c/x", id: "x"),
    ]

    @Test("O-LINK-1/3/6/7, O-OPEN-3: accepted links (a query or fragment ignored)", arguments: accepted)
    func accepts(_ row: Accepted) throws {
        let link = try LinkParser.parse(row.link, grammar: .omnigent, policy: .allowingInsecureLoopback)
        #expect(link.server.description == row.server)
        #expect(link.path == row.path)
        #expect(link.parameters["id"] == row.id)
        #expect(link.route == "conversation")
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        let link: String
        let error: LinkError
        var testDescription: String { link.debugDescription }
    }

    static let rejected: [Rejected] = [
        Rejected(link: "", error: .empty),
        // O-LINK-1: wrong scheme.
        Rejected(link: "https://h/c/x", error: .wrongScheme("https")),
        Rejected(link: "omnigen://h/c/x", error: .wrongScheme("omnigen")),
        Rejected(link: "omnigent", error: .wrongScheme("omnigent")),
        // O-LINK-2: host required.
        Rejected(link: "omnigent:///c/x", error: .missingHost),
        Rejected(link: "omnigent:c/x", error: .missingHost),
        Rejected(link: "omnigent:/c/x", error: .missingHost),
        Rejected(link: "omnigent://", error: .missingHost),
        // O-LINK-3: path grammar.
        Rejected(link: "omnigent://h", error: .unsupportedPath),
        Rejected(link: "omnigent://h/", error: .unsupportedPath),
        Rejected(link: "omnigent://h/c", error: .unsupportedPath),
        Rejected(link: "omnigent://h/c/", error: .emptyIdentifier),
        Rejected(link: "omnigent://h/c//", error: .emptyIdentifier),
        Rejected(link: "omnigent://h/c/x//", error: .unsupportedPath),
        Rejected(link: "omnigent://h/c/x/y", error: .unsupportedPath),
        Rejected(link: "omnigent://h/s/x", error: .unsupportedPath),
        Rejected(link: "omnigent://h/C/x", error: .unsupportedPath),
        // O-LINK-4: denylist after decoding, encoded and raw.
        Rejected(link: "omnigent://h/c/a%3Fb", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%23b", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%2Fb", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%2fb", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%2Eb", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/%2E%2E", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%25b", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%00b", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%1Fb", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%7Fb", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/conv.1", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/..", error: .forbiddenCharacter),
        Rejected(link: "omnigent://h/c/a%09b", error: .forbiddenCharacter),
        // Raw characters a URL must encode.
        Rejected(link: "omnigent://h/c/a\u{7F}b", error: .unencodedCharacter),
        Rejected(link: "omnigent://h/c/a\tb", error: .unencodedCharacter),
        Rejected(link: "omnigent://h/c/a b", error: .unencodedCharacter),
        Rejected(link: "omnigent://h/c/caf\u{E9}", error: .unencodedCharacter),
        Rejected(link: "omnigent://h/c/a\"b", error: .unencodedCharacter),
        Rejected(link: "omnigent://h/c/a<b", error: .unencodedCharacter),
        // O-LINK-5: malformed escapes, and escapes that are not UTF-8.
        Rejected(link: "omnigent://h/c/%", error: .malformedEscape),
        Rejected(link: "omnigent://h/c/%4", error: .malformedEscape),
        Rejected(link: "omnigent://h/c/%zz", error: .malformedEscape),
        Rejected(link: "omnigent://h/c/a%FFb", error: .malformedEscape),
        // O-OPEN-3: user info refused. A query or fragment is ignored (see the accepted table), so one right
        // after the host leaves no path at all.
        Rejected(link: "omnigent://h?c/x", error: .unsupportedPath),
        Rejected(link: "omnigent://h#/c/x", error: .unsupportedPath),
        Rejected(link: "omnigent://user:pw@h/c/x", error: .userInfoNotAllowed),
        Rejected(link: "omnigent://user@h/c/x", error: .userInfoNotAllowed),
        // Invalid hosts and ports: the address rules of CompanionCore.
        Rejected(link: "omnigent://h h/c/x", error: .invalidServer(.invalidHost("h h"))),
        Rejected(link: "omnigent://h:99999/c/x", error: .invalidServer(.portOutOfRange("99999"))),
        Rejected(link: "omnigent://h:port/c/x", error: .invalidServer(.invalidPort)),
        Rejected(link: "omnigent://exa_mple%2Ecom/c/x", error: .invalidServer(.invalidHost("exa_mple%2Ecom"))),
        Rejected(link: "omnigent://ex\u{E4}mple.com/c/x", error: .invalidServer(.invalidHost("exämple.com"))),
        Rejected(link: "omnigent://127.1/c/x", error: .invalidServer(.invalidHost("127.1"))),
        Rejected(link: "omnigent://[::1/c/x", error: .invalidServer(.invalidHost("[::1"))),
        Rejected(link: "omnigent://http:/c/x", error: .invalidServer(.malformed)),
    ]

    @Test("O-LINK-1..5, O-OPEN-3: rejected links carry a typed reason", arguments: rejected)
    func rejects(_ row: Rejected) {
        #expect(throws: row.error) {
            try LinkParser.parse(row.link, grammar: .omnigent, policy: .allowingInsecureLoopback)
        }
    }

    @Test("Fuzz regression: an accepted link's normalized form parses again to the same link")
    func fuzzRegressionNormalizedLength() throws {
        // FuzzLinkParser found a link whose raw non-ASCII id, re-encoded, grew past the length limit, so the
        // normalized link no longer parsed. Raw non-ASCII is now refused; encoded ids never grow.
        let raw = "OMNIGENT://[2::e]/c/" + String(repeating: "\u{FFFD}", count: 600)
        #expect(throws: LinkError.unencodedCharacter) { try LinkParser.parse(raw, grammar: .omnigent) }
        let encoded = "OMNIGENT://[2::e]/c/" + String(repeating: "%EF%BF%BD", count: 220)
        let link = try LinkParser.parse(encoded, grammar: .omnigent)
        let again = try LinkParser.parse("omnigent://" + link.hostDisplay + link.path, grammar: .omnigent)
        #expect(again == link)
    }

    @Test("Links longer than the grammar's maximum are refused")
    func tooLong() {
        let link = "omnigent://h/c/" + String(repeating: "a", count: 3_000)
        #expect(throws: LinkError.tooLong(maximum: 2_048)) { try LinkParser.parse(link, grammar: .omnigent) }
    }

    @Test("O-OPEN-2: in a release build a loopback link becomes https, as a typed address does")
    func releaseLoopback() throws {
        let link = try LinkParser.parse("omnigent://localhost:8000/c/x", grammar: .omnigent, policy: .httpsOnly)
        #expect(link.server.description == "https://localhost:8000")
    }

    @Test(
        "O-LINK-8: a link's origin equals the origin of the same host typed as an address",
        arguments: ["localhost:8000", "127.0.0.1:6767", "[::1]:6767", "example.com", "Example.COM:8443", "[0:0::1]"])
    func linkAgreesWithTypedAddress(_ hostPort: String) throws {
        for policy in [TransportPolicy.httpsOnly, .allowingInsecureLoopback] {
            let link = try LinkParser.parse("omnigent://\(hostPort)/c/x", grammar: .omnigent, policy: policy)
            let typed = try ServerAddress(parsing: hostPort, policy: policy)
            #expect(link.server.origin == typed.origin)
            #expect(link.server == typed)
        }
    }

    @Test("O-RECENT-4 / O-LINK-7: the parsed server never carries the conversation path")
    func serverHasNoPath() throws {
        let link = try LinkParser.parse("omnigent://h.example.com/c/conv_abc/", grammar: .omnigent)
        #expect(link.server.path.isEmpty)
        #expect(link.server.serverKey == "https://h.example.com")
        #expect(link.hostDisplay == "h.example.com")
    }
}
