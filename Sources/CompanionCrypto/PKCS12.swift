import Foundation

#if !canImport(CryptoKit)
    import COpenSSL
#endif
#if canImport(Security)
    import Security
#endif

/// What a PKCS#12 file (`.p12`, `.pfx`) holds once opened with its passphrase: a client identity.
///
/// The private key is secret: it is kept only in memory or in the secret store, never printed
/// (`description` names the certificate count only).
public struct PKCS12Contents: Sendable, Hashable, CustomStringConvertible {
    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), for libcurl on Linux;
    /// `nil` on Apple platforms, where the key stays inside the `SecIdentity` the Security framework made. It
    /// exists only because libcurl on Linux takes a client key as bytes.
    public var privateKeyPEM: Data?
    /// The certificates, DER: the one matching the key first, then the rest of the chain the file carried
    /// (intermediates), in the file's order.
    public var certificates: [Data]

    /// Creates contents.
    public init(privateKeyPEM: Data?, certificates: [Data]) {
        self.privateKeyPEM = privateKeyPEM
        self.certificates = certificates
    }

    /// The certificate chain as PEM (leaf first), the form libcurl takes as `CURLOPT_SSLCERT_BLOB`.
    public var certificateChainPEM: Data {
        var text = ""
        for certificate in certificates {
            text += "-----BEGIN CERTIFICATE-----\n"
            let base64 = certificate.base64EncodedString()
            var index = base64.startIndex
            while index < base64.endIndex {
                let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
                text += base64[index..<end] + "\n"
                index = end
            }
            text += "-----END CERTIFICATE-----\n"
        }
        return Data(text.utf8)
    }

    /// The certificate count, never the key.
    public var description: String { "PKCS#12 identity with \(certificates.count) certificate(s)" }
}

/// Why a PKCS#12 file could not be opened. No case carries the passphrase or key bytes.
public enum PKCS12Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The passphrase does not open the file (its integrity check failed).
    case wrongPassphrase
    /// The bytes are not a PKCS#12 file, or it is damaged.
    case notPKCS12
    /// The file opened but holds no private key.
    case noPrivateKey
    /// The file opened but holds no certificate for its key.
    case noCertificate
    /// The file uses an algorithm this system cannot read; `detail` is the crypto library's reason.
    case unsupported(detail: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .wrongPassphrase:
            return "The passphrase does not open this PKCS#12 file. Check it and try again."
        case .notPKCS12:
            return "This is not a PKCS#12 (.p12 or .pfx) file, or the file is damaged. Export the identity again."
        case .noPrivateKey:
            return "The PKCS#12 file holds no private key. Export the certificate together with its key."
        case .noCertificate:
            return "The PKCS#12 file holds no certificate for its key. Export the certificate together with its key."
        case .unsupported(let detail):
            return "The PKCS#12 file uses an algorithm this system cannot read (\(detail)). "
                + "Export it again with AES-256 (OpenSSL 3's default) or the legacy 3DES format."
        }
    }
}

/// Opens PKCS#12 files: OpenSSL on Linux (both the current AES/PBKDF2 format and the legacy RC2/3DES one),
/// the Security framework on Apple platforms.
public enum PKCS12 {
    /// Opens `data` with `passphrase`. A wrong passphrase is `.wrongPassphrase`, never a crash.
    public static func open(_ data: Data, passphrase: String) throws(PKCS12Error) -> PKCS12Contents {
        #if !canImport(CryptoKit)
            return try openWithOpenSSL(data, passphrase: passphrase)
        #elseif canImport(Security)
            return try openWithSecurity(data, passphrase: passphrase)
        #else
            throw .unsupported(detail: "no PKCS#12 reader on this platform")
        #endif
    }

    #if !canImport(CryptoKit)
        /// OpenSSL 3 reads RC2-40 (the format of many older exports) only through its legacy provider, and
        /// loading any provider explicitly turns off the implicit default one, so both are loaded, once.
        private static let providers: Bool = {
            let legacy = OSSL_PROVIDER_load(nil, "legacy")
            let standard = OSSL_PROVIDER_load(nil, "default")
            ERR_clear_error()
            return legacy != nil && standard != nil
        }()

