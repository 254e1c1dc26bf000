import CompanionCrypto
import Foundation

#if canImport(CZlib)
    import CZlib
#elseif canImport(zlib)
    import zlib
#endif

/// The few primitives the vault reader needs, in one place: `CompanionCrypto` for hashing, HMAC, PBKDF2 and
/// AES-256-GCM, and zlib for pack-vault blobs.
enum VaultCrypto {
    /// SHA-256 of `data`.
    static func sha256(_ data: Data) -> Data { Hash.sha256(data) }

    /// HMAC-SHA256 of `message` under `key`.
    static func hmacSHA256(key: Data, message: Data) -> Data {
        MessageAuthentication.hmacSHA256(key: key, message: message)
    }

    /// PBKDF2-HMAC-SHA256; `nil` when the library refuses.
    static func pbkdf2SHA256(password: Data, salt: Data, iterations: Int, keyLength: Int) -> Data? {
        try? KeyDerivation.pbkdf2SHA256(password: password, salt: salt, iterations: iterations, keyLength: keyLength)
    }

    /// AES-256-GCM open of `nonce(12) ‖ ciphertext ‖ tag(16)` with no associated data; `nil` when the tag fails.
    static func openAESGCM(combined: Data, key: Data) -> Data? {
        guard combined.count >= 28, key.count == 32, let box = try? SealedBox(combined: combined) else { return nil }
        return try? AESGCM.open(box, key: key)
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
