import Foundation

/// Which certificates one server is trusted with, beyond the system's: given explicitly, for that server only.
///
/// Rules and reasons:
/// - The default (`.system`) trusts what the device trusts; nothing else, and there is no "allow invalid" switch
///   anywhere in the kit: a certificate that does not verify is a typed refusal carrying its fingerprint
///   (`HTTPError.untrustedCertificate`), and a person decides, for that server, whether to trust it.
/// - A **pin** trusts one public key (the SHA-256 of its SubjectPublicKeyInfo). A pinned server must present one
///   of its pinned keys, and then that key is what it is checked by, instead of a chain to a CA: a self-signed or
///   expired certificate of a home server is accepted because its key is the one the person checked, and any
///   other key (a renewed key, an interceptor) is refused naming both. Nothing is ever re-pinned silently.
/// - An **anchor** is a CA certificate (a home network's private CA) the server's chain may end at, checked as
///   the system checks any chain (names, dates, signatures).
/// - Trust is stored per server key in the secret store, beside the credential (`ServerNetwork`).
public struct ServerTrust: Sendable, Hashable, Codable {
    /// CA certificates (DER) this server's chain may end at.
    public var anchors: [Data]
    /// The public keys this server may present; when any is set, one of them must match.
    public var pins: [PinnedKey]

    /// Creates trust from anchors and pins.
    public init(anchors: [Data] = [], pins: [PinnedKey] = []) {
        self.anchors = anchors
        self.pins = pins
    }

    /// What the device trusts, nothing more.
    public static let system = ServerTrust()

    /// Whether nothing beyond the system's trust is set.
    public var isSystem: Bool { anchors.isEmpty && pins.isEmpty }

    /// A copy that also trusts `certificate`'s public key (no change when it is already pinned).
    public func pinning(_ certificate: ServerCertificate, at date: Date) -> ServerTrust {
        var copy = self
        if !copy.pins.contains(where: { $0.pin == certificate.publicKeyPin }) {
            copy.pins.append(PinnedKey(certificate: certificate, pinnedAt: date))
        }
        return copy
    }

    /// A copy that also trusts the CA certificate `der` (no change when it is already an anchor).
    public func anchoring(_ der: Data) -> ServerTrust {
        var copy = self
        if !copy.anchors.contains(der) { copy.anchors.append(der) }
        return copy
    }

    /// The anchors as one PEM bundle (`nil` when there are none).
    public var anchorsPEM: Data? {
        anchors.isEmpty ? nil : Data(anchors.map(ServerCertificate.pem).joined().utf8)
    }

    /// The pins in libcurl's `CURLOPT_PINNEDPUBLICKEY` form, `sha256//<base64>` joined by `;` (`nil` when none).
    ///
    /// It exists for the Linux libcurl transport only; on Apple platforms the Security glue compares the pins
    /// itself (`SecurityChallengeResponder`).
    public var curlPinnedKeys: String? {
        pins.isEmpty ? nil : pins.map { "sha256//" + $0.pin }.joined(separator: ";")
    }
}

/// One public key a person chose to trust for a server, with what it looked like when they did.
public struct PinnedKey: Sendable, Hashable, Codable {
    /// SHA-256 of the key's SubjectPublicKeyInfo, base64 (`ServerCertificate.publicKeyPin`).
    public var pin: String
    /// The SHA-256 fingerprint of the certificate that carried it.
    public var fingerprint: String
    /// That certificate's subject.
    public var subject: String
    /// When it was pinned.
    public var pinnedAt: Date

    /// The pin of `certificate`'s key.
    public init(certificate: ServerCertificate, pinnedAt: Date) {
        self.pin = certificate.publicKeyPin
        self.fingerprint = certificate.fingerprint
        self.subject = certificate.subject
        self.pinnedAt = pinnedAt
    }
}
