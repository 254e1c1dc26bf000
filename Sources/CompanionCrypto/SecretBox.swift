import CompanionCore
import Foundation

/// NaCl's `crypto_secretbox` (XSalsa20-Poly1305), as libsodium and PyNaCl's `SecretBox` make it: a 32-byte key,
/// a 24-byte nonce, and a box that is a 16-byte Poly1305 tag followed by the XSalsa20-encrypted message.
///
/// Why here: neither CryptoKit nor OpenSSL offers XSalsa20, and Home Assistant's `mobile_app` encrypts webhooks
/// with it (PyNaCl), so it is written once, in Swift, for both platforms. It is checked against PyNaCl's vectors
/// and, byte for byte, against Debian's libsodium in a test and a differential fuzz target.
///
/// Rules: `open` checks the tag in constant time before decrypting anything, and a box that fails gives no
/// plaintext; a key of another length than 32 bytes or a nonce of another length than 24 is refused.
public enum SecretBox {
    /// The key length, 32 bytes.
    public static let keyLength = 32
    /// The nonce length, 24 bytes.
    public static let nonceLength = 24
    /// The tag length, 16 bytes.
    public static let tagLength = 16

    /// Seals `message` under `key` with `nonce`: the tag, then the ciphertext (`crypto_secretbox_easy`).
    public static func seal(_ message: some DataProtocol, key: some DataProtocol, nonce: some DataProtocol)
        throws(CryptoError) -> Data
    {
        let (key, nonce) = try check(key, nonce)
        var stream = XSalsa20(key: key, nonce: nonce)
        let polyKey = stream.take(32)
        var cipher = [UInt8](message)
        stream.xor(&cipher)
        return Data(Poly1305.tag(cipher, key: polyKey) + cipher)
    }

    /// Opens `box` (tag, then ciphertext) under `key` with `nonce` (`crypto_secretbox_open_easy`); throws when the
    /// tag does not match, giving no plaintext.
    public static func open(_ box: some DataProtocol, key: some DataProtocol, nonce: some DataProtocol)
        throws(CryptoError) -> Data
    {
        let (key, nonce) = try check(key, nonce)
        let bytes = [UInt8](box)
        guard bytes.count >= tagLength else { throw .ciphertextTooShort(minimum: tagLength, actual: bytes.count) }
        var stream = XSalsa20(key: key, nonce: nonce)
        let polyKey = stream.take(32)
        var message = Array(bytes[tagLength...])
        let expected = Poly1305.tag(message, key: polyKey)
        var difference: UInt8 = 0
        for index in 0..<tagLength { difference |= expected[index] ^ bytes[index] }
        guard difference == 0 else { throw .authenticationFailed }
        stream.xor(&message)
        return Data(message)
    }

    private static func check(_ key: some DataProtocol, _ nonce: some DataProtocol) throws(CryptoError) -> (
        [UInt8], [UInt8]
    ) {
        let key = [UInt8](key)
        let nonce = [UInt8](nonce)
        guard key.count == keyLength else { throw .invalidKeyLength(expected: keyLength, actual: key.count) }
        guard nonce.count == nonceLength else {
            throw .invalidNonceLength(expected: nonceLength, actual: nonce.count)
        }
        return (key, nonce)
    }
}

/// The XSalsa20 key stream: HSalsa20 of the key and the nonce's first 16 bytes gives a subkey, and Salsa20 of that
/// subkey with the nonce's last 8 bytes, counting blocks from 0, gives the stream.
struct XSalsa20 {
    private var state: [UInt32]
    private var block: [UInt8] = []
    private var used = 64

    init(key: [UInt8], nonce: [UInt8]) {
        let subkey = Salsa20.hsalsa20(key: key, input: Array(nonce[0..<16]))
        state = Salsa20.state(
            key: subkey,
            words: [
                Salsa20.word(nonce, 16), Salsa20.word(nonce, 20), 0, 0,
            ])
    }

