import Foundation

/// A reader of DER (the X.690 distinguished encoding) for the few structures the kit reads out of an X.509
/// certificate: tag, length, contents, nothing else.
///
/// Rules: every length is checked against the bytes left (a short or lying length is an error, never a read past
/// the end); only definite lengths of at most four bytes are accepted (DER allows no other form); nesting is
/// bounded by the input itself, since each element is strictly shorter than its parent.
struct DERReader {
    /// One element: its tag byte, its contents and all its bytes (tag and length included).
    struct Element {
        /// The identifier octet (`0x30` SEQUENCE, `0xA0` context tag 0, …).
        var tag: UInt8
        /// The contents octets.
        var contents: ArraySlice<UInt8>
        /// The whole element, tag and length included (what a hash over a structure covers).
        var encoded: ArraySlice<UInt8>

        /// A reader over the contents (a constructed element's children).
        var children: DERReader { DERReader(contents) }
    }

    private let bytes: ArraySlice<UInt8>
    private var offset: Int

    /// A reader over `bytes`.
    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset >= bytes.endIndex }

    /// The tag of the next element, without reading it.
    var nextTag: UInt8? { isAtEnd ? nil : bytes[offset] }

    /// Reads the next element; `expecting` checks its tag.
    mutating func read(expecting tag: UInt8? = nil) throws(CertificateError) -> Element {
        let start = offset
        guard offset < bytes.endIndex else { throw .malformed("the certificate ends early") }
        let found = bytes[offset]
        if let tag, found != tag { throw .malformed("unexpected element") }
        // High tag numbers (0x1F) never occur in the structures read here.
        guard found & 0x1F != 0x1F else { throw .malformed("unsupported tag") }
        offset += 1
        guard offset < bytes.endIndex else { throw .malformed("the certificate ends early") }
        let first = bytes[offset]
        offset += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), bytes.endIndex - offset >= count else {
                throw .malformed("an invalid length")
            }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[offset])
                offset += 1
            }
        }
        guard length <= bytes.endIndex - offset else { throw .malformed("a length past the end") }
        let contents = bytes[offset..<(offset + length)]
        offset += length
        return Element(tag: found, contents: contents, encoded: bytes[start..<offset])
    }

    /// Skips the next element when it has `tag`; returns it.
    mutating func optional(_ tag: UInt8) throws(CertificateError) -> Element? {
        guard nextTag == tag else { return nil }
        return try read(expecting: tag)
    }
}
