import CompanionCrypto
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The seams the Apple glue sits behind, checked on every platform: the same protocol, each platform's
/// implementation (docs/apple.md).
@Suite("Apple glue: the seams, on every platform")
struct SeamTests {
    @Test("DefaultTransport: libcurl on Linux (URLSession when COMPANION_TRANSPORT=urlsession), URLSession on Apple")
    func defaultTransportIsThePlatforms() {
        let transport = DefaultTransport.platform()
        #if os(Linux)
            let variable = ProcessInfo.processInfo.environment[DefaultTransport.environmentVariable]
            if variable?.lowercased() == "urlsession" {
                #expect(transport is URLSessionTransport)
            } else {
                #expect(transport is CurlTransport)
            }
        #else
            #expect(transport is URLSessionTransport)
        #endif
    }

    @Test("PKCS12: Linux hands libcurl the key as PEM; Apple platforms keep it inside the SecIdentity")
    func pkcs12KeyStaysWhereThePlatformNeedsIt() throws {
        let contents = try PKCS12.open(try NginxServer.clientP12(), passphrase: try NginxServer.p12Passphrase())
        #expect(contents.certificates.count == 2)
        #if canImport(Security)
            #expect(contents.privateKeyPEM == nil)
        #else
            let pem = contents.privateKeyPEM.map { String(decoding: $0, as: UTF8.self) }
            #expect(pem?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        #endif
    }
}