    /// The next `count` bytes of the stream.
    mutating func take(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        xor(&out)
        return out
    }

    /// XORs `bytes` with the next bytes of the stream.
    mutating func xor(_ bytes: inout [UInt8]) {
        for index in bytes.indices {
            if used == 64 {
                block = Salsa20.block(state)
                used = 0
                state[8] &+= 1
                if state[8] == 0 { state[9] &+= 1 }
            }
            bytes[index] ^= block[used]
            used += 1
        }
    }
}

/// The Salsa20 core (D. J. Bernstein), for XSalsa20.
enum Salsa20 {
    static let sigma: [UInt32] = [0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574]

    static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    /// The input state for a 32-byte key and the four words at positions 6–9 (nonce and counter, or HSalsa20's
    /// 16-byte input).
    static func state(key: [UInt8], words: [UInt32]) -> [UInt32] {
        [
            sigma[0], word(key, 0), word(key, 4), word(key, 8), word(key, 12), sigma[1], words[0], words[1],
            words[2], words[3], sigma[2], word(key, 16), word(key, 20), word(key, 24), word(key, 28), sigma[3],
        ]
    }

    /// The 20 rounds over `input`.
    static func rounds(_ input: [UInt32]) -> [UInt32] {
        var x = input
        func quarter(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            x[b] ^= (x[a] &+ x[d]).rotatedLeft(7)
            x[c] ^= (x[b] &+ x[a]).rotatedLeft(9)
            x[d] ^= (x[c] &+ x[b]).rotatedLeft(13)
            x[a] ^= (x[d] &+ x[c]).rotatedLeft(18)
        }
        for _ in 0..<10 {
            quarter(0, 4, 8, 12)
            quarter(5, 9, 13, 1)
            quarter(10, 14, 2, 6)
            quarter(15, 3, 7, 11)
            quarter(0, 1, 2, 3)
            quarter(5, 6, 7, 4)
            quarter(10, 11, 8, 9)
            quarter(15, 12, 13, 14)
        }
        return x
    }

    /// One 64-byte block of the stream: the rounds plus the input, little-endian.
    static func block(_ input: [UInt32]) -> [UInt8] {
        let x = rounds(input)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for index in 0..<16 { out += bytes(x[index] &+ input[index]) }
        return out
    }

    /// HSalsa20: the rounds without the final addition, words 0, 5, 10, 15, 6, 7, 8, 9.
    static func hsalsa20(key: [UInt8], input: [UInt8]) -> [UInt8] {
        let x = rounds(state(key: key, words: [word(input, 0), word(input, 4), word(input, 8), word(input, 12)]))
        return [0, 5, 10, 15, 6, 7, 8, 9].flatMap { bytes(x[$0]) }
    }

    static func bytes(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24),
        ]
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { (self << count) | (self >> (32 - count)) }
}

