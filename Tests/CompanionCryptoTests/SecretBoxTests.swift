import CompanionCrypto
import Foundation
import Testing

#if canImport(CSodium)
    import CSodium
#endif

/// NaCl secretbox (XSalsa20-Poly1305) written in Swift, against PyNaCl's vectors (the catalog's H-MOB-5, computed
/// with PyNaCl 1.5.0, Home Assistant's pin) and byte for byte against Debian's libsodium.
@Suite struct SecretBoxTests {
    let key = Data(0..<32)
    let nonce = Data(0..<24)

    @Test(
        "H-MOB-5 H-MOB-6: PyNaCl's vectors — {\"a\":1} and {} under key 00…1f, nonce 00…17, padded base64 of nonce ‖ box"
    )
    func pynaclVectors() throws {
        let one = try SecretBox.seal(Data(#"{"a":1}"#.utf8), key: key, nonce: nonce)
        #expect(
            (nonce + one).base64EncodedString() == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX7YOkr12QOx5mIsh/PWSM8CXdWW39+98=")
        let empty = try SecretBox.seal(Data("{}".utf8), key: key, nonce: nonce)
        #expect((nonce + empty).base64EncodedString() == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXdF6k2XFLAr6O7dZsSBN85SWC")
        #expect(try SecretBox.open(one, key: key, nonce: nonce) == Data(#"{"a":1}"#.utf8))
    }

    @Test("a box with one bit changed, a short box, a wrong key length are refused, with no plaintext")
    func tamperedRefused() throws {
        var box = try SecretBox.seal(Data("hello".utf8), key: key, nonce: nonce)
        box[box.count - 1] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try SecretBox.open(box, key: key, nonce: nonce) }
        #expect(throws: CryptoError.self) { try SecretBox.open(Data(count: 15), key: key, nonce: nonce) }
        #expect(throws: CryptoError.self) { try SecretBox.seal(Data(), key: Data(count: 31), nonce: nonce) }
        #expect(throws: CryptoError.self) { try SecretBox.seal(Data(), key: key, nonce: Data(count: 23)) }
    }

    #if canImport(CSodium)
        @Test("byte for byte as libsodium's crypto_secretbox_easy, for messages of 0 to 300 bytes and random keys")
        func sameAsLibsodium() throws {
            #expect(sodium_init() >= 0)
            var generator = SystemRandomNumberGenerator()
            for length in Array(0...70) + [127, 128, 129, 255, 256, 300, 4096] {
                let key = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let nonce = Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let message = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let ours = try SecretBox.seal(message, key: key, nonce: nonce)
                #expect(ours == Sodium.seal(message, key: key, nonce: nonce), "length \(length)")
                #expect(try SecretBox.open(ours, key: key, nonce: nonce) == message)
            }
        }

        @Test(
            "the keystream's 64-bit block counter: with the nonce's last eight bytes zero, messages over one to five 64-byte blocks are byte for byte libsodium's"
        )
        func blockCounterWithZeroNonceTail() throws {
            #expect(sodium_init() >= 0)
            // The Salsa20 state's words 6 and 7 are the nonce's last eight bytes, 8 and 9 the block counter: only
            // the counter's own low word may carry into its high word.
            let nonce = Data(0..<16) + Data(count: 8)
            for length in [63, 64, 65, 128, 129, 200, 300] {
                let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                let ours = try SecretBox.seal(message, key: key, nonce: nonce)
                #expect(ours == Sodium.seal(message, key: key, nonce: nonce), "length \(length)")
                #expect(try SecretBox.open(ours, key: key, nonce: nonce) == message)
            }
        }
    #endif
}

#if canImport(CSodium)
    /// libsodium's secretbox, for comparison only (tests and the fuzz target; the kit never links it).
    enum Sodium {
        static func seal(_ message: Data, key: Data, nonce: Data) -> Data {
            var out = [UInt8](repeating: 0, count: message.count + 16)
            let m = [UInt8](message)
            let k = [UInt8](key)
            let n = [UInt8](nonce)
            _ = crypto_secretbox_easy(&out, m, UInt64(m.count), n, k)
            return Data(out)
        }
    }
#endif
