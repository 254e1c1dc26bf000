import CompanionCore
import CompanionCrypto
import Foundation
import Testing

@Suite struct PBKDF2Tests {
    // RFC 7914 §11, PBKDF2-HMAC-SHA256 vectors.
    @Test func rfc7914OneIteration() throws {
        let key = try KeyDerivation.pbkdf2SHA256(
            password: ascii("passwd"), salt: ascii("salt"), iterations: 1, keyLength: 64)
        #expect(
            key.hexString
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test func rfc7914EightyThousandIterations() throws {
        let key = try KeyDerivation.pbkdf2SHA256(
            password: ascii("Password"), salt: ascii("NaCl"), iterations: 80_000, keyLength: 64)
        #expect(
            key.hexString
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
    }

    // Expected value computed once with:
    // python3 -c 'import hashlib; print(hashlib.pbkdf2_hmac("sha256", b"correct horse battery staple",
    //             b"CompanionKit vault salt", 600000, 32).hex())'
    @Test func sixHundredThousandIterations() throws {
        let key = try KeyDerivation.pbkdf2SHA256(
            password: ascii("correct horse battery staple"), salt: ascii("CompanionKit vault salt"),
            iterations: 600_000, keyLength: 32)
        #expect(key.hexString == "11c00139b82e849788f65e49c2525433cbfc64905c2a1825a915f012984c1959")
    }

    // python3 -c 'import hashlib; print(hashlib.pbkdf2_hmac("sha256", b"", b"", 1, 32).hex())'
    @Test func emptyPasswordAndSalt() throws {
        let key = try KeyDerivation.pbkdf2SHA256(password: Data(), salt: Data(), iterations: 1, keyLength: 32)
        #expect(key.hexString == "f7ce0b653d2d72a4108cf5abe912ffdd777616dbbb27a70e8204f3ae2d0f6fad")
    }

    @Test func nonContiguousInputs() throws {
        let key = try KeyDerivation.pbkdf2SHA256(
            password: discontiguous(ascii("passwd"), pieces: 3), salt: discontiguous(ascii("salt"), pieces: 2),
            iterations: 1, keyLength: 64)
        let expected = try KeyDerivation.pbkdf2SHA256(
            password: ascii("passwd"), salt: ascii("salt"), iterations: 1, keyLength: 64)
        #expect(key == expected)
    }

    @Test(arguments: [0, -1, Int(Int32.max) + 1])
    func invalidIterations(_ iterations: Int) {
        let error = #expect(throws: CryptoError.self) {
            try KeyDerivation.pbkdf2SHA256(
                password: ascii("p"), salt: ascii("s"), iterations: iterations, keyLength: 32)
        }
        guard case .invalidParameter(let message) = error else {
            Issue.record("expected invalidParameter, got \(String(describing: error))")
            return
        }
        #expect(message.contains("iterations"))
    }

    @Test(arguments: [0, -5])
    func invalidKeyLength(_ keyLength: Int) {
        let error = #expect(throws: CryptoError.self) {
            try KeyDerivation.pbkdf2SHA256(password: ascii("p"), salt: ascii("s"), iterations: 1, keyLength: keyLength)
        }
        guard case .invalidParameter(let message) = error else {
            Issue.record("expected invalidParameter, got \(String(describing: error))")
            return
        }
        #expect(message.contains("keyLength"))
    }
}