        private static func openWithOpenSSL(_ data: Data, passphrase: String) throws(PKCS12Error) -> PKCS12Contents {
            _ = providers
            defer { ERR_clear_error() }
            let parsed: OpaquePointer? = data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, raw.count < Int(Int32.max) else { return nil }
                guard let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return nil }
                defer { BIO_free(bio) }
                return d2i_PKCS12_bio(bio, nil)
            }
            guard let p12 = parsed else { throw .notPKCS12 }
            defer { PKCS12_free(p12) }
            let passwordLength = Int32(passphrase.utf8.count)
            let macOK = passphrase.withCString { PKCS12_verify_mac(p12, $0, passwordLength) }
            guard macOK == 1 else { throw .wrongPassphrase }
            var key: OpaquePointer?
            var leaf: OpaquePointer?
            var chain: OpaquePointer?
            let parsedOK = passphrase.withCString { PKCS12_parse(p12, $0, &key, &leaf, &chain) }
            defer {
                if let key { EVP_PKEY_free(key) }
                if let leaf { X509_free(leaf) }
                if let chain { ck_x509_stack_free(chain) }
            }
            guard parsedOK == 1 else {
                // The library's reason names the algorithm it lacks ("unsupported ... RC2-40-CBC"), never key bytes.
                if case .backend(let reason) = OpenSSL.failure("PKCS12_parse"), reason.contains("unsupported") {
                    throw .unsupported(detail: reason)
                }
                throw .notPKCS12
            }
            guard let key else { throw .noPrivateKey }
            guard let leaf, let leafDER = der(leaf) else { throw .noCertificate }
            var certificates = [leafDER]
            if let chain {
                for index in 0..<ck_x509_stack_count(chain) {
                    if let certificate = ck_x509_stack_at(chain, index), let bytes = der(certificate) {
                        certificates.append(bytes)
                    }
                }
            }
            guard let pem = privateKeyPEM(key) else { throw .unsupported(detail: "the key could not be exported") }
            return PKCS12Contents(privateKeyPEM: pem, certificates: certificates)
        }

        private static func der(_ certificate: OpaquePointer) -> Data? {
            let length = i2d_X509(certificate, nil)
            guard length > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: Int(length))
            let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return i2d_X509(certificate, &cursor)
            }
            return written == length ? Data(bytes) : nil
        }

        private static func privateKeyPEM(_ key: OpaquePointer) -> Data? {
            guard let bio = BIO_new(BIO_s_mem()) else { return nil }
            defer { BIO_free(bio) }
            guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { return nil }
            var pointer: UnsafeMutablePointer<CChar>?
            let length = ck_bio_mem_data(bio, &pointer)
            guard length > 0, let pointer else { return nil }
            return Data(bytes: pointer, count: length)
        }
    #endif

    #if canImport(Security) && canImport(CryptoKit)
        /// Apple platforms: `SecPKCS12Import`. Not compiled on Linux. Older systems reject OpenSSL 3's default
        /// format with a wrong-passphrase status; docs/networks.md says how to export for them.
        private static func openWithSecurity(_ data: Data, passphrase: String) throws(PKCS12Error) -> PKCS12Contents {
            var items: CFArray?
            let options: [String: Any] = [
                kSecImportExportPassphrase as String: passphrase,
                // Reading a file stores nothing: without this (iOS 18, macOS 15) macOS adds the identity to the login
                // keychain.
                kSecImportToMemoryOnly as String: true,
            ]
            let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
            switch status {
            case errSecSuccess: break
            case errSecAuthFailed, errSecPkcs12VerifyFailure: throw .wrongPassphrase
            case errSecDecode, errSecUnknownFormat: throw .notPKCS12
            default: throw .unsupported(detail: "status \(status)")
            }
            guard let first = (items as? [[String: Any]])?.first else { throw .noCertificate }
            guard let identityValue = first[kSecImportItemIdentity as String] else { throw .noPrivateKey }
            // Security returns a SecIdentity for this key; its type is checked by CFGetTypeID before the cast.
            let object = identityValue as CFTypeRef
            guard CFGetTypeID(object) == SecIdentityGetTypeID() else { throw .noPrivateKey }
            let identity = unsafeBitCast(object, to: SecIdentity.self)
            var leaf: SecCertificate?
            guard SecIdentityCopyCertificate(identity, &leaf) == errSecSuccess, let leaf else { throw .noCertificate }
            var certificates = [SecCertificateCopyData(leaf) as Data]
            for certificate in (first[kSecImportItemCertChain as String] as? [SecCertificate]) ?? [] {
                let bytes = SecCertificateCopyData(certificate) as Data
                if !certificates.contains(bytes) { certificates.append(bytes) }
            }
            return PKCS12Contents(privateKeyPEM: nil, certificates: certificates)
        }
    #endif
}
