import CompanionCore
import Foundation

#if canImport(CryptoKit)
    import Security
#else
    import COpenSSL
#endif

/// Cryptographically secure random bytes from the operating system's generator (via OpenSSL's DRBG on Linux and
/// `SecRandomCopyBytes` on Apple platforms).
///
/// Use it for keys, nonces, salts and tokens. Never use a seeded generator for secrets: its output can be
/// reproduced by anyone who learns or guesses the seed.
public enum SecureRandom {
    /// Returns `count` secure random bytes. `count` may be zero (the result is empty) but not negative.
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` for a negative count, or ``CryptoError/backend(_:)`` when the
    ///   system generator fails (for example it is not seeded yet), in which case no bytes are returned, because
    ///   predictable "random" bytes would silently break every key and nonce made from them.
    public static func bytes(_ count: Int) throws(CryptoError) -> Data {
        guard count >= 0 else { throw .invalidParameter("count must not be negative, got \(count)") }
        var output = Data(count: count)
        guard count > 0 else { return output }
        #if canImport(CryptoKit)
            let status = output.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> OSStatus in
                guard let base = raw.baseAddress else { return errSecParam }
                return SecRandomCopyBytes(kSecRandomDefault, raw.count, base)
            }
            guard status == errSecSuccess else { throw .backend("SecRandomCopyBytes failed with status \(status)") }
        #else
            let filled = output.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Bool in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
                var offset = 0
                while offset < raw.count {
                    let length = min(OpenSSL.maxChunk, raw.count - offset)
                    guard RAND_bytes(base + offset, Int32(length)) == 1 else { return false }
                    offset += length
                }
                return true
            }
            guard filled else { throw OpenSSL.failure("RAND_bytes") }
        #endif
        return output
    }
}

/// A `RandomSource` (CompanionCore) backed by ``SecureRandom``, for code that takes a `RandomSource` but whose
/// values must be unguessable (session tokens, pairing codes), unlike backoff jitter.
///
/// Keys, nonces and salts should still come from ``SecureRandom/bytes(_:)`` directly, which reports failures.
public struct SecureRandomSource: RandomSource {
    /// Creates the source. It holds no state, so copies and concurrent use are fine.
    public init() {}

    /// Returns 64 bits from the crypto library's generator.
    ///
    /// `RandomSource.next()` cannot throw, so if that generator ever fails this falls back to
    /// `SystemRandomNumberGenerator`, which also draws from the operating system's secure generator
    /// (`getrandom` on Linux, `arc4random` on Apple platforms), rather than stopping the process.
    public func next() -> UInt64 {
        guard let bytes = try? SecureRandom.bytes(8), bytes.count == 8 else {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        }
        return bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