/// Poly1305 (RFC 8439 §2.5), in five 26-bit limbs.
enum Poly1305 {
    static func tag(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        let mask: UInt32 = 0x3FF_FFFF
        let r0 = Salsa20.word(key, 0) & 0x3FF_FFFF
        let r1 = (Salsa20.word(key, 3) >> 2) & 0x3FF_FF03
        let r2 = (Salsa20.word(key, 6) >> 4) & 0x3FF_C0FF
        let r3 = (Salsa20.word(key, 9) >> 6) & 0x3F0_3FFF
        let r4 = (Salsa20.word(key, 12) >> 8) & 0x00F_FFFF
        let (s1, s2, s3, s4) = (r1 &* 5, r2 &* 5, r3 &* 5, r4 &* 5)
        var (h0, h1, h2, h3, h4): (UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0)
        var offset = 0
        while offset < message.count {
            var chunk = Array(message[offset..<min(offset + 16, message.count)])
            var high: UInt32 = 1 << 24
            if chunk.count < 16 {
                chunk.append(1)
                chunk += [UInt8](repeating: 0, count: 16 - chunk.count)
                high = 0
            }
            offset += 16
            h0 &+= Salsa20.word(chunk, 0) & mask
            h1 &+= (Salsa20.word(chunk, 3) >> 2) & mask
            h2 &+= (Salsa20.word(chunk, 6) >> 4) & mask
            h3 &+= (Salsa20.word(chunk, 9) >> 6) & mask
            h4 &+= (Salsa20.word(chunk, 12) >> 8) | high
            func m(_ a: UInt32, _ b: UInt32) -> UInt64 { UInt64(a) * UInt64(b) }
            let d0 = m(h0, r0) + m(h1, s4) + m(h2, s3) + m(h3, s2) + m(h4, s1)
            var d1 = m(h0, r1) + m(h1, r0) + m(h2, s4) + m(h3, s3) + m(h4, s2)
            var d2 = m(h0, r2) + m(h1, r1) + m(h2, r0) + m(h3, s4) + m(h4, s3)
            var d3 = m(h0, r3) + m(h1, r2) + m(h2, r1) + m(h3, r0) + m(h4, s4)
            var d4 = m(h0, r4) + m(h1, r3) + m(h2, r2) + m(h3, r1) + m(h4, r0)
            var carry = d0 >> 26
            h0 = UInt32(d0 & UInt64(mask))
            d1 += carry
            carry = d1 >> 26
            h1 = UInt32(d1 & UInt64(mask))
            d2 += carry
            carry = d2 >> 26
            h2 = UInt32(d2 & UInt64(mask))
            d3 += carry
            carry = d3 >> 26
            h3 = UInt32(d3 & UInt64(mask))
            d4 += carry
            carry = d4 >> 26
            h4 = UInt32(d4 & UInt64(mask))
            h0 &+= UInt32(carry) &* 5
            h1 &+= h0 >> 26
            h0 &= mask
        }
        var c = h1 >> 26
        h1 &= mask
        h2 &+= c
        c = h2 >> 26
        h2 &= mask
        h3 &+= c
        c = h3 >> 26
        h3 &= mask
        h4 &+= c
        c = h4 >> 26
        h4 &= mask
        h0 &+= c &* 5
        c = h0 >> 26
        h0 &= mask
        h1 &+= c
        // h + 5 − 2^130: taken when it does not go below zero.
        var g0 = h0 &+ 5
        c = g0 >> 26
        g0 &= mask
        var g1 = h1 &+ c
        c = g1 >> 26
        g1 &= mask
        var g2 = h2 &+ c
        c = g2 >> 26
        g2 &= mask
        var g3 = h3 &+ c
        c = g3 >> 26
        g3 &= mask
        let g4 = h4 &+ c &- (1 << 26)
        let select = (g4 >> 31) &- 1  // all ones when g4 did not go below zero
        h0 = (h0 & ~select) | (g0 & select)
        h1 = (h1 & ~select) | (g1 & select)
        h2 = (h2 & ~select) | (g2 & select)
        h3 = (h3 & ~select) | (g3 & select)
        h4 = (h4 & ~select) | (g4 & select)
        let w0 = h0 | (h1 << 26)
        let w1 = (h1 >> 6) | (h2 << 20)
        let w2 = (h2 >> 12) | (h3 << 14)
        let w3 = (h3 >> 18) | (h4 << 8)
        var f = UInt64(w0) + UInt64(Salsa20.word(key, 16))
        let t0 = UInt32(truncatingIfNeeded: f)
        f = UInt64(w1) + UInt64(Salsa20.word(key, 20)) + (f >> 32)
        let t1 = UInt32(truncatingIfNeeded: f)
        f = UInt64(w2) + UInt64(Salsa20.word(key, 24)) + (f >> 32)
        let t2 = UInt32(truncatingIfNeeded: f)
        f = UInt64(w3) + UInt64(Salsa20.word(key, 28)) + (f >> 32)
        let t3 = UInt32(truncatingIfNeeded: f)
        return [t0, t1, t2, t3].flatMap(Salsa20.bytes)
    }
}
