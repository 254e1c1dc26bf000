/// Why a cryptographic operation failed.
///
/// Every case carries only lengths, counts or library messages, so an error can be logged or shown without leaking
/// secrets: no case (and no `description`) ever contains key bytes, nonces, plaintext or ciphertext.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key had the wrong number of bytes (AES-256-GCM needs exactly 32), so it was refused rather than padded
    /// or truncated, which would silently weaken it.
    case invalidKeyLength(expected: Int, actual: Int)
    /// A nonce had the wrong number of bytes (AES-GCM here uses exactly 12), so it was refused rather than hashed
    /// into a different nonce that the other side could not reproduce.
    case invalidNonceLength(expected: Int, actual: Int)
    /// A combined sealed box was shorter than a nonce plus a tag, so it cannot be a valid box.
    case ciphertextTooShort(minimum: Int, actual: Int)
    /// The tag did not verify: wrong key, tampered ciphertext, nonce or tag, or different authenticated data.
    /// No plaintext is returned, because unauthenticated plaintext must never be used.
    case authenticationFailed
    /// An argument was outside the range the operation accepts (for example zero iterations or a negative count).
    /// The text names the parameter and the rule.
    case invalidParameter(String)
    /// The crypto library refused the operation. The text is the library's error message, never key material.
    case backend(String)

    /// A sentence a person can act on. It never includes key bytes, nonces or plaintext.
    public var description: String {
        switch self {
        case .invalidKeyLength(let expected, let actual):
            return "The key is \(actual) bytes long but must be exactly \(expected) bytes; "
                + "derive or generate a key of the right size."
        case .invalidNonceLength(let expected, let actual):
            return "The nonce is \(actual) bytes long but must be exactly \(expected) bytes; "
                + "pass nil to let the library generate a fresh random nonce."
        case .ciphertextTooShort(let minimum, let actual):
            return "The sealed data is \(actual) bytes long but needs at least \(minimum) bytes "
                + "(nonce plus tag); it is truncated or not a sealed box."
        case .authenticationFailed:
            return "The data could not be authenticated: the key or the associated data is wrong, "
                + "or the data was altered or corrupted."
        case .invalidParameter(let message):
            return "Invalid parameter: \(message)."
        case .backend(let message):
            return "The crypto library refused the operation: \(message)."
        }
    }
}
