import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import COpenSSL
#endif

/// Cryptographic hashing.
///
/// Only SHA-256 is offered: it is the digest every companion protocol here uses, and a single choice avoids
/// accidentally mixing algorithms between the phone and the desktop side.
public enum Hash {
    /// Returns the 32-byte SHA-256 digest of `data`.
    ///
    /// Any `DataProtocol` works, including non-contiguous buffers such as `DispatchData`; the input is streamed
    /// into the hash without being copied, so multi-gigabyte inputs are fine. Hashing cannot fail for valid
    /// input, so this does not throw; the only failure is the crypto library being unable to allocate a context,
    /// which stops the process rather than returning a wrong digest.
    public static func sha256(_ data: some DataProtocol) -> Data {
        #if canImport(CryptoKit)
            return Data(SHA256.hash(data: data))
        #else
            do {
                return try openSSLSHA256(data)
            } catch {
                preconditionFailure("SHA-256 failed: \(error)")
            }
        #endif
    }

    #if !canImport(CryptoKit)
        private static func openSSLSHA256(_ data: some DataProtocol) throws(CryptoError) -> Data {
            guard let digest = OpenSSLAlgorithms.shared.sha256, let context = EVP_MD_CTX_new() else {
                throw OpenSSL.failure("EVP_MD_CTX_new for SHA-256")
            }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestInit_ex(context, digest, nil) == 1 else { throw OpenSSL.failure("EVP_DigestInit_ex") }
            try OpenSSL.forEachChunk(of: data) { (chunk) throws(CryptoError) in
                guard EVP_DigestUpdate(context, chunk.baseAddress, chunk.count) == 1 else {
                    throw OpenSSL.failure("EVP_DigestUpdate")
                }
            }
            var output = Data(count: 32)
            var length: UInt32 = 0
            try OpenSSL.withMutableBytes(&output) { (raw) throws(CryptoError) in
                let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                guard EVP_DigestFinal_ex(context, out, &length) == 1, length == 32 else {
                    throw OpenSSL.failure("EVP_DigestFinal_ex")
                }
            }
            return output
        }
    #endif
}
