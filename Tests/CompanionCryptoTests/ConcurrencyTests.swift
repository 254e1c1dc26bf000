import CompanionCrypto
import Foundation
import Testing

@Suite struct ConcurrencyTests {
    /// Sixteen tasks share one key and seal, open, hash and MAC at once; each must get its own result back.
    @Test func sixteenTasksSealAndOpenConcurrently() async throws {
        let key = try SecureRandom.bytes(AESGCM.keyLength)
        let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
            for task in 0..<16 {
                group.addTask {
                    do {
                        let aad = Data("task-\(task)".utf8)
                        for round in 0..<50 {
                            let message = Data(repeating: UInt8(task), count: 1_000 + task * 97 + round)
                            let box = try AESGCM.seal(message, key: key, authenticating: aad)
                            let opened = try AESGCM.open(
                                SealedBox(combined: box.combined), key: key, authenticating: aad)
                            guard opened == message else { return false }
                            guard Hash.sha256(message) == Hash.sha256(opened) else { return false }
                            let mac = MessageAuthentication.hmacSHA256(key: key, message: message)
                            guard MessageAuthentication.isEqualInConstantTime(mac, mac) else { return false }
                            // A failure on one task must not disturb the others (OpenSSL's error queue is per thread).
                            guard (try? AESGCM.open(box, key: key, authenticating: Data())) == nil else { return false }
                        }
                        return true
                    } catch {
                        return false
                    }
                }
            }
            var collected: [Bool] = []
            for await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 })
    }
}
