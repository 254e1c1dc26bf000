import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import COpenSSL
#endif

/// Authenticated encryption with AES-256-GCM (NIST SP 800-38D): 32-byte keys, 12-byte nonces, 16-byte tags.
///
/// GCM both encrypts and authenticates: ``open(_:key:authenticating:)`` returns plaintext only when the key,
/// nonce, ciphertext, tag and associated data are all exactly what ``seal(_:key:nonce:authenticating:)`` used.
/// A nonce must never be reused with the same key (reuse leaks the XOR of plaintexts and allows forgeries), so let
/// `seal` pick a random nonce unless a protocol dictates one. All functions are thread-safe.
public enum AESGCM {
    /// Key size in bytes: AES-256 only, so every stored secret has the same 256-bit strength.
    public static let keyLength = 32
    /// Nonce size in bytes: 96 bits is the size GCM is designed and analysed for.
    public static let nonceLength = 12
    /// Tag size in bytes: the full 128-bit tag, as shorter tags make forgeries easier.
    public static let tagLength = 16

    /// Encrypts and authenticates `plaintext`, also authenticating (but not encrypting) `aad`.
    ///
    /// - Parameters:
    ///   - plaintext: Any bytes, including empty and non-contiguous buffers; streamed without copying.
    ///   - key: Exactly ``keyLength`` bytes.
    ///   - requestedNonce: Exactly ``nonceLength`` bytes, or `nil` (the default) for a fresh random nonce; pass one only
    ///     when a protocol requires it, and never reuse it under the same key.
    ///   - aad: Associated data, such as a record identifier, that must match when opening.
    /// - Returns: A box whose ``SealedBox/combined`` form can be stored or sent.
    /// - Throws: ``CryptoError/invalidKeyLength(expected:actual:)``,
    ///   ``CryptoError/invalidNonceLength(expected:actual:)``, or ``CryptoError/backend(_:)`` if the library
    ///   refuses.
    public static func seal(
        _ plaintext: some DataProtocol, key: Data, nonce requestedNonce: Data? = nil, authenticating aad: Data = Data()
    ) throws(CryptoError) -> SealedBox {
        guard key.count == keyLength else { throw .invalidKeyLength(expected: keyLength, actual: key.count) }
        let nonce: Data
        if let requestedNonce {
            nonce = requestedNonce
        } else {
            nonce = try freshNonce()
        }
        guard nonce.count == nonceLength else {
            throw .invalidNonceLength(expected: nonceLength, actual: nonce.count)
        }
        #if canImport(CryptoKit)
            do {
                let sealed = try AES.GCM.seal(
                    plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce),
                    authenticating: aad)
                return try SealedBox(nonce: nonce, ciphertext: sealed.ciphertext, tag: sealed.tag)
            } catch let error as CryptoError {
                throw error
            } catch {
                throw CryptoError.backend("AES-GCM seal failed: \(error)")
            }
        #else
            return try openSSLSeal(plaintext, key: key, nonce: nonce, aad: aad)
        #endif
    }

    /// Checks `box` against `key` and `aad` and, only if it is authentic, returns the plaintext.
    ///
    /// - Throws: ``CryptoError/authenticationFailed`` for a wrong key, wrong `aad`, or any altered byte of the
    ///   nonce, ciphertext or tag (no partial plaintext is ever returned);
    ///   ``CryptoError/invalidKeyLength(expected:actual:)`` for a key that is not ``keyLength`` bytes; or
    ///   ``CryptoError/backend(_:)`` if the library refuses.
    public static func open(_ box: SealedBox, key: Data, authenticating aad: Data = Data()) throws(CryptoError) -> Data
    {
        guard key.count == keyLength else { throw .invalidKeyLength(expected: keyLength, actual: key.count) }
        #if canImport(CryptoKit)
            do {
                let sealed = try AES.GCM.SealedBox(
                    nonce: AES.GCM.Nonce(data: box.nonce), ciphertext: box.ciphertext, tag: box.tag)
                return try AES.GCM.open(sealed, using: SymmetricKey(data: key), authenticating: aad)
            } catch CryptoKitError.authenticationFailure {
                throw CryptoError.authenticationFailed
            } catch {
                throw CryptoError.backend("AES-GCM open failed: \(error)")
            }
        #else
            return try openSSLOpen(box, key: key, aad: aad)
        #endif
    }

    /// A random nonce: with 96 random bits, a key can seal about 2^32 messages before a repeat becomes a concern.
    private static func freshNonce() throws(CryptoError) -> Data {
        try SecureRandom.bytes(nonceLength)
    }

    #if !canImport(CryptoKit)
        /// Creates a cipher context keyed for encryption or decryption with `nonce`. The caller frees it.
        private static func makeContext(key: Data, nonce: Data, encrypt: Bool) throws(CryptoError) -> OpaquePointer {
            guard let cipher = OpenSSLAlgorithms.shared.aes256GCM, let context = EVP_CIPHER_CTX_new() else {
                throw OpenSSL.failure("EVP_CIPHER_CTX_new for AES-256-GCM")
            }
            let initialized = key.withUnsafeBytes { (keyRaw: UnsafeRawBufferPointer) -> Int32 in
                nonce.withUnsafeBytes { (nonceRaw: UnsafeRawBufferPointer) -> Int32 in
                    // The default GCM IV length is 12 bytes, which is the only length accepted here.
                    encrypt
                        ? EVP_EncryptInit_ex(context, cipher, nil, OpenSSL.base(keyRaw), OpenSSL.base(nonceRaw))
                        : EVP_DecryptInit_ex(context, cipher, nil, OpenSSL.base(keyRaw), OpenSSL.base(nonceRaw))
                }
            }
            guard initialized == 1 else {
                EVP_CIPHER_CTX_free(context)
                throw OpenSSL.failure(encrypt ? "EVP_EncryptInit_ex" : "EVP_DecryptInit_ex")
            }
            return context
        }

        /// Feeds `input` through the cipher in chunks; with `output` nil the input is associated data. Returns the
        /// number of bytes written.
        private static func update(
            _ context: OpaquePointer, _ input: some DataProtocol, output: UnsafeMutablePointer<UInt8>?,
            encrypt: Bool
        ) throws(CryptoError) -> Int {
            var written = 0
            try OpenSSL.forEachChunk(of: input) { (chunk) throws(CryptoError) in
                var produced: Int32 = 0
                let out = output.map { $0 + written }
                let status =
                    encrypt
                    ? EVP_EncryptUpdate(context, out, &produced, OpenSSL.base(chunk), Int32(chunk.count))
                    : EVP_DecryptUpdate(context, out, &produced, OpenSSL.base(chunk), Int32(chunk.count))
                guard status == 1 else { throw OpenSSL.failure(encrypt ? "EVP_EncryptUpdate" : "EVP_DecryptUpdate") }
                written += Int(produced)
            }
            return written
        }

        private static func openSSLSeal(
            _ plaintext: some DataProtocol, key: Data, nonce: Data, aad: Data
        ) throws(CryptoError) -> SealedBox {
            let context = try makeContext(key: key, nonce: nonce, encrypt: true)
            defer { EVP_CIPHER_CTX_free(context) }
            _ = try update(context, aad, output: nil, encrypt: true)
            let count = plaintext.count
            // One buffer for nonce || ciphertext || tag, so `combined` needs no copy later.
            var combined = Data(count: nonceLength + count + tagLength)
            try OpenSSL.withMutableBytes(&combined) { (raw) throws(CryptoError) in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    throw .backend("could not allocate the output buffer")
                }
                nonce.copyBytes(to: base, count: nonceLength)
                let ciphertext = base + nonceLength
                let written = try update(context, plaintext, output: ciphertext, encrypt: true)
                var finalLength: Int32 = 0
                // GCM emits nothing at the end; the pointer only has to be valid (it is the tag area here).
                guard written == count, EVP_EncryptFinal_ex(context, ciphertext + written, &finalLength) == 1,
                    finalLength == 0
                else { throw OpenSSL.failure("EVP_EncryptFinal_ex") }
                guard
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), ciphertext + count) == 1
                else { throw OpenSSL.failure("EVP_CTRL_GCM_GET_TAG") }
            }
            return SealedBox(validatedCombined: combined)
        }

        private static func openSSLOpen(_ box: SealedBox, key: Data, aad: Data) throws(CryptoError) -> Data {
            let context = try makeContext(key: key, nonce: box.nonce, encrypt: false)
            defer { EVP_CIPHER_CTX_free(context) }
            var tag = [UInt8](box.tag)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1 else {
                throw OpenSSL.failure("EVP_CTRL_GCM_SET_TAG")
            }
            _ = try update(context, aad, output: nil, encrypt: false)
            let count = box.ciphertext.count
            var plaintext = Data(count: count)
            let authentic: Bool
            do {
                authentic = try decrypt(box.ciphertext, with: context, into: &plaintext)
            } catch {
                plaintext.resetBytes(in: 0..<count)
                throw error
            }
            guard authentic else {
                // Never hand out, or leave lying around, plaintext that failed authentication.
                plaintext.resetBytes(in: 0..<count)
                ERR_clear_error()
                throw .authenticationFailed
            }
            return plaintext
        }

        /// Decrypts `ciphertext` into `plaintext` (already sized to match) and reports whether the tag verified.
        private static func decrypt(
            _ ciphertext: Data, with context: OpaquePointer, into plaintext: inout Data
        ) throws(CryptoError) -> Bool {
            let count = ciphertext.count
            return try OpenSSL.withMutableBytes(&plaintext) { (raw) throws(CryptoError) -> Bool in
                var scratch = (UInt64(0), UInt64(0))
                return try withUnsafeMutableBytes(of: &scratch) { (scratchRaw) throws(CryptoError) -> Bool in
                    let output =
                        raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                        ?? scratchRaw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    let written = try update(context, ciphertext, output: output, encrypt: false)
                    guard written == count else { throw OpenSSL.failure("EVP_DecryptUpdate") }
                    var finalLength: Int32 = 0
                    // GCM emits nothing at the end, so a scratch buffer serves as the required output pointer.
                    let finalOutput = scratchRaw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return EVP_DecryptFinal_ex(context, finalOutput, &finalLength) == 1
                }
            }
        }
    #endif
}
