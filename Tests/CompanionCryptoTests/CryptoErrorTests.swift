import CompanionCore
import CompanionCrypto
import Foundation
import Testing

@Suite struct CryptoErrorTests {
    /// A key made of printable bytes, so a raw leak would be visible in a string too.
    static let secretKey = ascii("KEYMATERIAL-0123456789-abcdefghi")  // 32 bytes
    static let plaintext = ascii("PLAINTEXT-SECRET-VALUE")

    /// Every way the public API can fail while holding the secret key or plaintext.
    static func errorsFromSecretInputs() throws -> [CryptoError] {
        var errors: [CryptoError] = []
        func capture(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("expected an error")
            } catch let error as CryptoError {
                errors.append(error)
            } catch {
                Issue.record("unexpected error type: \(error)")
            }
        }
        let box = try AESGCM.seal(plaintext, key: secretKey)
        capture { _ = try AESGCM.seal(plaintext, key: secretKey.dropLast()) }
        capture { _ = try AESGCM.seal(plaintext, key: secretKey + secretKey) }
        capture { _ = try AESGCM.seal(plaintext, key: secretKey, nonce: secretKey) }
        capture { _ = try AESGCM.open(box, key: Data(secretKey.reversed())) }
        capture { _ = try AESGCM.open(box, key: secretKey.prefix(16)) }
        capture { _ = try SealedBox(nonce: secretKey.prefix(12), ciphertext: plaintext, tag: secretKey) }
        capture { _ = try SealedBox(combined: secretKey.prefix(20)) }
        capture {
            _ = try KeyDerivation.pbkdf2SHA256(password: secretKey, salt: plaintext, iterations: 0, keyLength: 32)
        }
        capture {
            _ = try KeyDerivation.pbkdf2SHA256(password: secretKey, salt: plaintext, iterations: 1, keyLength: 0)
        }
        return errors
    }

    @Test func descriptionsNeverContainSecrets() throws {
        let errors = try Self.errorsFromSecretInputs()
        #expect(errors.count == 9)
        let secrets = [Self.secretKey, Self.plaintext, Self.secretKey.prefix(12), Self.secretKey.prefix(16)]
        let forbidden =
            secrets.flatMap { [$0.hexString, $0.hexString.uppercased(), String(decoding: $0, as: UTF8.self)] }
            + ["KEYMATERIAL", "PLAINTEXT", "4b45594d4154"]  // "KEYMAT" in hex
        for error in errors {
            for text in [error.description, String(reflecting: error), "\(error)", error.localizedDescription] {
                for secret in forbidden {
                    #expect(!text.contains(secret), "\(error) leaks secret material")
                }
            }
        }
    }

    @Test func descriptionsAreActionableSentences() {
        let all: [CryptoError] = [
            .invalidKeyLength(expected: 32, actual: 31), .invalidNonceLength(expected: 12, actual: 8),
            .ciphertextTooShort(minimum: 28, actual: 3), .authenticationFailed,
            .invalidParameter("iterations must be at least 1"), .backend("EVP_EncryptInit_ex"),
        ]
        for error in all {
            #expect(error.description.count > 30)
            #expect(error.description.hasSuffix("."))
        }
        #expect(CryptoError.invalidKeyLength(expected: 32, actual: 31).description.contains("31"))
        #expect(CryptoError.ciphertextTooShort(minimum: 28, actual: 3).description.contains("28"))
    }
}
