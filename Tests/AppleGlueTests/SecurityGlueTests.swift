#if canImport(Security)
    import CompanionCore
    import CompanionCrypto
    @testable import CompanionHTTP
    import CompanionTestSupport
    import Foundation
    import Testing

    /// The Security framework glue against the same fixtures as Linux: the fault server's self-signed TLS port
    /// and the private PKI of Servers/nginx (`scripts/apple-test-fixtures` in the macOS job). The rules are the ones
    /// `CurlTransport` is held to on Linux (NetworksTrustTests, NetworksIdentityTests).
    @Suite("Apple glue: Security trust, certificates and PKCS#12")
    struct SecurityGlueTests {
        /// A client over the Apple `URLSessionTransport` with `security`, no retries.
        func client(_ url: URL, _ security: ConnectionSecurity = .system) -> Client {
            Client(
                baseURL: url,
                configuration: Client.Configuration(retryPolicy: .never, transportPolicy: .allowingInsecureLoopback),
                transport: URLSessionTransport(security: security))
        }

        /// A GET that must fail, and its error.
        func failure(_ client: Client, _ path: String) async -> HTTPError? {
            do {
                let value = try await client.send(Request<JSONValue>.get(path))
                return .invalidRequest("expected a failure, got \(value.jsonString())")
            } catch {
                return error
            }
        }

        @Test("CertificateInspection reads the leaf a server presents without trusting it")
        func inspectionReadsTheLeaf() async throws {
            let certificate = try #require(await CertificateInspection.presented(at: try TestServers.faultTLS()))
            #expect(certificate.subject == "CN=127.0.0.1")
            #expect(certificate.alternativeNames == ["127.0.0.1"])
            #expect(certificate.fingerprint.count == 95)
        }

        @Test("NET-TRUST-1 on Apple: a self-signed server is a typed refusal carrying its certificate")
        func selfSignedIsRefused() async throws {
            let url = try TestServers.faultTLS()
            let presented = try #require(await CertificateInspection.presented(at: url))
            guard case .untrustedCertificate(let refusal) = await failure(client(url), "/ok") else {
                Issue.record("expected untrustedCertificate")
                return
            }
            #expect(refusal.certificate.fingerprint == presented.fingerprint)
            #expect(!refusal.keyChanged)
        }

        @Test("NET-TRUST-2 and -4 on Apple: a pinned key opens that server; another pinned key is a changed key")
        func pinnedKeyOpensTheServer() async throws {
            let url = try TestServers.faultTLS()
            let presented = try #require(await CertificateInspection.presented(at: url))
            let pinned = ConnectionSecurity(trust: ServerTrust().pinning(presented, at: Date()), scope: [url])
            let value = try await client(url, pinned).send(Request<JSONValue>.get("/ok"))
            #expect(value["ok"]?.boolValue == true)
            let root = try ServerCertificate(der: try NginxServer.rootDER())
            let other = ConnectionSecurity(trust: ServerTrust().pinning(root, at: Date()), scope: [url])
            guard case .untrustedCertificate(let refusal) = await failure(client(url, other), "/ok") else {
                Issue.record("expected untrustedCertificate")
                return
            }
            #expect(refusal.keyChanged)
            #expect(refusal.pinned.map(\.pin) == [root.publicKeyPin])
            #expect(refusal.certificate.publicKeyPin == presented.publicKeyPin)
        }

        @Test("NET-ID-1 on Apple: SecPKCS12Import opens both formats; the key stays in the SecIdentity")
        func pkcs12OpensWithSecurity() throws {
            let passphrase = try NginxServer.p12Passphrase()
            let current = try ClientIdentity(importing: try NginxServer.clientP12(), passphrase: passphrase, at: Date())
            let legacy = try ClientIdentity(
                importing: try NginxServer.clientLegacyP12(), passphrase: passphrase, at: Date())
            #expect(current.id == legacy.id)
            #expect(current.certificates.count == 2, "the leaf and its intermediate")
            #expect(current.subject == "CN=companion-test-client, O=CompanionKit tests")
            #expect(try current.contents().privateKeyPEM == nil, "Apple keeps the key inside the SecIdentity")
            #expect(throws: PKCS12Error.wrongPassphrase) {
                try PKCS12.open(try NginxServer.clientP12(), passphrase: "not the passphrase")
            }
            #expect(throws: PKCS12Error.notPKCS12) { try PKCS12.open(try NginxServer.rootPEM(), passphrase: "x") }
        }

        @Test("The challenge responder answers a client-certificate challenge with the identity, in scope only")
        func responderSendsTheIdentityInScope() throws {
            let identity = try ClientIdentity(
                importing: try NginxServer.clientP12(), passphrase: try NginxServer.p12Passphrase(), at: Date())
            let scope = try #require(URL(string: "https://127.0.0.1:8443"))
            let responder = SecurityChallengeResponder(security: ConnectionSecurity(identity: identity, scope: [scope]))
            #expect(responder.identityProblem == nil)
            let inScope = responder.answer(Self.clientCertificateChallenge(host: "127.0.0.1", port: 8443))
            #expect(inScope.disposition == .useCredential)
            #expect(inScope.credential?.identity != nil)
            #expect(inScope.credential?.certificates.count == 1, "the intermediate goes with the leaf")
            let elsewhere = responder.answer(Self.clientCertificateChallenge(host: "127.0.0.1", port: 9443))
            #expect(elsewhere.disposition == .performDefaultHandling)
            #expect(elsewhere.credential == nil)
            var wrong = identity
            wrong.passphrase = "not the passphrase"
            let refused = SecurityChallengeResponder(security: ConnectionSecurity(identity: wrong, scope: [scope]))
            #expect(refused.identityProblem == .wrongPassphrase)
        }

        /// A client-certificate challenge for `host:port`, as URLSession makes one.
        static func clientCertificateChallenge(host: String, port: Int) -> URLAuthenticationChallenge {
            let space = URLProtectionSpace(
                host: host, port: port, protocol: NSURLProtectionSpaceHTTPS, realm: nil,
                authenticationMethod: NSURLAuthenticationMethodClientCertificate)
            return URLAuthenticationChallenge(
                protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil,
                error: nil, sender: IgnoringSender())
        }
    }

    /// A challenge sender that is never called: the responder returns its answer instead of sending it.
    final class IgnoringSender: NSObject, URLAuthenticationChallengeSender, Sendable {
        func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
        func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
        func cancel(_ challenge: URLAuthenticationChallenge) {}
    }
#endif
