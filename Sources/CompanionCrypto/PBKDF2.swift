import Foundation

#if canImport(CommonCrypto)
    import CommonCrypto
#else
    import COpenSSL
#endif

/// Key derivation from passwords.
public enum KeyDerivation {
    /// Derives `keyLength` bytes from `password` and `salt` with PBKDF2-HMAC-SHA256 (RFC 8018; vectors in RFC 7914).
    ///
    /// - `iterations` must be between 1 and `Int32.max`: zero iterations is not PBKDF2, and the backends take
    ///   32-bit counts. Pick a high count (OWASP recommends 600,000 for SHA-256) so guessing passwords is slow.
    /// - `keyLength` must be between 1 and `Int32.max`: an empty key is never what the caller meant.
    /// - `salt` must be at most `Int32.max` bytes; use a fresh random salt of 16 bytes or more per password, so
    ///   equal passwords do not give equal keys.
    /// - Any password length works, including empty.
    ///
    /// - Throws: ``CryptoError/invalidParameter(_:)`` for a value outside those ranges, or
    ///   ``CryptoError/backend(_:)`` if the crypto library refuses.
    public static func pbkdf2SHA256(
        password: some DataProtocol, salt: some DataProtocol, iterations: Int, keyLength: Int
    ) throws(CryptoError) -> Data {
        let limit = Int(Int32.max)
        guard iterations >= 1, iterations <= limit else {
            throw .invalidParameter("iterations must be between 1 and \(limit), got \(iterations)")
        }
        guard keyLength >= 1, keyLength <= limit else {
            throw .invalidParameter("keyLength must be between 1 and \(limit), got \(keyLength)")
        }
        guard salt.count <= limit else {
            throw .invalidParameter("salt must be at most \(limit) bytes, got \(salt.count)")
        }
        if password.count > limit {
            // HMAC replaces a key longer than its 64-byte block by the key's SHA-256 digest (RFC 2104 §2), so
            // hashing here gives the identical result while fitting the backends' 32-bit length.
            return try derive(password: Hash.sha256(password), salt: salt, iterations: iterations, keyLength: keyLength)
        }
        return try derive(password: password, salt: salt, iterations: iterations, keyLength: keyLength)
    }

    #if canImport(CommonCrypto)
        private static func derive(
            password: some DataProtocol, salt: some DataProtocol, iterations: Int, keyLength: Int
        ) throws(CryptoError) -> Data {
            // Copies keep the pointers non-null even for empty inputs (the trailing 0 is never read).
            let passwordBytes = [UInt8](password) + [0]
            let saltBytes = [UInt8](salt) + [0]
            var derived = Data(count: keyLength)
            let status = derived.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int32 in
                passwordBytes.withUnsafeBytes { (passwordRaw: UnsafeRawBufferPointer) -> Int32 in
                    saltBytes.withUnsafeBytes { (saltRaw: UnsafeRawBufferPointer) -> Int32 in
                        CCKeyDerivationPBKDF(
                            CCPBKDFAlgorithm(kCCPBKDF2),
                            passwordRaw.baseAddress?.assumingMemoryBound(to: CChar.self), passwordBytes.count - 1,
                            saltRaw.baseAddress?.assumingMemoryBound(to: UInt8.self), saltBytes.count - 1,
                            CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), UInt32(iterations),
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self), keyLength)
                    }
                }
            }
            guard status == kCCSuccess else { throw .backend("CCKeyDerivationPBKDF failed with status \(status)") }
            return derived
        }
    #else
        private static func derive(
            password: some DataProtocol, salt: some DataProtocol, iterations: Int, keyLength: Int
        ) throws(CryptoError) -> Data {
            guard let digest = OpenSSLAlgorithms.shared.sha256 else { throw OpenSSL.failure("SHA-256 unavailable") }
            var derived = Data(count: keyLength)
            try OpenSSL.withMutableBytes(&derived) { (out) throws(CryptoError) in
                try OpenSSL.withContiguousBytes(password) { (passwordRaw) throws(CryptoError) in
                    try OpenSSL.withContiguousBytes(salt) { (saltRaw) throws(CryptoError) in
                        let passwordPointer = UnsafeRawPointer(OpenSSL.base(passwordRaw))
                            .assumingMemoryBound(to: CChar.self)
                        let status = PKCS5_PBKDF2_HMAC(
                            passwordPointer, Int32(passwordRaw.count),
                            OpenSSL.base(saltRaw), Int32(saltRaw.count),
                            Int32(iterations), digest, Int32(keyLength),
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                        guard status == 1 else { throw OpenSSL.failure("PKCS5_PBKDF2_HMAC") }
                    }
                }
            }
            return derived
        }
    #endif
}
