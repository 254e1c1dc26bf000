import Foundation

#if !canImport(CryptoKit)
    import COpenSSL
#endif
#if canImport(Security)
    import Security
#endif

/// An RSA public key given by its modulus and public exponent (big-endian, unsigned), as a JSON Web Key
/// carries it (`n`, `e`), for checking signatures.
///
/// Rules: the modulus must be at least 2048 bits (RFC 7518 §3.3 requires it for RS256, and a shorter
/// key is refused rather than trusted); the exponent must be odd and greater than 1. Linux checks with
/// OpenSSL's libcrypto, Apple platforms with the Security framework.
public struct RSAPublicKey: Sendable, Hashable {
    /// The smallest modulus accepted, in bits.
    public static let minimumBits = 2048

    /// The modulus, big-endian, without leading zero bytes.
    public let modulus: Data
    /// The public exponent, big-endian, without leading zero bytes.
    public let exponent: Data

    /// Creates a key, refusing a modulus under 2048 bits or an even (or unit) exponent.
    public init(modulus: Data, exponent: Data) throws(CryptoError) {
        let n = Data(modulus.drop { $0 == 0 })
        let e = Data(exponent.drop { $0 == 0 })
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n[n.startIndex].leadingZeroBitCount)
        guard bits >= Self.minimumBits else {
            throw .invalidParameter("the RSA modulus has \(bits) bits, at least \(Self.minimumBits) are required")
        }
        guard let last = e.last, last & 1 == 1, e != Data([1]), e.count <= 8 else {
            throw .invalidParameter("the RSA public exponent must be an odd number greater than 1")
        }
        self.modulus = n
        self.exponent = e
    }

    /// The modulus length in bits.
    public var bitCount: Int { (modulus.count - 1) * 8 + (8 - modulus[modulus.startIndex].leadingZeroBitCount) }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 signature with SHA-256 (JWS `RS256`) of `message`
    /// by this key. Any failure (a wrong length, a tampered message, another key) is `false`.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard signature.count == modulus.count else { return false }
        #if !canImport(CryptoKit)
            return verifyWithOpenSSL(signature, message)
        #elseif canImport(Security)
            return verifyWithSecurity(signature, message)
        #else
            return false
        #endif
    }

    #if !canImport(CryptoKit)
        private func verifyWithOpenSSL(_ signature: Data, _ message: Data) -> Bool {
            defer { ERR_clear_error() }
            guard let key = makeKey() else { return false }
            defer { EVP_PKEY_free(key) }
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, OpenSSLAlgorithms.shared.sha256, nil, key) == 1 else {
                return false
            }
            let result = signature.withUnsafeBytes { sig in
                message.withUnsafeBytes { msg in
                    EVP_DigestVerify(context, OpenSSL.base(sig), sig.count, OpenSSL.base(msg), msg.count)
                }
            }
            return result == 1
        }

        /// The key as an `EVP_PKEY` built from its parameters (OpenSSL 3 `EVP_PKEY_fromdata`).
        private func makeKey() -> OpaquePointer? {
            // OSSL_PARAM big numbers are unsigned and in native byte order.
            var n = [UInt8](modulus)
            var e = [UInt8](exponent)
            if UInt16(littleEndian: 1) == 1 {
                n.reverse()
                e.reverse()
            }
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_fromdata_init(context) == 1 else { return nil }
            var key: OpaquePointer?
            // EVP_PKEY_PUBLIC_KEY: public key plus all parameters (0x02 | 0x04 | 0x80); the C macro is a
            // compound expression Swift does not import.
            let selection: Int32 = 0x86
            // The parameter names must outlive the OSSL_PARAM array (it keeps the pointers), so both
            // are held open around the whole call.
            let status = "n".withCString { nName in
                "e".withCString { eName in
                    n.withUnsafeMutableBufferPointer { nBuffer in
                        e.withUnsafeMutableBufferPointer { eBuffer in
                            var params = [
                                OSSL_PARAM_construct_BN(nName, nBuffer.baseAddress, nBuffer.count),
                                OSSL_PARAM_construct_BN(eName, eBuffer.baseAddress, eBuffer.count),
                                OSSL_PARAM_construct_end(),
                            ]
                            return params.withUnsafeMutableBufferPointer {
                                EVP_PKEY_fromdata(context, &key, selection, $0.baseAddress)
                            }
                        }
                    }
                }
            }
            guard status == 1 else {
                if let key { EVP_PKEY_free(key) }
                return nil
            }
            return key
        }
    #elseif canImport(Security)
        // Apple platforms (not compiled on Linux): the Security framework takes the key as a DER
        // PKCS #1 RSAPublicKey, SEQUENCE { INTEGER n, INTEGER e }.
        private func verifyWithSecurity(_ signature: Data, _ message: Data) -> Bool {
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic,
                kSecAttrKeySizeInBits: bitCount,
            ]
            guard let key = SecKeyCreateWithData(Self.der(modulus, exponent) as CFData, attributes as CFDictionary, nil)
            else { return false }
            return SecKeyVerifySignature(
                key, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, signature as CFData, nil)
        }

        private static func der(_ n: Data, _ e: Data) -> Data {
            func length(_ count: Int) -> Data {
                if count < 0x80 { return Data([UInt8(count)]) }
                var bytes: [UInt8] = []
                var rest = count
                while rest > 0 {
                    bytes.insert(UInt8(rest & 0xff), at: 0)
                    rest >>= 8
                }
                return Data([0x80 | UInt8(bytes.count)] + bytes)
            }
            func integer(_ value: Data) -> Data {
                let body = (value.first ?? 0) & 0x80 != 0 ? Data([0]) + value : value
                return Data([0x02]) + length(body.count) + body
            }
            let content = integer(n) + integer(e)
            return Data([0x30]) + length(content.count) + content
        }
    #endif
}
