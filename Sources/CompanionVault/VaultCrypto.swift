import Foundation

#if canImport(COpenSSL)
    import COpenSSL
#endif
#if canImport(CZlib)
    import CZlib
#elseif canImport(zlib)
    import zlib
#endif
#if canImport(CryptoKit)
    import CryptoKit
    import CommonCrypto
#endif

/// The few primitives the vault reader needs, in one place.
///
/// Note for the lead: this adapter talks to libcrypto (Linux) or CryptoKit/CommonCrypto (Apple) directly
/// because `CompanionCrypto` had not landed when the vault reader was written. Its four functions map one to
/// one onto `Hash.sha256`, `MessageAuthentication.hmacSHA256`, `AESGCM.open(SealedBox(combined:))` and
/// `KeyDerivation.pbkdf2SHA256`; switching means replacing the bodies below and nothing else.
enum VaultCrypto {
    /// SHA-256 of `data`.
    static func sha256(_ data: Data) -> Data {
        #if canImport(CryptoKit)
            return Data(SHA256.hash(data: data))
        #else
            var digest = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 32
            data.withUnsafeBytes { raw in
                _ = EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
            }
            return Data(digest)
        #endif
    }

    /// HMAC-SHA256 of `message` under `key`.
    static func hmacSHA256(key: Data, message: Data) -> Data {
        #if canImport(CryptoKit)
            return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #else
            var digest = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 32
            key.withUnsafeBytes { keyRaw in
                message.withUnsafeBytes { messageRaw in
                    _ = HMAC(
                        EVP_sha256(), keyRaw.baseAddress, Int32(keyRaw.count),
                        messageRaw.bindMemory(to: UInt8.self).baseAddress, messageRaw.count, &digest, &length)
                }
            }
            return Data(digest.prefix(Int(length)))
        #endif
    }

    /// PBKDF2-HMAC-SHA256; `nil` when the library refuses.
    static func pbkdf2SHA256(password: Data, salt: Data, iterations: Int, keyLength: Int) -> Data? {
        var output = [UInt8](repeating: 0, count: keyLength)
        #if canImport(CryptoKit)
            let status = password.withUnsafeBytes { passwordRaw in
                salt.withUnsafeBytes { saltRaw in
                    CCKeyDerivationPBKDF(
                        CCPBKDFAlgorithm(kCCPBKDF2), passwordRaw.bindMemory(to: CChar.self).baseAddress,
                        passwordRaw.count, saltRaw.bindMemory(to: UInt8.self).baseAddress, saltRaw.count,
                        CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), UInt32(iterations), &output, keyLength)
                }
            }
            return status == kCCSuccess ? Data(output) : nil
        #else
            let status = password.withUnsafeBytes { passwordRaw in
                salt.withUnsafeBytes { saltRaw in
                    PKCS5_PBKDF2_HMAC(
                        passwordRaw.bindMemory(to: CChar.self).baseAddress, Int32(passwordRaw.count),
                        saltRaw.bindMemory(to: UInt8.self).baseAddress, Int32(saltRaw.count), Int32(iterations),
                        EVP_sha256(), Int32(keyLength), &output)
                }
            }
            return status == 1 ? Data(output) : nil
        #endif
    }

    /// AES-256-GCM open of `nonce(12) ‖ ciphertext ‖ tag(16)` with no associated data; `nil` when the tag fails.
    static func openAESGCM(combined: Data, key: Data) -> Data? {
        guard combined.count >= 28, key.count == 32 else { return nil }
        #if canImport(CryptoKit)
            guard let box = try? AES.GCM.SealedBox(combined: combined),
                let plain = try? AES.GCM.open(box, using: SymmetricKey(data: key))
            else { return nil }
            return plain
        #else
            let bytes = [UInt8](combined)
            let keyBytes = [UInt8](key)
            let cipherCount = bytes.count - 28
            guard let context = EVP_CIPHER_CTX_new() else { return nil }
            defer { EVP_CIPHER_CTX_free(context) }
            var output = [UInt8](repeating: 0, count: max(cipherCount, 1))
            var produced: Int32 = 0
            var finalCount: Int32 = 0
            let ok: Bool = bytes.withUnsafeBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, nil) == 1,
                    EVP_DecryptInit_ex(context, nil, nil, keyBytes, base) == 1
                else { return false }
                var offset = 0
                // Feed in chunks so a count over Int32.max never truncates.
                while offset < cipherCount {
                    let chunk = min(cipherCount - offset, 1 << 30)
                    var chunkOut: Int32 = 0
                    let status = output.withUnsafeMutableBufferPointer { out in
                        EVP_DecryptUpdate(
                            context, out.baseAddress.map { $0 + offset }, &chunkOut, base + 12 + offset, Int32(chunk))
                    }
                    guard status == 1 else { return false }
                    offset += chunk
                    produced += chunkOut
                }
                let tag = UnsafeMutableRawPointer(mutating: base + 12 + cipherCount)
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1 else { return false }
                return output.withUnsafeMutableBufferPointer { out in
                    EVP_DecryptFinal_ex(context, out.baseAddress.map { $0 + Int(produced) }, &finalCount) == 1
                }
            }
            guard ok else { return nil }
            return Data(output.prefix(cipherCount))
        #endif
    }

    /// Inflates a zlib (`windowBits` 15) or raw deflate (`windowBits` -15) stream, refusing output over `limit`.
    static func inflateStream(_ input: Data, windowBits: Int32, limit: Int) -> Data? {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        let chunkSize = 1 << 16
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var source = [UInt8](input)
        let result: Int32 = source.withUnsafeMutableBufferPointer { inBuffer -> Int32 in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                    guard let base = outBuffer.baseAddress else { return Z_MEM_ERROR }
                    stream.next_out = base
                    stream.avail_out = UInt32(chunkSize)
                    let code = zlibInflate(&stream)
                    output.append(base, count: chunkSize - Int(stream.avail_out))
                    return code
                }
                if output.count > limit { return Z_BUF_ERROR }
                if status == Z_STREAM_END { return status }
                if status != Z_OK { return status }
                if stream.avail_in == 0, stream.avail_out != 0 { return Z_DATA_ERROR }
            }
        }
        return result == Z_STREAM_END ? output : nil
    }

    private static func zlibInflate(_ stream: inout z_stream) -> Int32 {
        #if canImport(CZlib)
            return CZlib.inflate(&stream, Z_NO_FLUSH)
        #else
            return zlib.inflate(&stream, Z_NO_FLUSH)
        #endif
    }
}
