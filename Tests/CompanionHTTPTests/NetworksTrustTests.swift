import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// Trust per server (docs/networks.md, NET-TRUST-*), against the nginx test server's self-signed, rotating and
/// private-CA servers, over both transports: libcurl applies pins and CAs; URLSession on Linux cannot
/// (FoundationNetworking) and says so, on Apple platforms it does (the same cases, `appliesServerSecurity`).
@Suite("Self-hosted networks: trust per server")
struct NetworksTrustTests {
    @Test(
        "NET-TRUST-1: a certificate that does not verify is a typed refusal with its fingerprint, subject, issuer and validity, and nothing is sent",
        arguments: TransportKind.available)
    func untrustedCertificateIsRefusedWithItsFingerprint(_ kind: TransportKind) async throws {
        let key = "trust-1-\(UUID().uuidString.lowercased())"
        let client = networkClient(try NginxServer.url(.selfSigned), kind.make())
        let error = await failure(client, "/ok", headers: [HTTPRequest.idempotencyKeyHeader: key])
        guard case .untrustedCertificate(let refusal) = error else {
            Issue.record("expected untrustedCertificate, got \(String(describing: error))")
            return
        }
        let pem = try NginxServer.pkiFile("selfsigned.pem")
        let served = try ServerCertificate(der: try #require(try ServerCertificate.certificates(in: pem).first))
        #expect(refusal.certificate.fingerprint == served.fingerprint)
        #expect(refusal.certificate.fingerprint.count == 95)
        #expect(refusal.certificate.subject == "CN=CompanionKit self-signed test server")
        #expect(refusal.certificate.issuer == refusal.certificate.subject)
        #expect(refusal.certificate.notBefore < refusal.certificate.notAfter)
        #expect(!refusal.keyChanged)
        #expect(refusal.reason?.contains("self-signed") == true, "\(refusal.reason ?? "no reason")")
        let sentence = try #require(error?.description)
        #expect(sentence.contains(served.fingerprint) && sentence.contains("Nothing was sent"), "\(sentence)")
        #expect(try await faultAttempts(key) == 0, "the request must never reach the server behind the proxy")
    }

    @Test(
        "NET-TRUST-2: pinning the key (SPKI SHA-256) trusts that server, for that server only",
        arguments: TransportKind.available)
    func pinnedKeyTrustsThatServerOnly(_ kind: TransportKind) async throws {
        let selfSigned = try NginxServer.url(.selfSigned)
        let certificate = try #require(await CertificateInspection.presented(at: selfSigned))
        let trust = ServerTrust().pinning(certificate, at: Date())
        #expect(trust.pins.map(\.pin) == [certificate.publicKeyPin])
        let security = ConnectionSecurity(trust: trust, scope: [selfSigned])
        let client = networkClient(selfSigned, kind.make(security: security))
        guard kind.appliesServerSecurity else {
            let error = await failure(client, "/ok")
            #expect(error?.description.contains(foundationNetworkingCannot) == true, "\(String(describing: error))")
            return
        }
        let value = try await client.send(Request<JSONValue>.get("/ok"))
        #expect(value["ok"]?.boolValue == true)
        // The same pin does not open another server: the private-CA server is still checked as before.
        let other = networkClient(try NginxServer.url(.fault), kind.make(security: security))
        let error = await failure(other, "/ok")
        guard case .untrustedCertificate(let refusal) = error else {
            Issue.record("expected untrustedCertificate, got \(String(describing: error))")
            return
        }
        #expect(!refusal.keyChanged, "a server outside the scope is checked by the system's trust, not the pin")
    }

    @Test(
        "NET-TRUST-3: a CA imported for the server (PEM or DER) verifies its chain (leaf and intermediate)",
        arguments: TransportKind.available, ["PEM", "DER"])
    func importedCAVerifiesTheChain(_ kind: TransportKind, _ format: String) async throws {
        let data = format == "PEM" ? try NginxServer.rootPEM() : try NginxServer.rootDER()
        let anchors = try ServerCertificate.certificates(in: data)
        #expect(anchors.count == 1)
        let url = try NginxServer.url(.fault)
        let client = networkClient(url, kind.make(security: ConnectionSecurity(trust: ServerTrust(anchors: anchors))))
        guard kind.appliesServerSecurity else {
            let error = await failure(client, "/ok")
            #expect(error?.description.contains(foundationNetworkingCannot) == true, "\(String(describing: error))")
            return
        }
        let value = try await client.send(Request<JSONValue>.get("/ok"))
        #expect(value["ok"]?.boolValue == true)
        // Without it the same server is refused, naming the intermediate that signed it.
        let error = await failure(networkClient(url, kind.make()), "/ok")
        guard case .untrustedCertificate(let refusal) = error else {
            Issue.record("expected untrustedCertificate, got \(String(describing: error))")
            return
        }
        #expect(refusal.certificate.issuer == "CN=CompanionKit Test Intermediate CA, O=CompanionKit tests")
        #expect(refusal.certificate.alternativeNames == ["127.0.0.1", "localhost"])
    }

    @Test("NET-TRUST-5: trust stays with the server's own origins: a redirect elsewhere is checked by the system")
    func trustIsScopedToTheServersOrigins() async throws {
        let url = try NginxServer.url(.fault)
        let kind = TransportKind.available.first { $0.appliesServerSecurity } ?? .curl
        let security = ConnectionSecurity(trust: try privateCATrust(), scope: [url])
        let client = networkClient(url, kind.make(security: security))
        // The fault server redirects to its own self-signed TLS port, another origin: refused there, not pinned.
        let error = await failure(client, "/redirect-to-https")
        guard case .untrustedCertificate(let refusal) = error else {
            Issue.record("expected untrustedCertificate, got \(String(describing: error))")
            return
        }
        #expect(refusal.host.hasSuffix(":\(try TestServers.faultTLS().port ?? 0)"), "\(refusal.host)")
        // A pinned key is the server's own: the redirect's target is not held to it (no "key changed" there).
        let selfSigned = try NginxServer.url(.selfSigned)
        let certificate = try #require(await CertificateInspection.presented(at: selfSigned))
        let pinned = ConnectionSecurity(trust: ServerTrust().pinning(certificate, at: Date()), scope: [selfSigned])
        let elsewhere = await failure(networkClient(selfSigned, kind.make(security: pinned)), "/redirect-to-https")
        guard case .untrustedCertificate(let other) = elsewhere else {
            Issue.record("expected untrustedCertificate, got \(String(describing: elsewhere))")
            return
        }
        #expect(!other.keyChanged)
        #expect(other.host == refusal.host)
    }
}

/// NET-TRUST-4 changes the rotating server's key (a SIGHUP of the shared nginx): it holds that server alone.
@Suite("Self-hosted networks: a pinned key that changes", .serialized, .exclusive("nginx-rotating"))
struct NetworksKeyChangeTests {
    @Test("NET-TRUST-4: a pinned server presenting a new key is refused naming both keys; nothing is re-pinned")
    func changedKeyIsRefusedNamingBoth() async throws {
        let url = try NginxServer.url(.rotating)
        let before = try #require(await CertificateInspection.presented(at: url))
        let trust = ServerTrust().pinning(before, at: Date())
        for kind in TransportKind.available where kind.appliesServerSecurity {
            let client = networkClient(url, kind.make(security: ConnectionSecurity(trust: trust)))
            #expect(try await client.send(Request<JSONValue>.get("/ok"))["ok"]?.boolValue == true)
        }
        let fingerprint = try await NginxServer.rotateKey()
        #expect(fingerprint != before.fingerprint)
        for kind in TransportKind.available where kind.appliesServerSecurity {
            let key = "trust-4-\(UUID().uuidString.lowercased())"
            let client = networkClient(url, kind.make(security: ConnectionSecurity(trust: trust)))
            let error = await failure(client, "/ok", headers: [HTTPRequest.idempotencyKeyHeader: key])
            guard case .untrustedCertificate(let refusal) = error else {
                Issue.record("expected untrustedCertificate over \(kind), got \(String(describing: error))")
                continue
            }
            #expect(refusal.keyChanged)
            #expect(refusal.pinned.map(\.pin) == [before.publicKeyPin])
            #expect(refusal.certificate.fingerprint == fingerprint)
            let sentence = refusal.certificate.publicKeyPin
            #expect(error?.description.contains(before.publicKeyPin) == true)
            #expect(error?.description.contains(sentence) == true)
            #expect(error?.description.contains(before.fingerprint) == true)
            #expect(error?.description.contains(fingerprint) == true)
            #expect(try await faultAttempts(key) == 0)
        }
        #expect(trust.pins.map(\.pin) == [before.publicKeyPin], "the trust value is never changed by a refusal")
    }
}
