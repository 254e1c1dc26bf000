#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StringProtocol {
    /// The text cut to `limit` characters with an ellipsis, for quoting what a person or server gave
    /// in an error sentence without letting a huge value flood it.
    public func clipped(to limit: Int = 64) -> String {
        count > limit ? String(prefix(limit)) + "…" : String(self)
    }
}

extension Sequence where Element == UInt8 {
    /// The bytes as lowercase hexadecimal, two digits each (digests, keys, ids).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
