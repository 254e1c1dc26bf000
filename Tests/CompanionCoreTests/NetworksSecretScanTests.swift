import CompanionTestSupport
import Foundation
import Testing

/// `scripts/secret-scan` on self-hosted-network secrets (NET-SCAN-1): a private key in PEM form, the nginx test
/// server's PKCS#12 passphrase and Basic password, anywhere outside its own PKI folder.
@Suite("Secret scan of a test run: keys, passphrases, proxy passwords")
struct NetworksSecretScanTests {
    @Test(
        "NET-SCAN-1: a private key, the PKCS#12 passphrase or the Basic password outside the PKI folder fails the scan")
    func networkSecretsFail() throws {
        let tree = try SecretScanTests.Tree()
        defer { tree.remove() }
        let pki = tree.state.appendingPathComponent("nginx/pki")
        try FileManager.default.createDirectory(at: pki, withIntermediateDirectories: true)
        let key =
            "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPlantedKeyBytesXYZ0123456789abcdefghijklmnoqrstuvw\n-----END PRIVATE KEY-----\n"
        try tree.write(key, to: pki.appendingPathComponent("client.key"), mode: 0o600)
        try tree.write("planted-p12-passphrase", to: pki.appendingPathComponent("p12-passphrase"), mode: 0o600)
        try tree.write("planted-basic-password", to: pki.appendingPathComponent("basic-password"), mode: 0o600)
        // The PKI folder is the server's own store: clean as it is.
        #expect(try tree.scan().status == 0)

        try tree.write(key, to: tree.state.appendingPathComponent("omnigent/server.out"))
        var result = try tree.scan()
        #expect(result.status == 1)
        #expect(result.output.contains("a PEM private key"), "\(result.output)")
        #expect(!result.output.contains("PlantedKeyBytes"))
        // Without its header, the key's own bytes are still found.
        try tree.write(
            "dump: PlantedKeyBytesXYZ0123456789abcdefghijklmnoqrstuvw",
            to: tree.state.appendingPathComponent("omnigent/server.out"))
        result = try tree.scan()
        #expect(result.output.contains("nginx private key client.key"), "\(result.output)")
        try tree.write(
            "{\"passphrase\":\"planted-p12-passphrase\",\"auth\":\"planted-basic-password\"}",
            to: tree.home.appendingPathComponent("store/state.json"), mode: 0o600)
        result = try tree.scan()
        #expect(result.output.contains("nginx PKCS#12 passphrase"))
        #expect(result.output.contains("nginx Basic password"))
        #expect(!result.output.contains("planted-basic-password"))
    }
}
