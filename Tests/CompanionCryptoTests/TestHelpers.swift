import CompanionCore
import Foundation

/// Decodes a hex string (whitespace ignored). Test-only: a malformed literal is a bug in the test itself.
func hex(_ string: String) -> Data {
    let digits = Array(string.unicodeScalars.filter { !$0.properties.isWhitespace })
    precondition(digits.count.isMultiple(of: 2), "odd-length hex literal")
    var bytes = Data(capacity: digits.count / 2)
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(digits[index]) + String(digits[index + 1]), radix: 16) else {
            preconditionFailure("invalid hex literal")
        }
        bytes.append(byte)
    }
    return bytes
}

/// Bytes as ASCII, for readable vectors.
func ascii(_ string: String) -> Data { Data(string.utf8) }

/// `data` split into several regions, to prove that non-contiguous inputs are streamed correctly.
func discontiguous(_ data: Data, pieces: Int) -> DispatchData {
    var result = DispatchData.empty
    let size = Swift.max(1, (data.count + pieces - 1) / pieces)
    var offset = data.startIndex
    while offset < data.endIndex {
        let end = Swift.min(offset + size, data.endIndex)
        data[offset..<end].withUnsafeBytes { result.append($0) }
        offset = end
    }
    return result
}
