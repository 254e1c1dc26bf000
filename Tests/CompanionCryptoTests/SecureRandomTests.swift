import CompanionCore
import CompanionCrypto
import Foundation
import Testing

@Suite struct SecureRandomTests {
    @Test func zeroBytesIsEmpty() throws {
        #expect(try SecureRandom.bytes(0).isEmpty)
    }

    @Test func twoDrawsDiffer() throws {
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(second.count == 32)
        #expect(first != second)
    }

    @Test func largeDraw() throws {
        let bytes = try SecureRandom.bytes(40_000_000)
        #expect(bytes.count == 40_000_000)
        // 40 MB of zeros would mean the buffer was never filled; the chance of random data matching is nil.
        #expect(bytes.suffix(64) != Data(count: 64))
    }

    @Test func negativeCountIsRejected() {
        let error = #expect(throws: CryptoError.self) { try SecureRandom.bytes(-1) }
        guard case .invalidParameter = error else {
            Issue.record("expected invalidParameter, got \(String(describing: error))")
            return
        }
    }

    @Test func secureRandomSourceConformsToRandomSource() {
        let source: any RandomSource = SecureRandomSource()
        let values = Set((0..<64).map { _ in source.next() })
        #expect(values.count == 64)  // 64 draws of 64 bits colliding is practically impossible
        let unit = source.unitInterval()
        #expect(unit >= 0 && unit < 1)
        #expect(source.uuid() != source.uuid())
    }
}
