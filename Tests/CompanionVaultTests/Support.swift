import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import CompanionVault

/// Locates test inputs and makes scratch folders.
enum VaultTestSupport {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The real vault fixture (written by the sgit CLI and bundled with the tests, see its README), or
    /// `$SGIT_FIXTURE_DIR` when set.
    static func fixtureFolder() throws -> URL {
        if let explicit = ProcessInfo.processInfo.environment["SGIT_FIXTURE_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        guard let bundled = Bundle.module.url(forResource: "Fixtures/sgit-vault", withExtension: nil),
            FileManager.default.fileExists(atPath: bundled.appendingPathComponent("fixture.json").path)
        else {
            throw Failure(description: "the sgit fixture is missing from the test bundle: set SGIT_FIXTURE_DIR")
        }
        return bundled
    }

    /// The fixture vault's read key.
    static func fixtureReadKey() throws -> VaultKey {
        try VaultKey(importing: string(fixtureJSON(), "read_key_string"))
    }

    /// The fixture vault's `objects/` folder (a local clone's bare objects).
    static func fixtureObjects() throws -> URL { try fixtureFolder().appendingPathComponent("objects") }

    static func fixtureJSON() throws -> [String: Any] {
        let data = try Data(contentsOf: fixtureFolder().appendingPathComponent("fixture.json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(description: "fixture.json is not an object")
        }
        return object
    }

    static func string(_ object: [String: Any], _ key: String) throws -> String {
        guard let value = object[key] as? String else { throw Failure(description: "fixture lacks \(key)") }
        return value
    }

    /// A fresh folder under the temporary directory, removed by the caller's `defer`.
    static func scratch(_ name: String = "vault") throws -> URL {
        try TemporaryFolder.make(prefix: "companionvault-tests-\(name)")
    }

    /// A copy of the fixture's objects folder, for tests that tamper with it.
    static func copyOfFixtureObjects() throws -> URL {
        let target = try scratch("objects").appendingPathComponent("objects")
        try FileManager.default.copyItem(at: fixtureFolder().appendingPathComponent("objects"), to: target)
        return target
    }

    /// A copy of the fixture's objects folder with one byte of object `id`'s stored bytes flipped (`xor 0x01` at
    /// `offset`), for tests that a tampered object is refused.
    static func copyOfFixtureObjects(tampering id: String, at offset: Int) throws -> URL {
        let copy = try copyOfFixtureObjects()
        let object = copy.appendingPathComponent("bare/data/\(id)")
        var bytes = try Data(contentsOf: object)
        bytes[bytes.startIndex + offset] ^= 0x01
        try bytes.write(to: object)
        return copy
    }

    /// Every object id the cache at `cache` holds, as a fresh reader of its folder sees it (pack indexes on disk).
    static func cachedObjects(_ cache: URL) -> [String] {
        guard FileManager.default.fileExists(atPath: cache.path), let reader = try? VaultCache(root: cache) else {
            return []
        }
        return reader.objectIDs().sorted()
    }

    /// Flips one bit of cached object `id` where it is stored (`xor 0x80` at `offset` of its bytes), leaving the
    /// pack's length and index as they were.
    static func tamperCachedObject(_ cache: URL, id: String, at offset: Int) throws {
        let reader = try VaultCache(root: cache)
        let (name, index) = try #require(reader.packIndexes().first { $0.value.entries[id] != nil })
        let entry = try #require(index.entries[id])
        let pack = cache.appendingPathComponent("packs/\(name).pack")
        var bytes = try Data(contentsOf: pack)
        bytes[bytes.startIndex + entry.offset + offset] ^= 0x80
        try bytes.write(to: pack)
    }

    /// The `packs/` folder of a cache and the names in it (indexes and packs).
    static func packFiles(_ cache: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("packs").path))?.sorted()
            ?? []
    }
}

/// A source wrapper that counts reads, for "only one request" checks.
final class CountingSource: VaultSource {
    let inner: any VaultSource
    private let reads = Locked<[String]>([])

    init(_ inner: any VaultSource) { self.inner = inner }

    var label: String { inner.label }
    var requested: [String] { reads.withLock { $0 } }
    func reset() { reads.withLock { $0 = [] } }

    func read(vaultID: String, fileID: String) async throws(VaultError) -> VaultResponse {
        reads.withLock { $0.append(fileID) }
        return try await inner.read(vaultID: vaultID, fileID: fileID)
    }

    func list(vaultID: String, prefix: String) async throws(VaultError) -> [String] {
        try await inner.list(vaultID: vaultID, prefix: prefix)
    }
}
