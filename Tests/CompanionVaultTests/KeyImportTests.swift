import Foundation
import Testing

@testable import CompanionVault

@Suite struct KeyImportTests {
    let fixture: [String: Any]
    let readHex: String
    let readString: String

    init() throws {
        fixture = try VaultTestSupport.fixtureJSON()
        readHex = try VaultTestSupport.string(fixture, "read_key_hex")
        readString = try VaultTestSupport.string(fixture, "read_key_string")
    }

    @Test func readKeyStringGivesVaultIDKeyAndRefID() throws {
        let key = try VaultKey(importing: readString)
        #expect(key.vaultID == "fixturevault01")
        #expect(VaultHex.encode(key.readKey) == readHex)
        #expect(key.kind == .privateRead)
        #expect(key.refFileID == (try VaultTestSupport.string(fixture, "ref_file_id")))
        #expect(key.branchIndexFileID == (try VaultTestSupport.string(fixture, "branch_index_file_id")))
    }

    @Test func everyAcceptedFormGivesTheSameKey() throws {
        let forms = [
            "  \(readString)\n",
            "\(readHex):fixturevault01",
            "sgit_public_read_\(readHex):fixturevault01",
            "sgit_rk1_\(readHex):fixturevault01",
            "sgit_private_read_\(readHex.uppercased()):fixturevault01",
            "fixturevault01 \(readHex)",
        ]
        for form in forms {
            let key = try VaultKey(importing: form)
            #expect(key.readKey == (VaultHex.decode(readHex) ?? Data()))
            #expect(key.vaultID == "fixturevault01")
        }
        #expect(try VaultKey(importing: "sgit_public_read_\(readHex):fixturevault01").kind == .publicRead)
    }

    @Test func vaultKeyDerivesTheReadKeyWithPBKDF2() throws {
        let log = VaultTrafficLog()
        let vaultKey = try VaultTestSupport.string(fixture, "vault_key")
        let passphrase = try VaultTestSupport.string(fixture, "passphrase")
        for form in [
            vaultKey, "sgit_vk1_\(passphrase):fixturevault01", "\(passphrase):fixturevault01",
            "http://127.0.0.1:9/en-gb/#\(passphrase):fixturevault01",
        ] {
            let key = try VaultKey(importing: form, log: log)
            #expect(VaultHex.encode(key.readKey) == readHex)
            #expect(key.kind == .vault)
        }
        #expect(log.count(of: .keyDerivation) == 4)
        #expect(log.events.allSatisfy { !$0.detail.contains(passphrase) && !$0.detail.contains(readHex) })
    }

    @Test func malformedStringsGiveTypedErrorsThatNeverEchoTheKey() throws {
        let cases: [(String, VaultError.KeyProblem)] = [
            ("", .empty),
            ("   ", .empty),
            ("sgit_private_read_\(readHex.dropLast()):fixturevault01", .wrongHexLength(count: 63)),
            ("sgit_private_read_\(readHex)a:fixturevault01", .wrongHexLength(count: 65)),
            ("sgit_private_read_\(readHex.dropLast())z:fixturevault01", .notHex),
            ("sgit_private_read_\(readHex)", .missingVaultID),
            ("sgit_private_read_\(readHex):", .missingVaultID),
            ("sgit_private_read_\(readHex):ABC", .invalidVaultID),
            ("sgit_private_read_\(readHex):abc", .invalidVaultID),
            ("sgit_private_read_\(readHex):\(String(repeating: "a", count: 25))", .invalidVaultID),
            ("\(readHex.dropLast()):fixturevault01", .wrongHexLength(count: 63)),
            ("sgit_private_vault_:fixturevault01", .emptyPassphrase),
            ("sgit_private_vault_secretpass", .missingVaultID),
        ]
        for (input, problem) in cases {
            #expect(throws: VaultError.malformedKey(problem), "\(problem)") { try VaultKey(importing: input) }
            do {
                _ = try VaultKey(importing: input)
            } catch {
                let text = error.description + String(describing: error)
                #expect(!text.contains(readHex.prefix(16)))
                #expect(!text.contains("secretpass"))
                #expect(!text.isEmpty)
            }
        }
    }

    @Test func descriptionAndMirrorHideTheKey() throws {
        let key = try VaultKey(importing: readString)
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, key.debugDescription, String(describing: key), "\(key)", dumped] {
            #expect(!text.lowercased().contains(readHex.prefix(12)))
            #expect(text.contains("fixturevault01"))
        }
    }

    /// Noise never traps the parser, and whatever it accepts obeys the key rules: a vault id of 4-24 lowercase
    /// letters and digits, a 32-byte read key, a passphrase that is not empty.
    @Test func parserNeverTrapsOnNoise() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("sgit_privatereadvultpubic0123456789abcdefABCDEF:# \n/é")
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<90, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            switch try? VaultKey.parse(text) {
            case .read(let key, let vaultID, _)?:
                #expect(key.count == 32 && VaultKey.isValidVaultID(vaultID), "accepted \(text.debugDescription)")
            case .passphrase(let passphrase, let vaultID)?:
                #expect(!passphrase.isEmpty && VaultKey.isValidVaultID(vaultID), "accepted \(text.debugDescription)")
            case nil:
                break
            }
        }
    }
}
