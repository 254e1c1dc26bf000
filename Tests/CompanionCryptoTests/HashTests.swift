import CompanionCore
import CompanionCrypto
import Foundation
import Testing

@Suite struct HashTests {
    // FIPS 180-2 / NIST CAVP examples.
    @Test func sha256OfEmptyInput() {
        #expect(
            Hash.sha256(Data()).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func sha256OfABC() {
        #expect(
            Hash.sha256(ascii("abc")).hexString
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func sha256Of448BitMessage() {
        let message = ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        #expect(
            Hash.sha256(message).hexString == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha256OfOneMillionA() {
        let message = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(Hash.sha256(message).hexString == expected)
        #expect(Hash.sha256([UInt8](message)).hexString == expected)
        #expect(Hash.sha256(discontiguous(message, pieces: 7)).hexString == expected)
    }

    @Test func sha256OfSliceUsesOnlyTheSlice() {
        let padded = ascii("xxabcyy")
        let slice = padded[padded.startIndex + 2..<padded.startIndex + 5]
        #expect(Hash.sha256(slice) == Hash.sha256(ascii("abc")))
    }

    // 100,000,000 zero bytes: larger than the 16 MiB streaming chunk. Expected value from
    // python3 -c 'import hashlib; print(hashlib.sha256(bytes(100_000_000)).hexdigest())'
    @Test func sha256OfOneHundredMegabytes() {
        let message = Data(count: 100_000_000)
        let expected = "a993f8c574e0fea8c1cdcbcd9408d9e2e107ee6e4d120edcfa11decd53fa0cae"
        #expect(Hash.sha256(message).hexString == expected)
        #expect(Hash.sha256(discontiguous(message, pieces: 3)).hexString == expected)
    }
}
