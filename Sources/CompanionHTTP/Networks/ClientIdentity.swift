import CompanionCrypto
import Foundation

/// A client certificate with its private key, imported from a PKCS#12 file, that a server (or the proxy in front
/// of it) may ask for during the TLS handshake.
///
/// Rules:
/// - It is kept in the secret store, once, under its `id`; servers refer to it by that id, so one identity can be
///   assigned to several servers and each of them gets it (not only the last one configured).
/// - It is sent only to servers it is assigned to, and only when the server asks; it travels with the chain the
///   file carried, so a leaf signed by an intermediate verifies at a server that knows only the root.
/// - The file and its passphrase are secret: `description` shows the certificate's subject only.
public struct ClientIdentity: Sendable, Hashable, Codable, CustomStringConvertible, Identifiable {
    /// The SHA-256 fingerprint of the leaf certificate, lowercase hex without separators.
    public var id: String
    /// The PKCS#12 file as imported.
    public var pkcs12: Data
    /// Its passphrase (needed again wherever the file is opened: the Keychain import on Apple platforms).
    public var passphrase: String
    /// The certificates, DER: the leaf first, then the chain the file carried.
    public var certificates: [Data]
    /// The leaf's subject.
    public var subject: String
    /// The leaf's issuer.
    public var issuer: String
    /// The leaf's last valid moment.
    public var notAfter: Date
    /// When it was imported.
    public var importedAt: Date

    /// Opens `pkcs12` with `passphrase` and keeps it: a wrong passphrase or a damaged file is a `PKCS12Error`.
    public init(importing pkcs12: Data, passphrase: String, at date: Date) throws(PKCS12Error) {
        let contents = try PKCS12.open(pkcs12, passphrase: passphrase)
        guard let leafDER = contents.certificates.first, let leaf = try? ServerCertificate(der: leafDER) else {
            throw .noCertificate
        }
        self.id = leaf.fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
        self.pkcs12 = pkcs12
        self.passphrase = passphrase
        self.certificates = contents.certificates
        self.subject = leaf.subject
        self.issuer = leaf.issuer
        self.notAfter = leaf.notAfter
        self.importedAt = date
    }

    /// Opens the stored file again: the private key and the chain, for a transport.
    public func contents() throws(PKCS12Error) -> PKCS12Contents {
        try PKCS12.open(pkcs12, passphrase: passphrase)
    }

    /// The secret values inside (to register with a journal so they are masked everywhere).
    public var secretValues: [String] { [passphrase] }

    /// The subject; never the key or the passphrase.
    public var description: String { "client certificate \(subject)" }
}
