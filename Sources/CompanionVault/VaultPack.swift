import Foundation

/// Reads the zips of a pack vault: members named `bare/data/<object id>`, usually stored
/// uncompressed. Only the central directory is trusted for offsets, every offset is bounds-checked, and members
/// that are not objects are skipped.
public enum VaultPack {
    /// One object found in a pack, not yet verified.
    public struct Member: Sendable, Hashable {
        /// The object id (`obj-cas-imm-…`).
        public let objectID: String
        /// The stored (encrypted) bytes.
        public let stored: Data
    }

    /// Lists the object members of a zip. `name` is only used in errors.
    public static func members(of zip: Data, name: String) throws(VaultError) -> [Member] {
        let bytes = [UInt8](zip)
        func fail(_ reason: String) -> VaultError { .malformedPack(name: name, reason: reason) }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        // End of central directory: the last "PK\u{5}\u{6}" within the final 64 KiB + 22 bytes.
        guard bytes.count >= 22 else { throw fail("too short to be a zip") }
        var eocd = -1
        var index = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 65_535)
        while index >= lowest {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 0x05, bytes[index + 3] == 0x06 {
                eocd = index
                break
            }
            index -= 1
        }
        guard eocd >= 0, let count = u16(eocd + 10), let directorySize = u32(eocd + 12),
            let directoryOffset = u32(eocd + 16)
        else { throw fail("no end of central directory") }
        if count == 0xFFFF || directoryOffset == 0xFFFF_FFFF { throw fail("zip64 is not supported") }
        guard directoryOffset + directorySize <= eocd else { throw fail("central directory out of bounds") }

        var members: [Member] = []
        var cursor = directoryOffset
        for _ in 0..<count {
            guard u32(cursor) == 0x0201_4B50, let method = u16(cursor + 10), let compressed = u32(cursor + 20),
                let uncompressed = u32(cursor + 24), let nameLength = u16(cursor + 28),
                let extraLength = u16(cursor + 30), let commentLength = u16(cursor + 32),
                let localOffset = u32(cursor + 42), cursor + 46 + nameLength <= bytes.count
            else { throw fail("central directory entry malformed") }
            let memberName = String(decoding: bytes[(cursor + 46)..<(cursor + 46 + nameLength)], as: UTF8.self)
            cursor += 46 + nameLength + extraLength + commentLength
            guard memberName.hasPrefix("bare/data/") else { continue }
            let objectID = String(memberName.dropFirst("bare/data/".count))
            guard VaultFormat.isObjectID(objectID) else { throw .invalidIdentifier("object id in pack") }
            guard u32(localOffset) == 0x0403_4B50, let localName = u16(localOffset + 26),
                let localExtra = u16(localOffset + 28)
            else { throw fail("local header malformed") }
            let start = localOffset + 30 + localName + localExtra
            guard start + compressed <= directoryOffset, start + compressed <= bytes.count else {
                throw fail("member out of bounds")
            }
            let raw = zip.subdata(in: (zip.startIndex + start)..<(zip.startIndex + start + compressed))
            switch method {
            case 0:
                guard compressed == uncompressed else { throw fail("stored member sizes disagree") }
                members.append(Member(objectID: objectID, stored: raw))
            case 8:
                guard let inflated = VaultCrypto.inflateStream(raw, windowBits: -15, limit: uncompressed),
                    inflated.count == uncompressed
                else { throw fail("deflated member corrupt") }
                members.append(Member(objectID: objectID, stored: inflated))
            default:
                throw fail("compression method \(method) is not supported")
            }
        }
        return members
    }
}
