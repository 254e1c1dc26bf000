// Internal plumbing shared by the OpenSSL (Linux) backends. Nothing here is public.
#if !canImport(CryptoKit)
    import COpenSSL
    import Foundation

    /// OpenSSL algorithm objects fetched once per process.
    ///
    /// OpenSSL 3 otherwise performs an implicit fetch (a locked provider lookup) on every `EVP_*Init` call made with
    /// `EVP_sha256()` or `EVP_aes_256_gcm()`. Fetched objects are immutable and reference counted, and OpenSSL
    /// documents them as safe to share between threads, hence `@unchecked Sendable`. They live for the whole
    /// process, so they are never freed.
    final class OpenSSLAlgorithms: @unchecked Sendable {
        static let shared = OpenSSLAlgorithms()

        /// `EVP_MD *` for SHA-256 (falls back to the legacy, implicitly fetched object).
        let sha256: OpaquePointer?
        /// `EVP_CIPHER *` for AES-256-GCM (falls back to the legacy, implicitly fetched object).
        let aes256GCM: OpaquePointer?
        /// `EVP_MAC *` for HMAC.
        let hmac: OpaquePointer?
        /// One readable byte, passed as the pointer for empty inputs: some OpenSSL entry points reject a NULL
        /// pointer even when the length is zero, and `Data.withUnsafeBytes` yields a nil base address when empty.
        let emptyInput: UnsafeMutablePointer<UInt8>

        private init() {
            sha256 = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
            aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) ?? EVP_aes_256_gcm()
            hmac = EVP_MAC_fetch(nil, "HMAC", nil)
            emptyInput = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
            emptyInput.initialize(to: 0)
            ERR_clear_error()
        }
    }

    /// Helpers for calling libcrypto from Swift.
    enum OpenSSL {
        /// The most bytes handed to one OpenSSL call. Several EVP functions take `int` lengths, so larger inputs are
        /// streamed in pieces; 16 MiB keeps the per-call overhead negligible.
        static let maxChunk = 16 << 20

        /// A non-null pointer to the first byte of `raw` (a shared readable byte when `raw` is empty).
        static func base(_ raw: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
            guard let address = raw.baseAddress else { return UnsafePointer(OpenSSLAlgorithms.shared.emptyInput) }
            return address.assumingMemoryBound(to: UInt8.self)
        }

        /// Drains this thread's OpenSSL error queue into one line, prefixed by `operation`.
        ///
        /// OpenSSL error strings name the failing function and reason; they never contain key material.
        static func failure(_ operation: String) -> CryptoError {
            var reasons: [String] = []
            var code = ERR_get_error()
            while code != 0 {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                reasons.append(String(decoding: bytes, as: UTF8.self))
                code = ERR_get_error()
            }
            return .backend(reasons.isEmpty ? operation : "\(operation) (\(reasons.joined(separator: "; ")))")
        }

        /// Calls `body` with the bytes of `data`, keeping `body`'s typed error.
        static func withBytes<R>(
            _ data: Data, _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R
        ) throws(CryptoError) -> R {
            let result = data.withUnsafeBytes { raw in
                Result { () throws(CryptoError) -> R in try body(raw) }
            }
            return try result.get()
        }

        /// Calls `body` with the writable bytes of `data`, keeping `body`'s typed error.
        static func withMutableBytes<R>(
            _ data: inout Data, _ body: (UnsafeMutableRawBufferPointer) throws(CryptoError) -> R
        ) throws(CryptoError) -> R {
            let result = data.withUnsafeMutableBytes { raw in
                Result { () throws(CryptoError) -> R in try body(raw) }
            }
            return try result.get()
        }

        /// Calls `body` with `data` as one contiguous buffer. Contiguous types (`Data`, `[UInt8]`, …) are used in
        /// place; anything else (for example a multi-region `DispatchData`) is copied once. Meant for short inputs
        /// such as keys, passwords and salts; long inputs go through ``forEachChunk(of:_:)`` instead.
        static func withContiguousBytes<R>(
            _ data: some DataProtocol, _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R
        ) throws(CryptoError) -> R {
            let direct = data.withContiguousStorageIfAvailable { buffer in
                Result { () throws(CryptoError) -> R in try body(UnsafeRawBufferPointer(buffer)) }
            }
            if let direct { return try direct.get() }
            let copy = [UInt8](data)
            let result = copy.withUnsafeBytes { raw in
                Result { () throws(CryptoError) -> R in try body(raw) }
            }
            return try result.get()
        }

        /// Calls `body` with successive non-empty pieces of `data`, each at most `maxChunk` bytes, without copying.
        /// Works for non-contiguous inputs by walking their regions.
        static func forEachChunk(
            of data: some DataProtocol, _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> Void
        ) throws(CryptoError) {
            for region in data.regions {
                let result = region.withUnsafeBytes { raw in
                    Result { () throws(CryptoError) in
                        var offset = 0
                        while offset < raw.count {
                            let end = offset + min(maxChunk, raw.count - offset)
                            try body(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                            offset = end
                        }
                    }
                }
                try result.get()
            }
        }
    }
#endif
