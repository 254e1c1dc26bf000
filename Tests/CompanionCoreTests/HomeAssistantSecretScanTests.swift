import CompanionTestSupport
import Foundation
import Testing

/// `scripts/secret-scan` on the test Home Assistant's secrets (Servers/homeassistant): its `secrets` folder, its
/// PKI and its instances' config folders (Home Assistant's own `.storage`) are its store and pass as they are; what
/// they hold (a password file, a refresh token, a TOTP secret, a mobile_app webhook id and secret, the PKCS#12
/// passphrase) fails the scan anywhere else, reported by name and never by value (H-MOB-4, H-CLI-8).
@Suite("Secret scan of a test run: the test Home Assistant's store")
struct HomeAssistantSecretScanTests {
    @Test("H-MOB-4, H-CLI-8: a secret of the test Home Assistant's store outside it fails the scan, named not shown")
    func homeAssistantSecretsFail() throws {
        let tree = try SecretScanTests.Tree()
        defer { tree.remove() }
        let root = tree.state.appendingPathComponent("homeassistant")
        let storage = root.appendingPathComponent("main/config/.storage")
        for folder in ["secrets", "pki"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        try tree.write("planted-owner-password", to: root.appendingPathComponent("secrets/owner-password"), mode: 0o600)
        try tree.write("planted-p12-phrase", to: root.appendingPathComponent("pki/p12-passphrase"), mode: 0o600)
        try tree.write(
            #"{"data":{"refresh_tokens":[{"token":"planted-refresh-token-0123","jwt_key":"planted-jwt-key-0456"}]}}"#,
            to: storage.appendingPathComponent("auth"))
        try tree.write(
            #"{"data":{"users":{"u1":"PLANTEDTOTPSECRETABC"}}}"#, to: storage.appendingPathComponent("auth_module.totp")
        )
        try tree.write(
            #"{"data":{"entries":[{"domain":"mobile_app","data":{"webhook_id":"planted-webhook-id-789","secret":"planted-webhook-secret-012","cloudhook_url":null}}]}}"#,
            to: storage.appendingPathComponent("core.config_entries"))
        // The store is the server's own: clean as it is.
        var result = try tree.scan()
        #expect(result.status == 0, "\(result.output)")

        let leaks = [
            ("planted-owner-password", "Home Assistant owner-password"),
            ("planted-p12-phrase", "Home Assistant PKCS#12 passphrase"),
            ("planted-refresh-token-0123", "Home Assistant main refresh token"),
            ("planted-jwt-key-0456", "Home Assistant main JWT key"),
            ("PLANTEDTOTPSECRETABC", "Home Assistant main TOTP secret"),
            ("planted-webhook-id-789", "Home Assistant main mobile_app webhook_id"),
            ("planted-webhook-secret-012", "Home Assistant main mobile_app secret"),
        ]
        for (value, label) in leaks {
            try tree.write(
                "POST /api/webhook/\(value) 200\n", to: root.appendingPathComponent("main/home-assistant.log"))
            result = try tree.scan()
            #expect(result.status == 1, "\(label): \(result.output)")
            #expect(result.output.contains(label), "\(label): \(result.output)")
            #expect(!result.output.contains(value))
        }
    }
}
