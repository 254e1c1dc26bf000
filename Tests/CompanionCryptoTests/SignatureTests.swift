import CompanionCrypto
import Foundation
import Testing

/// RSASSA-PKCS1-v1_5 with SHA-256 (JWS RS256) checks against a vector made for this suite with the
/// `openssl` command line (a fresh 2048-bit key, `openssl dgst -sha256 -sign`).
@Suite struct SignatureTests {
    static let modulus = hex(
        "ad56b68fc8fd848cabe533cc1aeb0d75978710cfaec7de7d6721d12f545c32fb43134218757e5c3c3f8bb3ca1b04b91c"
            + "9abeb57fff5ddda7d40663ad483514644ea5693906d73cd58e34fbfada75a6d82b636bd6697fbca706832888bc12ac52"
            + "28e493884aee0eb237011d8bdc3e91d0cc396ff67b47de4061b0adaaf366145aa846e8e5c418aeda4a581fd6bbf9d273"
            + "1f093cf5f13167eee31a9c123a89f0c6001a7b7294aa3b04d1f4fb288c166718fc9323e4110317fa9d7212b1f441815f"
            + "e72742092f5fa7c01248d1691bea0c2b25ebee83262da413f16f7d8dcd493171a59660c3478d5c9912e8ecf44eb68516"
            + "0cfd6ba1d59e227bf56b3535f960869f")
    static let otherModulus = hex(
        "ae0aa8593aaf5bf4bd67e873dad0071bbc5594122bcab58461dd6a009fb4032b40f434f0802d18a4da16a8e854b79f03"
            + "ac37645de9f4b439098da92ffb041b42f470668c3dc784410026c105156000382bc0e2a1faaa646dd3d41c5de684665e"
            + "64921b1a22c566d766dd73309d599289d0762068537b9e0edf25f58b2801f95e04002d9a7f1bf3e24e4491031032862d"
            + "36cff9f18f0fd7f332948258be80436bdc5f12c97e492857a3b366fdec95dfea00e5719520a2c4f77338acf831c2d078"
            + "5e5d87ad9ce58b1371720494f29c5039eff98d2cd3f8bf0ad5f2684f7e8aba4e239ea391bc2da1a740f5fc449b311459"
            + "a7c81eecc95262f270d3b0bc0d8da9bb")
    static let signature = hex(
        "2a946692b1da3159eef9667475bd98660931d99e93a49587aa7ba575eeeecaef27e6aa7928e18ab46f8a8519925a6387"
            + "24a4b92731f633731eaf4a42e2075a04053756daa967a2d04c0a2f8e8065732e0b4457b7ec326d141c07c74c5f17f227"
            + "8b8432d01a357398b77ce0ceda25e89c3416dfdb9b4a355a299288710f706bd870746139c1017cf1d60c4d8d1cd0b3f1"
            + "10ef9868d34ed19caa92cfcbf405923640e9eee7a378cbb2936e3a6597b135a2a311c86de75665743c8bfae5b4469326"
            + "d1c926ca0347d96dfe0687308af39be63a3f275e31fb03174edac2f2631917d19ca79dff6f89bbedb4cfefa459877faa"
            + "aaa4b1f4d0aad39315014a0df86cc542")
    static let message = ascii("CompanionKit signature test vector")
    static let exponent = Data([0x01, 0x00, 0x01])

    @Test func validSignatureVerifies() throws {
        let key = try RSAPublicKey(modulus: Self.modulus, exponent: Self.exponent)
        #expect(key.bitCount == 2048)
        #expect(key.isValidSignature(Self.signature, for: Self.message))
        // A leading zero byte on the modulus (as some encoders write it) is the same key.
        let padded = try RSAPublicKey(modulus: Data([0]) + Self.modulus, exponent: Self.exponent)
        #expect(padded.isValidSignature(Self.signature, for: Self.message))
    }

    @Test func tamperedSignatureMessageOrKeyFails() throws {
        let key = try RSAPublicKey(modulus: Self.modulus, exponent: Self.exponent)
        var flipped = Self.signature
        flipped[flipped.startIndex + 17] ^= 0x01
        #expect(!key.isValidSignature(flipped, for: Self.message))
        #expect(!key.isValidSignature(Self.signature, for: ascii("CompanionKit signature test vectoR")))
        #expect(!key.isValidSignature(Self.signature.dropLast(), for: Self.message))
        #expect(!key.isValidSignature(Data(), for: Self.message))
        let other = try RSAPublicKey(modulus: Self.otherModulus, exponent: Self.exponent)
        #expect(!other.isValidSignature(Self.signature, for: Self.message))
    }

    @Test func weakKeysAreRefused() {
        #expect(throws: CryptoError.self) {
            try RSAPublicKey(modulus: Self.modulus.prefix(128), exponent: Self.exponent)
        }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: Self.modulus, exponent: Data([0x01])) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: Self.modulus, exponent: Data([0x02])) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: Data(), exponent: Self.exponent) }
    }
}
