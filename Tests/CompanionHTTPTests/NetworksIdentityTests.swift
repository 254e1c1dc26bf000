import CompanionCore
import CompanionCrypto
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// Client identities (docs/networks.md, NET-ID-*): PKCS#12 import, sent with the chain when nginx asks for a
/// client certificate, optional and required locations, one identity on two servers.
@Suite("Self-hosted networks: client certificates")
struct NetworksIdentityTests {
    /// What nginx saw of the client certificate (`/_cert` on every TLS server of Servers/nginx).
    struct Seen: Decodable, Sendable {
        var verify: String
        var subject: String
        var issuer: String
    }

    @Test("NET-ID-1: a PKCS#12 file opens with its passphrase, in the current and the legacy (RC2) format")
    func pkcs12OpensInBothFormats() throws {
        let current = try testIdentity()
        let legacy = try testIdentity(legacy: true)
        #expect(current.id == legacy.id, "the same leaf, whichever format carried it")
        #expect(current.certificates.count == 2, "the leaf and its intermediate")
        #expect(current.subject == "CN=companion-test-client, O=CompanionKit tests")
        #expect(current.issuer == "CN=CompanionKit Test Intermediate CA, O=CompanionKit tests")
        let contents = try current.contents()
        #expect(
            contents.privateKeyPEM.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("-----BEGIN PRIVATE KEY-----")
                == true)
        #expect(!current.description.contains(current.passphrase))
        #expect(!String(describing: contents).contains("PRIVATE KEY"))
    }

    @Test("NET-ID-1: a wrong passphrase, or bytes that are no PKCS#12 file, are clear errors")
    func wrongPassphraseIsAClearError() throws {
        let file = try NginxServer.clientP12()
        #expect(throws: PKCS12Error.wrongPassphrase) {
            try ClientIdentity(importing: file, passphrase: "not the passphrase", at: Date())
        }
        #expect(throws: PKCS12Error.wrongPassphrase) {
            try ClientIdentity(importing: try NginxServer.clientLegacyP12(), passphrase: "", at: Date())
        }
        #expect(throws: PKCS12Error.notPKCS12) {
            try ClientIdentity(importing: try NginxServer.rootPEM(), passphrase: "x", at: Date())
        }
        #expect(throws: PKCS12Error.notPKCS12) {
            try ClientIdentity(importing: Data(file.prefix(40)), passphrase: "x", at: Date())
        }
        #expect(PKCS12Error.wrongPassphrase.description.contains("passphrase does not open"))
    }

    @Test(
        "NET-ID-2: the identity is sent with its chain: a leaf signed by an intermediate verifies where nginx knows only the root",
        arguments: TransportKind.available)
    func identityIsSentWithItsChain(_ kind: TransportKind) async throws {
        let security = ConnectionSecurity(trust: try privateCATrust(), identity: try testIdentity(legacy: true))
        let client = networkClient(try NginxServer.url(.omnigent), kind.make(security: security))
        guard kind.appliesServerSecurity else {
            let error = await failure(client, "/_cert")
            #expect(error?.description.contains(foundationNetworkingCannot) == true, "\(String(describing: error))")
            return
        }
        let seen = try await client.send(Request<Seen>.get("/_cert"))
        #expect(seen.verify == "SUCCESS")
        #expect(seen.subject == "CN=companion-test-client,O=CompanionKit tests")
        #expect(seen.issuer == "CN=CompanionKit Test Intermediate CA,O=CompanionKit tests")
        #expect(try await client.send(Request<JSONValue>.get("/health"))["status"]?.stringValue == "ok")
        // The same leaf without its intermediate is refused by the proxy: a typed refusal that says one was sent.
        let leafOnly = try ClientIdentity(
            importing: try NginxServer.clientLeafP12(), passphrase: try NginxServer.p12Passphrase(), at: Date())
        let bare = networkClient(
            try NginxServer.url(.omnigent),
            ProxyGate(
                kind.make(security: ConnectionSecurity(trust: try privateCATrust(), identity: leafOnly)),
                offersIdentity: true))
        let error = await failure(bare, "/health")
        guard case .clientCertificateRequired(let refusal) = error else {
            Issue.record("expected clientCertificateRequired, got \(String(describing: error))")
            return
        }
        #expect(refusal.offered)
        #expect(refusal.serverSentence == "The SSL certificate error")
    }

    @Test(
        "NET-ID-3: a server that asks for an optional certificate works without one, and sees one when set",
        arguments: TransportKind.available)
    func optionalCertificateWorksWithoutOne(_ kind: TransportKind) async throws {
        let url = try NginxServer.url(.optional)
        guard kind.appliesServerSecurity else {
            let client = networkClient(
                url, kind.make(security: ConnectionSecurity(trust: try privateCATrust(), identity: try testIdentity())))
            let error = await failure(client, "/_cert")
            #expect(error?.description.contains(foundationNetworkingCannot) == true, "\(String(describing: error))")
            return
        }
        let without = networkClient(url, kind.make(security: ConnectionSecurity(trust: try privateCATrust())))
        #expect(try await without.send(Request<Seen>.get("/_cert")).verify == "NONE")
        #expect(try await without.send(Request<JSONValue>.get("/ok"))["ok"]?.boolValue == true)
        let with = networkClient(
            url, kind.make(security: ConnectionSecurity(trust: try privateCATrust(), identity: try testIdentity())))
        #expect(try await with.send(Request<Seen>.get("/_cert")).verify == "SUCCESS")
        // Connections are not shared between the two settings: the one without still sends none.
        #expect(try await without.send(Request<Seen>.get("/_cert")).verify == "NONE")
    }

    @Test(
        "NET-ID-4: a server that requires a certificate and gets none: \"this server asks for a client certificate\" (nginx's 400 page recognised), never a decode error",
        arguments: TransportKind.available)
    func requiredAndMissingIsTyped(_ kind: TransportKind) async throws {
        let url = try NginxServer.url(.omnigent)
        let transport =
            kind.appliesServerSecurity
            ? kind.make(security: ConnectionSecurity(trust: try privateCATrust())) : kind.make()
        // The gate every default transport has.
        let client = networkClient(url, ProxyGate(transport))
        let error = await failure(client, "/health")
        if !kind.appliesServerSecurity {
            // FoundationNetworking cannot trust the private CA: the certificate refusal comes first.
            guard case .untrustedCertificate = error else {
                Issue.record("expected untrustedCertificate, got \(String(describing: error))")
                return
            }
            return
        }
        guard case .clientCertificateRequired(let refusal) = error else {
            Issue.record("expected clientCertificateRequired, got \(String(describing: error))")
            return
        }
        #expect(!refusal.offered)
        #expect(refusal.serverSentence == "No required SSL certificate was sent")
        #expect(error?.description.contains("asks for a client certificate") == true)
    }

    @Test("NET-ID-5: one identity assigned to two servers works on both, side by side")
    func oneIdentityOnTwoServers() async throws {
        let identity = try testIdentity()
        let servers = [try NginxServer.url(.omnigent), try NginxServer.url(.accounts)]
        for kind in TransportKind.available where kind.appliesServerSecurity {
            let clients = try servers.map { url in
                networkClient(
                    url,
                    kind.make(
                        security: ConnectionSecurity(trust: try privateCATrust(), identity: identity, scope: [url])))
            }
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<3 {
                    for client in clients {
                        group.addTask { try await client.send(Request<Seen>.get("/_cert")).verify }
                    }
                }
                for try await verify in group { #expect(verify == "SUCCESS") }
            }
        }
    }
}
