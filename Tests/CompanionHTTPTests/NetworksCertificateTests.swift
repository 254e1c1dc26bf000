import CompanionCore
import CompanionCrypto
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The X.509 reader behind every certificate refusal and pin (NET-CERT-*), checked against what `openssl x509`
/// says about each certificate of the nginx test server's private PKI, and on broken input.
@Suite("Self-hosted networks: reading certificates")
struct NetworksCertificateTests {
    /// What `openssl` reports for a PEM certificate: fingerprint, RFC 2253 names, dates, and the key's pin.
    func openssl(_ name: String) async throws -> (fingerprint: String, subject: String, issuer: String, pin: String) {
        let path = try TestServers.value("NGINX_STATE") + "/pki/" + name
        let environment = ["PATH": "/usr/bin:/bin"]
        let fields = try await ChildProcess.run(
            "/usr/bin/openssl",
            ["x509", "-in", path, "-noout", "-fingerprint", "-sha256", "-subject", "-issuer", "-nameopt", "RFC2253"],
            environment: environment, limit: .seconds(20))
        var values: [String: String] = [:]
        for line in fields.outputText.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals]).lowercased()] = String(line[line.index(after: equals)...])
                .trimmingCharacters(in: .whitespaces)
        }
        let key = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c",
                "openssl x509 -in \"$0\" -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64",
                path,
            ],
            environment: environment, limit: .seconds(20))
        return (
            values["sha256 fingerprint"] ?? "", values["subject"] ?? "", values["issuer"] ?? "",
            key.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    @Test(
        "NET-CERT-1: fingerprint, key pin, subject and issuer read as openssl reads them",
        arguments: [
            "root.pem", "intermediate.pem", "server.pem", "client.pem", "selfsigned.pem", "rotating-a.pem",
            "stranger-ca.pem",
        ])
    func readsAsOpensslDoes(_ name: String) async throws {
        let expected = try await openssl(name)
        let der = try #require(try ServerCertificate.certificates(in: try NginxServer.pkiFile(name)).first)
        let certificate = try ServerCertificate(der: der)
        #expect(certificate.fingerprint == expected.fingerprint)
        #expect(certificate.publicKeyPin == expected.pin)
        #expect(certificate.subject.replacingOccurrences(of: ", ", with: ",") == expected.subject)
        #expect(certificate.issuer.replacingOccurrences(of: ", ", with: ",") == expected.issuer)
        #expect(certificate.isValid(at: Date()))
        #expect(try ServerCertificate.certificates(in: Data(ServerCertificate.pem(der).utf8)) == [der])
    }

    @Test("NET-CERT-2: a PEM bundle reads in order; broken bytes are a CertificateError, never a crash")
    func bundlesAndBrokenInput() throws {
        let chain = try ServerCertificate.certificates(in: try NginxServer.pkiFile("server-chain.pem"))
        #expect(
            try chain.map { try ServerCertificate(der: $0).subject } == [
                "CN=127.0.0.1, O=CompanionKit tests", "CN=CompanionKit Test Intermediate CA, O=CompanionKit tests",
            ])
        let der = chain[0]
        var broken: [Data] = [Data(), Data([0x30]), Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]), Data(der.prefix(100))]
        var lying = der
        lying[lying.startIndex + 1] = 0x85  // a five-byte length
        broken.append(lying)
        broken.append(Data("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n".utf8))
        broken.append(Data("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8))
        for bytes in broken {
            #expect(throws: CertificateError.self) { _ = try ServerCertificate.certificates(in: bytes) }
        }
        for cut in stride(from: 0, to: der.count, by: 7) {
            _ = try? ServerCertificate(der: Data(der.prefix(cut)))
        }
        #expect(CertificateError.malformed("x").description.contains("PEM or DER"))
    }
}
