import Foundation

/// The output of ``AESGCM/seal(_:key:nonce:authenticating:)``: an AES-256-GCM nonce, ciphertext and tag.
///
/// Both initializers check the nonce (12 bytes) and tag (16 bytes) lengths, so a box that exists is well formed
/// and ``AESGCM/open(_:key:authenticating:)`` only has to check the key and the tag's validity.
///
/// To avoid copying large ciphertexts, a box made by `seal` or by ``init(combined:)`` keeps one buffer:
/// ``ciphertext`` is then a slice of it whose `startIndex` may not be 0 (index it relative to `startIndex`, or
/// copy it with `Data(box.ciphertext)`), and ``combined`` returns that buffer without copying.
/// ``nonce`` and ``tag`` always start at index 0. Equality and hashing compare the three parts' bytes only.
public struct SealedBox: Sendable, Hashable {
    /// The 12-byte nonce. It must never repeat under one key; ``AESGCM`` picks a random one unless told otherwise.
    public let nonce: Data
    /// The encrypted bytes, exactly as long as the plaintext (GCM is a stream mode, so it adds no padding).
    public let ciphertext: Data
    /// The 16-byte authentication tag over the nonce, ciphertext and associated data.
    public let tag: Data
    /// `nonce || ciphertext || tag` when the box was built from, or sealed into, one buffer; `nil` otherwise.
    private let storage: Data?

    /// Builds a box from separate parts, for example fields of a wire format.
    ///
    /// - Throws: ``CryptoError/invalidNonceLength(expected:actual:)`` unless `nonce` is 12 bytes, and
    ///   ``CryptoError/invalidParameter(_:)`` unless `tag` is 16 bytes (truncated tags weaken authentication).
    public init(nonce: Data, ciphertext: Data, tag: Data) throws(CryptoError) {
        guard nonce.count == AESGCM.nonceLength else {
            throw .invalidNonceLength(expected: AESGCM.nonceLength, actual: nonce.count)
        }
        guard tag.count == AESGCM.tagLength else {
            throw .invalidParameter("the tag must be \(AESGCM.tagLength) bytes, got \(tag.count)")
        }
        self.nonce = Data(nonce)
        self.ciphertext = ciphertext
        self.tag = Data(tag)
        self.storage = nil
    }

    /// Splits `combined` (`nonce(12) || ciphertext || tag(16)`, the format ``combined`` produces) without copying
    /// the ciphertext.
    ///
    /// - Throws: ``CryptoError/ciphertextTooShort(minimum:actual:)`` if `combined` has fewer than 28 bytes, as it
    ///   then cannot hold a nonce and a tag.
    public init(combined: Data) throws(CryptoError) {
        let minimum = AESGCM.nonceLength + AESGCM.tagLength
        guard combined.count >= minimum else { throw .ciphertextTooShort(minimum: minimum, actual: combined.count) }
        self.init(validatedCombined: combined)
    }

    /// Wraps a buffer already known to hold at least a nonce and a tag.
    init(validatedCombined combined: Data) {
        let start = combined.startIndex
        let ciphertextStart = start + AESGCM.nonceLength
        let tagStart = combined.endIndex - AESGCM.tagLength
        nonce = Data(combined[start..<ciphertextStart])
        ciphertext = combined[ciphertextStart..<tagStart]
        tag = Data(combined[tagStart..<combined.endIndex])
        storage = combined
    }

    /// `nonce(12) || ciphertext || tag(16)`: the usual way to store or send a box in one piece.
    ///
    /// Returned without copying when the box came from ``AESGCM/seal(_:key:nonce:authenticating:)`` or
    /// ``init(combined:)``.
    public var combined: Data {
        if let storage { return storage }
        var joined = Data(capacity: nonce.count + ciphertext.count + tag.count)
        joined.append(nonce)
        joined.append(ciphertext)
        joined.append(tag)
        return joined
    }

    /// Two boxes are equal when their nonces, ciphertexts and tags hold the same bytes.
    public static func == (lhs: SealedBox, rhs: SealedBox) -> Bool {
        lhs.nonce == rhs.nonce && lhs.tag == rhs.tag && lhs.ciphertext == rhs.ciphertext
    }

    /// Hashes the nonce, ciphertext and tag bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(nonce)
        hasher.combine(ciphertext)
        hasher.combine(tag)
    }
}
