import CompanionCore
import CompanionCrypto
import Foundation
import Testing

@Suite struct HMACTests {
    /// RFC 4231 test cases (case 5 truncates the output, so it does not apply to a full-length API).
    static let rfc4231: [(name: String, key: Data, message: Data, mac: String)] = [
        (
            "case 1", Data(repeating: 0x0b, count: 20), ascii("Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "case 2", ascii("Jefe"), ascii("what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            "case 3", Data(repeating: 0xaa, count: 20), Data(repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "case 4", Data(1...25), Data(repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            "case 6", Data(repeating: 0xaa, count: 131),
            ascii("Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            "case 7", Data(repeating: 0xaa, count: 131),
            ascii(
                "This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test(arguments: 0..<rfc4231.count)
    func rfc4231Vector(_ index: Int) {
        let vector = Self.rfc4231[index]
        let mac = MessageAuthentication.hmacSHA256(key: vector.key, message: vector.message)
        #expect(mac.hexString == vector.mac, "\(vector.name)")
        let fromPieces = MessageAuthentication.hmacSHA256(
            key: discontiguous(vector.key, pieces: 3), message: discontiguous(vector.message, pieces: 4))
        #expect(fromPieces == mac, "\(vector.name), non-contiguous inputs")
    }

    // Expected values from python3: hmac.new(key, msg, hashlib.sha256).hexdigest()
    @Test func emptyKeyAndEmptyMessage() {
        #expect(
            MessageAuthentication.hmacSHA256(key: Data(), message: Data()).hexString
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        #expect(
            MessageAuthentication.hmacSHA256(key: ascii("key"), message: Data()).hexString
                == "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0")
    }

    @Test func constantTimeComparison() {
        let mac = MessageAuthentication.hmacSHA256(key: ascii("k"), message: ascii("m"))
        var altered = mac
        altered[altered.startIndex + 31] ^= 0x01
        #expect(MessageAuthentication.isEqualInConstantTime(mac, Data(mac)))
        #expect(!MessageAuthentication.isEqualInConstantTime(mac, altered))
        #expect(!MessageAuthentication.isEqualInConstantTime(mac, mac.prefix(31)))
        #expect(MessageAuthentication.isEqualInConstantTime(Data(), Data()))
        #expect(!MessageAuthentication.isEqualInConstantTime(Data(), Data([0])))
        let padded = Data([9]) + mac
        #expect(MessageAuthentication.isEqualInConstantTime(padded.dropFirst(), mac))
    }
}
