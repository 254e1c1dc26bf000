import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

/// The terminal client on self-hosted networks (docs/networks.md): `trust`, `identity import`, `login
/// --proxy-user` and `--internal`, against the nginx test server. Drives the built binary with a home of its
/// own, and checks that no private key, passphrase or password reaches its output or a file outside the store.
@Suite("Self-hosted networks: the terminal client", .serialized, .exclusive("nginx-rotating"))
struct NetworksCLITests {
    let program: URL
    let home: URL
    /// Everything the runs printed, scanned for secrets at the end.
    let printed = Printed()

    init() throws {
        program = try ProgramRun.executable("companion")
        home = FileManager.default.temporaryDirectory.appendingPathComponent("companion-networks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], input: String = "") async throws -> ProgramRun.Result {
        var environment = [
            "COMPANION_HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        environment["LANG"] = "C.UTF-8"
        environment["HOME"] = home.path
        let result = try await ProgramRun.run(program, arguments, environment: environment, input: input)
        printed.lines.withLock { $0.append(result.output + result.errors) }
        return result
    }

    func succeeds(_ arguments: String..., input: String = "") async throws -> ProgramRun.Result {
        let result = try await run(arguments, input: input)
        #expect(
            result.status == 0,
            "companion \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        return result
    }

    func fails(_ arguments: String..., input: String = "", status: Int32 = 1) async throws -> ProgramRun.Result {
        let result = try await run(arguments, input: input)
        #expect(
            result.status == status,
            "companion \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        return result
    }

    /// No secret in what was printed, nor in any file of the home outside the secret store's sealed files.
    func assertNoSecretLeaked(_ secrets: [String]) throws {
        let enumerator = FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard !url.hasDirectoryPath, url.pathExtension != "secret", url.lastPathComponent != "secrets.key" else {
                continue
            }
            let text = String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(url.lastPathComponent) holds a secret") }
            #expect(!text.contains("PRIVATE KEY"), "\(url.lastPathComponent) holds a private key")
        }
        for output in printed.lines.withLock({ $0 }) {
            for secret in secrets { #expect(!output.contains(secret), "the output holds a secret") }
            #expect(!output.contains("PRIVATE KEY"))
        }
    }

    func text(_ variable: String) throws -> String {
        try String(contentsOfFile: try TestServers.value(variable), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "NET-CLI-1: login and omnigent sessions behind nginx requiring a client certificate signed by an intermediate, the identity assigned to two servers"
    )
    func loginBehindAClientCertificate() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let accounts = try NginxServer.url(.accounts).absoluteString
        let header = try NginxServer.url(.omnigent).absoluteString
        let root = try TestServers.value("NGINX_ROOT_PEM")
        let p12 = try TestServers.value("NGINX_CLIENT_P12")
        let passphrase = try text("NGINX_P12_PASSPHRASE_FILE")
        let password = try text("OMNIGENT_ACCOUNTS_PASSWORD_FILE")

        // Nothing trusted yet: the private CA's certificate is refused with its fingerprint.
        let refused = try await fails("login", accounts, "--user", "admin", "--password-stdin", input: password + "\n")
        #expect(refused.errors.contains("does not trust") && refused.errors.contains("SHA-256"), "\(refused.errors)")
        _ = try await succeeds("trust", accounts, "--ca", root)
        let trusted = try await succeeds("trust", header, "--ca", root, "--json")
        #expect(trusted.output.contains("\"result\":\"ca_imported\""), "\(trusted.output)")
        expectDocumentedShape(trusted.output, "trust --ca")
        // Trusted, but no certificate: the proxy's own 400 page is "this server asks for a client certificate".
        let missing = try await fails("login", accounts, "--user", "admin", "--password-stdin", input: password + "\n")
        #expect(missing.errors.contains("asks for a client certificate"), "\(missing.errors)")
        // A wrong passphrase is a clear error, then the identity goes to both servers.
        let wrong = try await fails(
            "identity", "import", p12, "--server", accounts, "--server", header, "--passphrase-stdin", input: "wrong\n")
        #expect(wrong.errors.contains("passphrase does not open"), "\(wrong.errors)")
        let imported = try await succeeds(
            "identity", "import", p12, "--server", accounts, "--server", header, "--passphrase-stdin", "--json",
            input: passphrase + "\n")
        #expect(imported.output.contains("\"certificates\":2"), "\(imported.output)")
        expectDocumentedShape(imported.output, "identity import")
        let listed = try await succeeds("identity", "list", "--json")
        #expect(listed.output.contains(accounts) && listed.output.contains(header), "\(listed.output)")
        expectDocumentedShape(listed.output, "identity list")

        let login = try await succeeds("login", accounts, "--user", "admin", "--password-stdin", input: password + "\n")
        #expect(login.output.contains("Signed in as admin"))
        _ = try await succeeds("omnigent", "sessions", "--server", accounts, "--json")
        _ = try await succeeds("omnigent", "sessions", "--server", header, "--json")
        _ = try await succeeds("whoami", accounts)
        try assertNoSecretLeaked([passphrase, password])
    }

    @Test(
        "NET-CLI-2: a self-signed server is refused until trust pins it; after a key change it is refused with both fingerprints"
    )
    func selfSignedThenKeyChange() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let rotating = try NginxServer.url(.rotating).absoluteString
        let refused = try await fails("get", rotating, "/ok")
        #expect(
            refused.errors.contains("does not trust") && refused.errors.contains("self-signed"), "\(refused.errors)")
        let declined = try await fails("trust", rotating, input: "n\n")
        #expect(declined.output.contains("Key pin:     sha256//"), "\(declined.output)")
        _ = try await fails("get", rotating, "/ok")
        let pinned = try await succeeds("trust", rotating, "--yes", "--json")
        #expect(pinned.output.contains("\"result\":\"pinned\""), "\(pinned.output)")
        expectDocumentedShape(pinned.output, "trust")
        let pin = try #require(pinned.output.firstMatch(of: /"pins":\["sha256\/\/([^"]+)"\]/)).1
        _ = try await succeeds("get", rotating, "/ok")
        let again = try await succeeds("trust", rotating, "--yes")
        #expect(again.output.contains("already pinned"))

        let fingerprint = try await NginxServer.rotateKey()
        let changed = try await fails("get", rotating, "/ok")
        #expect(changed.errors.contains("different key"), "\(changed.errors)")
        #expect(changed.errors.contains(String(pin)), "the pinned key is named")
        #expect(changed.errors.contains(fingerprint), "the presented certificate is named")
        // Nothing was re-pinned: the next request is refused the same way, until trust is given again.
        _ = try await fails("get", rotating, "/ok")
        let replaced = try await succeeds("trust", rotating, "--yes")
        #expect(replaced.errors.contains("Warning: the key pinned"))
        _ = try await succeeds("get", rotating, "/ok")
    }

