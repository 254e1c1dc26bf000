import CompanionCore
import CompanionCrypto
import Foundation
import Testing

@Suite struct AESGCMTests {
    /// A test case from McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", appendix B.
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: Data
        let nonce: Data
        let plaintext: Data
        let aad: Data
        let ciphertext: Data
        let tag: Data
        var testDescription: String { name }
    }

    static let specKey = hex("feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308")
    static let specNonce = hex("cafebabefacedbaddecaf888")
    static let specPlaintext = hex(
        """
        d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b391aafd255
        """)
    static let specCiphertext = hex(
        """
        522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa
        8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662898015ad
        """)

    static let vectors: [Vector] = [
        Vector(
            name: "test case 13", key: Data(count: 32), nonce: Data(count: 12), plaintext: Data(), aad: Data(),
            ciphertext: Data(), tag: hex("530f8afbc74536b9a963b4f1c4cb738b")),
        Vector(
            name: "test case 14", key: Data(count: 32), nonce: Data(count: 12), plaintext: Data(count: 16),
            aad: Data(), ciphertext: hex("cea7403d4d606b6e074ec5d3baf39d18"),
            tag: hex("d0d1c8a799996bf0265b98b5d48ab919")),
        Vector(
            name: "test case 15", key: specKey, nonce: specNonce, plaintext: specPlaintext, aad: Data(),
            ciphertext: specCiphertext, tag: hex("b094dac5d93471bdec1a502270e3cc6c")),
        Vector(
            name: "test case 16", key: specKey, nonce: specNonce, plaintext: specPlaintext.prefix(60),
            aad: hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"), ciphertext: specCiphertext.prefix(60),
            tag: hex("76fc6ece0f4e1768cddf8853bb2d551b")),
    ]

    @Test(arguments: vectors)
    func sealMatchesSpec(_ vector: Vector) throws {
        let box = try AESGCM.seal(vector.plaintext, key: vector.key, nonce: vector.nonce, authenticating: vector.aad)
        #expect(box.nonce == vector.nonce)
        #expect(box.ciphertext.hexString == vector.ciphertext.hexString)
        #expect(box.tag.hexString == vector.tag.hexString)
        #expect(box.combined == vector.nonce + vector.ciphertext + vector.tag)
    }

    @Test(arguments: vectors)
    func openMatchesSpec(_ vector: Vector) throws {
        let box = try SealedBox(nonce: vector.nonce, ciphertext: vector.ciphertext, tag: vector.tag)
        let plaintext = try AESGCM.open(box, key: vector.key, authenticating: vector.aad)
        #expect(plaintext == vector.plaintext)
        let fromCombined = try SealedBox(combined: vector.nonce + vector.ciphertext + vector.tag)
        #expect(fromCombined == box)
        #expect(try AESGCM.open(fromCombined, key: vector.key, authenticating: vector.aad) == vector.plaintext)
    }

    @Test func roundTripThroughCombined() throws {
        let key = try SecureRandom.bytes(AESGCM.keyLength)
        let message = ascii("The vault record for account 42.")
        let aad = ascii("record-id:42")
        let box = try AESGCM.seal(message, key: key, authenticating: aad)
        #expect(box.combined.count == AESGCM.nonceLength + message.count + AESGCM.tagLength)
        let reread = try SealedBox(combined: box.combined)
        #expect(reread == box)
        #expect(reread.hashValue == box.hashValue)
        #expect(try AESGCM.open(reread, key: key, authenticating: aad) == message)
    }

    @Test func emptyPlaintextAndEmptyAAD() throws {
        let key = try SecureRandom.bytes(32)
        let box = try AESGCM.seal(Data(), key: key)
        #expect(box.ciphertext.isEmpty)
        #expect(box.combined.count == 28)
        #expect(try AESGCM.open(box, key: key).isEmpty)
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: key, authenticating: ascii("x")) }
    }

    @Test func nonContiguousPlaintextGivesSameBox() throws {
        let key = try SecureRandom.bytes(32)
        let nonce = try SecureRandom.bytes(12)
        let message = try SecureRandom.bytes(10_000)
        let whole = try AESGCM.seal(message, key: key, nonce: nonce)
        let pieces = try AESGCM.seal(discontiguous(message, pieces: 9), key: key, nonce: nonce)
        #expect(whole == pieces)
    }

    /// 100 MB is larger than the 16 MiB chunk the OpenSSL backend streams in, so chunk boundaries are crossed.
    @Test func oneHundredMegabyteRoundTrip() throws {
        let key = try SecureRandom.bytes(32)
        let nonce = try SecureRandom.bytes(12)
        var message = Data(count: 100_000_000)
        message.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 4096) {
                raw[index] = UInt8(truncatingIfNeeded: index >> 12)
            }
        }
        let box = try AESGCM.seal(message, key: key, nonce: nonce, authenticating: ascii("big"))
        #expect(box.ciphertext.count == message.count)
        let opened = try AESGCM.open(SealedBox(combined: box.combined), key: key, authenticating: ascii("big"))
        #expect(opened == message)
        let fromPieces = try AESGCM.seal(
            discontiguous(message, pieces: 5), key: key, nonce: nonce, authenticating: ascii("big"))
        #expect(fromPieces.tag == box.tag)
    }

    @Test func randomNoncesDiffer() throws {
        let key = try SecureRandom.bytes(32)
        let first = try AESGCM.seal(ascii("same"), key: key)
        let second = try AESGCM.seal(ascii("same"), key: key)
        #expect(first.nonce.count == AESGCM.nonceLength)
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
    }

    // MARK: Authentication failures

    static let key = Data((0..<32).map { UInt8($0) })
    static let aad = ascii("header")

    static func sealed() throws -> SealedBox {
        try AESGCM.seal(ascii("attack at dawn, bring snacks"), key: key, authenticating: aad)
    }

    @Test func flippedCiphertextBitFails() throws {
        let box = try Self.sealed()
        var ciphertext = Data(box.ciphertext)
        ciphertext[5] ^= 0x01
        let tampered = try SealedBox(nonce: box.nonce, ciphertext: ciphertext, tag: box.tag)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(tampered, key: Self.key, authenticating: Self.aad)
        }
    }

    @Test func flippedTagBitFails() throws {
        let box = try Self.sealed()
        var tag = box.tag
        tag[15] ^= 0x80
        let tampered = try SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: tag)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(tampered, key: Self.key, authenticating: Self.aad)
        }
    }

    @Test func flippedNonceBitFails() throws {
        let box = try Self.sealed()
        var nonce = box.nonce
        nonce[0] ^= 0x01
        let tampered = try SealedBox(nonce: nonce, ciphertext: box.ciphertext, tag: box.tag)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(tampered, key: Self.key, authenticating: Self.aad)
        }
    }

    @Test func wrongAADFails() throws {
        let box = try Self.sealed()
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(box, key: Self.key, authenticating: ascii("Header"))
        }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: Self.key) }
    }

    @Test func wrongKeyFails() throws {
        let box = try Self.sealed()
        var key = Self.key
        key[31] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: key, authenticating: Self.aad) }
        // The right key still works afterwards: a failure leaves no state behind.
        #expect(try AESGCM.open(box, key: Self.key, authenticating: Self.aad) == ascii("attack at dawn, bring snacks"))
    }

    // MARK: Invalid lengths

    @Test(arguments: [0, 16, 31, 33, 64])
    func invalidKeyLength(_ length: Int) throws {
        let key = Data(count: length)
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: length)) {
            try AESGCM.seal(Data(), key: key)
        }
        let box = try Self.sealed()
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: length)) { try AESGCM.open(box, key: key) }
    }

    @Test(arguments: [0, 8, 11, 13, 16])
    func invalidNonceLength(_ length: Int) {
        let nonce = Data(count: length)
        #expect(throws: CryptoError.invalidNonceLength(expected: 12, actual: length)) {
            try AESGCM.seal(Data(), key: Self.key, nonce: nonce)
        }
        #expect(throws: CryptoError.invalidNonceLength(expected: 12, actual: length)) {
            try SealedBox(nonce: nonce, ciphertext: Data(), tag: Data(count: 16))
        }
    }

    @Test(arguments: [0, 15, 17, 32])
    func invalidTagLength(_ length: Int) {
        let error = #expect(throws: CryptoError.self) {
            try SealedBox(nonce: Data(count: 12), ciphertext: Data(), tag: Data(count: length))
        }
        guard case .invalidParameter(let message) = error else {
            Issue.record("expected invalidParameter, got \(String(describing: error))")
            return
        }
        #expect(message.contains("tag"))
    }

    @Test(arguments: [0, 1, 12, 27])
    func combinedTooShort(_ length: Int) throws {
        #expect(throws: CryptoError.ciphertextTooShort(minimum: 28, actual: length)) {
            try SealedBox(combined: Data(count: length))
        }
    }

    @Test func combinedOfExactlyTwentyEightBytesIsAnEmptyCiphertext() throws {
        let box = try SealedBox(combined: Data(count: 28))
        #expect(box.ciphertext.isEmpty)
        #expect(box.nonce.count == 12)
        #expect(box.tag.count == 16)
    }

    @Test func combinedSliceIsSplitRelativeToItsStart() throws {
        let key = try SecureRandom.bytes(32)
        let box = try AESGCM.seal(ascii("payload"), key: key)
        let framed = ascii("HEADER") + box.combined + ascii("TRAILER")
        let slice = framed.dropFirst(6).dropLast(7)
        let reread = try SealedBox(combined: slice)
        #expect(reread == box)
        #expect(reread.nonce.startIndex == 0)
        #expect(reread.tag.startIndex == 0)
        #expect(try AESGCM.open(reread, key: key) == ascii("payload"))
    }
}
