import Foundation

/// How a stored key is protected; the secret-store request carries it so a test can assert it (P-KEY-1).
public struct KeyProtection: Sendable, Hashable {
    /// Readable only after Face ID / Touch ID with the current enrolment (`.biometryCurrentSet`).
    public var biometryCurrentSet: Bool
    /// Never leaves this device (`…ThisDeviceOnly` accessibility; not in backups).
    public var thisDeviceOnly: Bool

    /// Creates a protection.
    public init(biometryCurrentSet: Bool, thisDeviceOnly: Bool) {
        self.biometryCurrentSet = biometryCurrentSet
        self.thisDeviceOnly = thisDeviceOnly
    }

    /// Vault keys: Face ID with the current enrolment, this device only (P-KEY-1).
    public static let vaultKey = KeyProtection(biometryCurrentSet: true, thisDeviceOnly: true)

    /// The OpenRouter key: biometry is the person's choice (P-SECRET-1).
    public static func openRouter(biometric: Bool) -> KeyProtection {
        KeyProtection(biometryCurrentSet: biometric, thisDeviceOnly: true)
    }

    /// `Face ID (current enrolment), this device only`, for the Keys panel.
    public var summary: String {
        var parts: [String] = []
        parts.append(biometryCurrentSet ? "Face ID (current enrolment)" : "no biometric lock")
        if thisDeviceOnly { parts.append("this device only") }
        return parts.joined(separator: ", ")
    }
}
