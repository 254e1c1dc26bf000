import CompanionCore
import Foundation
import Testing

/// Omnigent's address rules, each with its own example, through the kit's `ServerAddress` with the policies the
/// Omnigent core passes: a debug build allows plain http to loopback only (`.allowingInsecureLoopback`), a
/// release build is https-only. These inputs are parsed, never connected to.
@Suite("Omnigent address rules (O-URL)")
struct AddressRuleTests {
    static let debug = TransportPolicy.allowingInsecureLoopback
    static let release = TransportPolicy.httpsOnly

    @Test("O-URL-1: the input is trimmed first; empty or blank is `empty`")
    func trimmedFirstAndBlankIsEmpty() throws {
        #expect(throws: ServerAddressError.empty) { try ServerAddress(parsing: "", policy: Self.debug) }
        #expect(throws: ServerAddressError.empty) { try ServerAddress(parsing: "   ", policy: Self.debug) }
        #expect(
            try ServerAddress(parsing: "  example.com  ", policy: Self.release).description == "https://example.com")
    }

    @Test("O-URL-2: no `://` → https is added, in any build", arguments: [debug, release])
    func httpsIsAdded(_ policy: TransportPolicy) throws {
        #expect(try ServerAddress(parsing: "example.com", policy: policy).description == "https://example.com")
    }

    @Test(
        "O-URL-3: a loopback host without a scheme is http in debug, https in release",
        arguments: ["localhost:6767", "127.0.0.1:6767", "[::1]:6767"])
    func loopbackByBuild(_ input: String) throws {
        let host = input.hasPrefix("[") ? "[::1]:6767" : input
        #expect(try ServerAddress(parsing: input, policy: Self.debug).description == "http://\(host)")
        #expect(try ServerAddress(parsing: input, policy: Self.release).description == "https://\(host)")
        #expect(try ServerAddress(parsing: "::1", policy: Self.debug).description == "http://[::1]")
    }

    @Test(
        "O-URL-4: a remote host never gets http by inference, even in debug",
        // A cloud host, and a host on the local network by name with the server's port (tests name no
        // address outside 127.0.0.1: the rule is about any host that is not this machine).
        arguments: ["dbc-1.cloud.databricks.com", "mac-mini.local:6767"])
    func remoteIsHTTPS(_ input: String) throws {
        #expect(try ServerAddress(parsing: input, policy: Self.debug).description == "https://\(input)")
    }

    @Test("O-URL-6: `ftp://` is an unsupported scheme; `https://` with no host does not parse")
    func unsupportedSchemeAndNoHost() throws {
        #expect(throws: ServerAddressError.unsupportedScheme("ftp")) {
            try ServerAddress(parsing: "ftp://example.com", policy: Self.debug)
        }
        // The kit names the invalid case precisely: no host.
        #expect(throws: ServerAddressError.missingHost) { try ServerAddress(parsing: "https://", policy: Self.debug) }
    }

    @Test("O-URL-7: the origin is lowercased scheme and host, a non-default port only, no trailing slash")
    func origin() throws {
        #expect(
            try ServerAddress(parsing: "HTTPS://Example.COM:443/", policy: Self.release).origin == "https://example.com"
        )
        #expect(try ServerAddress(parsing: "http://LOCALHOST:80/", policy: Self.debug).origin == "http://localhost")
        #expect(
            try ServerAddress(parsing: "https://example.com:8443/x/", policy: Self.release).origin
                == "https://example.com:8443")
    }

    @Test("O-URL-8: the server key is origin, percent-encoded path without edge slashes, then ?query")
    func serverKey() throws {
        let one = try ServerAddress(parsing: "https://Host.example/omnigent/?o=1", policy: Self.release)
        let two = try ServerAddress(parsing: "host.example/omnigent?o=1", policy: Self.release)
        #expect(one.serverKey == "https://host.example/omnigent?o=1")
        #expect(one.serverKey == two.serverKey)
        let spaced = try ServerAddress(parsing: "https://host.example/a b/", policy: Self.release)
        #expect(spaced.serverKey == "https://host.example/a%20b")
        #expect(
            try ServerAddress(parsing: "https://host.example/other", policy: Self.release).serverKey != one.serverKey)
    }
}
