import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import COpenSSL
#endif

/// Message authentication: HMAC-SHA256 and constant-time comparison of authentication codes.
public enum MessageAuthentication {
    /// Returns the 32-byte HMAC-SHA256 of `message` under `key` (RFC 2104 / RFC 4231).
    ///
    /// Keys of any length are accepted, as HMAC defines (an empty key is valid; keys longer than 64 bytes are
    /// hashed first). The message is streamed without copying, so non-contiguous and very large inputs work.
    /// Compare codes with ``isEqualInConstantTime(_:_:)``, never `==`, so timing does not reveal how many leading
    /// bytes of a forged code were right. Like hashing, this cannot fail for valid input and so does not throw.
    public static func hmacSHA256(key: some DataProtocol, message: some DataProtocol) -> Data {
        #if canImport(CryptoKit)
            let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(key)))
            return Data(code)
        #else
            do {
                return try openSSLHMACSHA256(key: key, message: message)
            } catch {
                preconditionFailure("HMAC-SHA256 failed: \(error)")
            }
        #endif
    }

    /// Returns whether `a` and `b` hold the same bytes, taking time that depends only on their lengths.
    ///
    /// Use it for MACs, tags and tokens: an early-exit comparison such as `==` leaks, through timing, how long a
    /// matching prefix an attacker has guessed. Lengths are not secret, so different lengths return `false` at once.
    public static func isEqualInConstantTime(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { (left: UnsafeRawBufferPointer) -> Bool in
            b.withUnsafeBytes { (right: UnsafeRawBufferPointer) -> Bool in
                #if canImport(CryptoKit)
                    var difference: UInt8 = 0
                    for index in 0..<left.count {
                        difference |= left[index] ^ right[index]
                    }
                    return difference == 0
                #else
                    guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return false }
                    return CRYPTO_memcmp(leftBase, rightBase, left.count) == 0
                #endif
            }
        }
    }

    #if !canImport(CryptoKit)
        private static func openSSLHMACSHA256(
            key: some DataProtocol, message: some DataProtocol
        ) throws(CryptoError) -> Data {
            guard let mac = OpenSSLAlgorithms.shared.hmac, let context = EVP_MAC_CTX_new(mac) else {
                throw OpenSSL.failure("EVP_MAC_CTX_new for HMAC")
            }
            defer { EVP_MAC_CTX_free(context) }
            // OSSL_PARAM stores the *pointers* to its key and value, so both C strings must outlive EVP_MAC_init.
            // (Passing a Swift String straight to OSSL_PARAM_construct_utf8_string leaves a dangling key pointer.)
            let parameterName = Array(OSSL_MAC_PARAM_DIGEST.utf8CString)
            var digestName = Array("SHA256".utf8CString)
            try OpenSSL.withContiguousBytes(key) { (keyBytes) throws(CryptoError) in
                let initialized = parameterName.withUnsafeBufferPointer { name in
                    digestName.withUnsafeMutableBufferPointer { value in
                        let parameters = [
                            OSSL_PARAM_construct_utf8_string(name.baseAddress, value.baseAddress, 0),
                            OSSL_PARAM_construct_end(),
                        ]
                        // A non-null key pointer even for an empty key: NULL would mean "keep the previous key".
                        return EVP_MAC_init(context, OpenSSL.base(keyBytes), keyBytes.count, parameters)
                    }
                }
                guard initialized == 1 else { throw OpenSSL.failure("EVP_MAC_init") }
            }
            try OpenSSL.forEachChunk(of: message) { (chunk) throws(CryptoError) in
                guard EVP_MAC_update(context, OpenSSL.base(chunk), chunk.count) == 1 else {
                    throw OpenSSL.failure("EVP_MAC_update")
                }
            }
            var output = Data(count: 32)
            try OpenSSL.withMutableBytes(&output) { (raw) throws(CryptoError) in
                var length = 0
                let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                guard EVP_MAC_final(context, out, &length, raw.count) == 1, length == 32 else {
                    throw OpenSSL.failure("EVP_MAC_final")
                }
            }
            return output
        }
    #endif
}