    @Test("NET-CLI-3: a forward-auth sign-in page gives \"sign in to the proxy first\", never a decode error")
    func forwardAuthPage() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let fault = try NginxServer.url(.fault).absoluteString
        _ = try await succeeds("trust", fault, "--ca", try TestServers.value("NGINX_ROOT_DER"))
        for path in ["/sso/ok", "/sso-page/ok"] {
            let result = try await fails("get", fault, path)
            #expect(result.errors.contains("Sign in to the proxy first"), "\(result.errors)")
            #expect(!result.errors.contains("did not match"))
        }
        let login = try NginxServer.url(.login).absoluteString
        let redirected = try await fails("get", fault, "/sso/ok")
        #expect(redirected.errors.contains(login + "/login"), "the sign-in page's address")
    }

    @Test(
        "NET-CLI-4: login --proxy-user: the proxy's password first, kept beside the credential and sent before the app's sign-in"
    )
    func loginThroughBasic() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let basic = try NginxServer.url(.basic).absoluteString
        let proxyPassword = try text("NGINX_BASIC_PASSWORD_FILE")
        let password = try text("OMNIGENT_ACCOUNTS_PASSWORD_FILE")
        _ = try await succeeds("trust", basic, "--ca", try TestServers.value("NGINX_ROOT_PEM"))
        let asked = try await fails("login", basic, "--user", "admin", "--password-stdin", input: password + "\n")
        #expect(asked.errors.contains("asks for a user name and password"), "\(asked.errors)")
        let wrong = try await fails(
            "login", basic, "--proxy-user", try NginxServer.basicUser(), "--user", "admin", "--password-stdin",
            input: "not-the-proxy-password\n" + password + "\n")
        #expect(wrong.errors.contains("refused the user name and password"), "\(wrong.errors)")
        let login = try await succeeds(
            "login", basic, "--proxy-user", try NginxServer.basicUser(), "--user", "admin", "--password-stdin",
            input: proxyPassword + "\n" + password + "\n")
        #expect(login.output.contains("Signed in as admin"))
        // The app's bearer token then occupies the Authorization header the proxy checks: said so, no sign-out.
        let whoami = try await fails("whoami")
        #expect(whoami.errors.contains("same Authorization header"), "\(whoami.errors)")
        let still = try await fails("whoami")
        #expect(!still.errors.contains("not signed in"), "the proxy's refusal never signs the app out")
        try assertNoSecretLeaked([proxyPassword, password])
    }

    @Test(
        "NET-CLI-5: login --internal: one sign-in for both addresses; requests go to the internal one while it answers, journaled"
    )
    func loginWithAnInternalAddress() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let accounts = try NginxServer.url(.accounts)
        let relay = try TCPRelay(relayingTo: try #require(accounts.port))
        defer { relay.stop() }
        relay.start()
        let internalURL = "https://127.0.0.1:\(relay.port)"
        let root = try TestServers.value("NGINX_ROOT_PEM")
        _ = try await succeeds("trust", accounts.absoluteString, "--ca", root)
        _ = try await succeeds(
            "identity", "import", try TestServers.value("NGINX_CLIENT_LEGACY_P12"), "--server", accounts.absoluteString,
            "--passphrase-stdin", input: try text("NGINX_P12_PASSPHRASE_FILE") + "\n")
        let login = try await succeeds(
            "login", accounts.absoluteString, "--internal", internalURL, "--user", "admin", "--password-stdin",
            input: try text("OMNIGENT_ACCOUNTS_PASSWORD_FILE") + "\n")
        #expect(login.output.contains("Signed in as admin on \(accounts.absoluteString)"))
        _ = try await succeeds("omnigent", "sessions", "--server", accounts.absoluteString)
        #expect(relay.accepted >= 1)
        let journal = try await succeeds("journal", "--json")
        #expect(
            journal.output.contains("network: using the internal address \(internalURL)"),
            "\(journal.output.suffix(2000))")
    }

    @Test("NET-CLI-6: trust and identity have --help and usage errors exit 2")
    func helpAndUsage() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try await succeeds("trust", "--help").output.contains("--ca FILE"))
        #expect(try await succeeds("identity", "import", "--help").output.contains("--server ADDRESS"))
        _ = try await fails("identity", "import", "file.p12", status: 2)
        _ = try await fails("trust", status: 2)
        let plain = try await fails("trust", try TestServers.fault().absoluteString)
        #expect(plain.errors.contains("not https"))
    }
}

/// What a test's runs printed.
final class Printed: Sendable {
    let lines = Locked<[String]>([])
}
